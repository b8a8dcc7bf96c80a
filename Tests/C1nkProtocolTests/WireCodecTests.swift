import Foundation
import XCTest
@testable import C1nkProtocol

/// The codec against the app protocol's JSON (docs/protocol.md), literally.
final class WireCodecTests: XCTestCase {
    private func json(_ text: String) -> NSDictionary {
        try! JSONSerialization.jsonObject(with: Data(text.utf8)) as! NSDictionary
    }

    private func assertEncodes(_ message: ClientMessage, as literal: String, file: StaticString = #filePath, line: UInt = #line) {
        let encoded = WireCodec.encode(message)
        XCTAssertEqual(json(encoded), json(literal), file: file, line: line)
        XCTAssertEqual(try WireCodec.decode(ClientMessage.self, from: literal).get(), message, file: file, line: line)
    }

    func testAppMessagesMatchTheAppProtocol() {
        assertEncodes(.hello(deviceId: "D", voipToken: "", bundleId: "eu.c1nk.app"), as: """
        {
          "type": "hello",
          "role": "app",
          "deviceId": "D",
          "voipToken": "",
          "bundleId": "eu.c1nk.app"
        }
        """)
        assertEncodes(.registerToken(deviceId: "...", voipToken: "...", bundleId: "eu.c1nk.app"),
                      as: #"{ "type": "register-token", "deviceId": "...", "voipToken": "...", "bundleId": "eu.c1nk.app" }"#)
        assertEncodes(.join(callId: "c1"), as: #"{ "type": "join", "callId": "c1" }"#)
        assertEncodes(.answer(callId: "...", sdp: "v=0\r\n"), as: #"{ "type": "answer", "callId": "...", "sdp": "v=0\r\n" }"#)
        assertEncodes(.ice(callId: "...", candidate: IceCandidate(candidate: "...", sdpMid: "0", sdpMLineIndex: 0)), as: """
        {
          "type": "ice",
          "callId": "...",
          "candidate": { "candidate": "...", "sdpMid": "0", "sdpMLineIndex": 0 }
        }
        """)
        assertEncodes(.accept(callId: "..."), as: #"{ "type": "accept", "callId": "..." }"#)
        assertEncodes(.reject(callId: "..."), as: #"{ "type": "reject", "callId": "..." }"#)
        assertEncodes(.hangup(callId: "..."), as: #"{ "type": "hangup", "callId": "..." }"#)
        assertEncodes(.openDoor(callId: "..."), as: #"{ "type": "open-door", "callId": "..." }"#)
        assertEncodes(.ping, as: #"{ "type": "ping" }"#)
    }

    func testServerMessagesDecode() throws {
        let cases: [(String, ServerMessage)] = [
            (#"{"type":"welcome"}"#, .welcome),
            (#"{"type":"hello-ok","deviceId":"abc"}"#, .helloOk(deviceId: "abc")),
            (#"{"type":"hello-ok"}"#, .helloOk(deviceId: nil)),
            (#"{"type":"token-ok"}"#, .tokenOk),
            (#"{"type":"incoming","callId":"c","doorName":"Hlavný vchod"}"#, .incoming(callId: "c", doorName: "Hlavný vchod")),
            (#"{"type":"incoming","callId":"c"}"#, .incoming(callId: "c", doorName: "Vchod")),
            (#"{"type":"join-ok","callId":"c"}"#, .joinOk(callId: "c")),
            (#"{"type":"offer","callId":"c","sdp":"v=0"}"#, .offer(callId: "c", sdp: "v=0")),
            (#"{"type":"ice","callId":"c","candidate":{"candidate":"candidate:1","sdpMid":null,"sdpMLineIndex":1}}"#,
             .ice(callId: "c", candidate: IceCandidate(candidate: "candidate:1", sdpMid: nil, sdpMLineIndex: 1))),
            (#"{"type":"call-end","callId":"c","reason":"answered-elsewhere"}"#, .callEnd(callId: "c", reason: "answered-elsewhere")),
            (#"{"type":"door-open-ok","callId":"c"}"#, .doorOpenOk(callId: "c")),
            (#"{"type":"error","message":"nope"}"#, .error(message: "nope")),
            (#"{"type":"error","message":"unknown call c","callId":"c"}"#, .error(message: "unknown call c", callId: "c")),
            (#"{"type":"pong","extra":[1,2]}"#, .pong),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try WireCodec.decode(ServerMessage.self, from: text).get(), expected, text)
            // And back: what we encode decodes to the same value.
            XCTAssertEqual(try WireCodec.decode(ServerMessage.self, from: WireCodec.encode(expected)).get(), expected)
        }
    }

    func testMalformedInputBecomesTypedErrors() {
        let cases: [(String, ProtocolError)] = [
            ("not json at all", .notJSON),
            ("", .notJSON),
            ("[1,2,3]", .notAnObject),
            ("\"hello\"", .notAnObject),
            (#"{"callId":"c"}"#, .missingType),
            (#"{"type":42}"#, .missingType),
            (#"{"type":"teleport"}"#, .unknownType("teleport")),
            (#"{"type":"offer","callId":"c"}"#, .missingField(type: "offer", field: "sdp")),
            (#"{"type":"offer","callId":7,"sdp":"x"}"#, .wrongFieldType(type: "offer", field: "callId")),
            (#"{"type":"ice","callId":"c","candidate":{"candidate":"x","sdpMLineIndex":"zero"}}"#,
             .wrongFieldType(type: "ice", field: "candidate.sdpMLineIndex")),
            (#"{"type":"ice","callId":"c","candidate":{"sdpMLineIndex":0}}"#,
             .missingField(type: "ice", field: "candidate.candidate")),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(WireCodec.decode(ServerMessage.self, from: text).failure, expected, text)
        }
        let huge = #"{"type":"offer","callId":"c","sdp":""# + String(repeating: "a", count: 300_000) + #""}"#
        XCTAssertEqual(WireCodec.decode(ServerMessage.self, from: huge).failure,
                       .oversized(bytes: huge.utf8.count, limit: WireCodec.maximumFrameBytes))
    }

    func testDoorDialectRoundTrips() throws {
        let messages: [DoorMessage] = [
            .hello(doorId: "d1", doorName: "Hlavný vchod"), .ring,
            .offer(callId: "c", peerId: "p", sdp: "v=0"),
            .ice(callId: "c", peerId: "p", candidate: IceCandidate(candidate: "x", sdpMid: "1", sdpMLineIndex: 1)),
            .doorOpened(callId: "c"), .hangup(callId: "c"), .ping,
        ]
        for message in messages {
            XCTAssertEqual(try WireCodec.decode(DoorMessage.self, from: WireCodec.encode(message)).get(), message)
        }
        let toDoor: [ServerToDoorMessage] = [
            .welcome, .helloOk(doorId: "d"), .ringOk(callId: "c"), .join(callId: "c", peerId: "p"),
            .answer(callId: "c", peerId: "p", sdp: "v=0"), .accept(callId: "c", peerId: "p"),
            .leave(callId: "c", peerId: "p", reason: "rejected"), .openDoor(callId: "c", peerId: "p"),
            .callEnd(callId: "c", reason: "hangup"), .error(message: "m"), .pong,
        ]
        for message in toDoor {
            XCTAssertEqual(try WireCodec.decode(ServerToDoorMessage.self, from: WireCodec.encode(message)).get(), message)
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
