import XCTest
@testable import C1nkCall
@testable import C1nkProtocol
@testable import C1nkSignaling

/// Each call intent in the C1nk dialect: the app message and its exact bytes
/// on the wire.
final class C1nkDialectTests: XCTestCase {
    func testEachIntentIsItsAppMessageByteForByte() {
        let candidate = IceCandidate(candidate: "candidate:1 1 UDP 2122260223 10.0.0.2 50000 typ host",
                                     sdpMid: "0", sdpMLineIndex: 0)
        let cases: [(SignalIntent, ClientMessage, String)] = [
            (.join(callId: "c1"), .join(callId: "c1"), #"{"callId":"c1","type":"join"}"#),
            (.sendAnswer(callId: "c1", sdp: "v=0\r\n"), .answer(callId: "c1", sdp: "v=0\r\n"),
             #"{"callId":"c1","sdp":"v=0\r\n","type":"answer"}"#),
            (.sendCandidate(callId: "c1", candidate: candidate), .ice(callId: "c1", candidate: candidate),
             #"{"callId":"c1","candidate":{"candidate":"candidate:1 1 UDP 2122260223 10.0.0.2 50000 typ host","sdpMLineIndex":0,"sdpMid":"0"},"type":"ice"}"#),
            (.accept(callId: "c1"), .accept(callId: "c1"), #"{"callId":"c1","type":"accept"}"#),
            (.reject(callId: "c1"), .reject(callId: "c1"), #"{"callId":"c1","type":"reject"}"#),
            (.hangup(callId: "c1"), .hangup(callId: "c1"), #"{"callId":"c1","type":"hangup"}"#),
            (.openDoor(callId: "c1"), .openDoor(callId: "c1"), #"{"callId":"c1","type":"open-door"}"#),
        ]
        for (intent, message, wire) in cases {
            XCTAssertEqual(ClientMessage(intent), message, "\(intent)")
            XCTAssertEqual(WireCodec.encode(ClientMessage(intent)), wire, "\(intent)")
            XCTAssertEqual(ClientMessage(intent).callId, intent.callId, "\(intent)")
        }
    }

    func testAnIceCandidateWithNoMidStillCarriesTheField() {
        let intent = SignalIntent.sendCandidate(callId: "c1", candidate: IceCandidate(candidate: "candidate:2", sdpMid: nil,
                                                                                      sdpMLineIndex: 1))
        XCTAssertEqual(WireCodec.encode(ClientMessage(intent)),
                       #"{"callId":"c1","candidate":{"candidate":"candidate:2","sdpMLineIndex":1,"sdpMid":null},"type":"ice"}"#)
    }
}
