import Foundation
import XCTest
@testable import C1nkProtocol

/// What the server sends is data: ids checked against one alphabet, free
/// text made one capped line, and bytes that are no JSON string refused.
final class ServerInputTests: XCTestCase {
    func testValidIdsAreTheServersUsualOnes() {
        for id in [UUID().uuidString, UUID().uuidString.lowercased(), "call-1", "c1", "peer-1a2b", "door_1", "a.b", "urn:c1nk:7"] {
            XCTAssertNil(ServerIdentifier.refusal(id), id)
        }
    }

    func testHostileIdsAreRefusedWithAReason() {
        let cases: [(String, String)] = [
            ("../../c1nk-escape1", "0x2F"),
            ("x\" location=\"c1nk-pwned", "0x22"),
            ("a%n%s%Y{callId}", "0x25"),
            (String(repeating: "a", count: 4096), "4096 bytes long"),
            ("call\n1", "0x0A"),
            ("call\u{0}1", "0x00"),
            ("call-é", "a character outside"),
            ("", "empty"),
            ("..", "only dots"),
            (String(repeating: "b", count: 129), "129 bytes"),
        ]
        for (id, reason) in cases {
            let refusal = ServerIdentifier.refusal(id)
            XCTAssertNotNil(refusal, id)
            XCTAssertTrue(refusal?.contains(reason) == true, "\(id.prefix(20)): \(refusal ?? "none")")
        }
        XCTAssertNil(ServerIdentifier.refusal(String(repeating: "b", count: 128)), "128 bytes is the limit")
        XCTAssertEqual(ServerIdentifier.printable("call\n1\u{0}"), "call\\x0A1\\x00")
    }

    func testAnIncomingWithAHostileIdDecodesAsDataAndItsNameIsOneCappedLine() throws {
        let name = "Hlavný\nvchod\u{202E}" + String(repeating: "x", count: 200)
        let text = try String(data: JSONSerialization.data(withJSONObject: ["type": "incoming", "callId": "a\u{0}b", "doorName": name]),
                              encoding: .utf8)!
        guard case .success(.incoming(let callId, let doorName)) = WireCodec.decode(ServerMessage.self, from: text) else {
            return XCTFail("an id is data: it decodes, and is refused where a call would be made of it")
        }
        XCTAssertEqual(callId, "a\u{0}b")
        XCTAssertFalse(ServerIdentifier.isValid(callId))
        XCTAssertTrue(doorName.hasPrefix("Hlavný vchod x"), doorName)
        XCTAssertEqual(doorName.count, ServerText.maximumNameLength + 1, "64 characters and the ellipsis")
        XCTAssertFalse(doorName.contains { $0.isNewline }, "one line")
        XCTAssertFalse(doorName.unicodeScalars.contains("\u{202E}"), "no direction override")
        guard case .success(.incoming(_, let unnamed)) = WireCodec.decode(ServerMessage.self, from: #"{"type":"incoming","callId":"c1","doorName":" \n "}"#) else {
            return XCTFail("decodes")
        }
        XCTAssertEqual(unnamed, ServerMessage.defaultDoorName, "a name of nothing but spaces is the default")
    }

    func testBytesThatAreNotUTF8AndALoneSurrogateAreRefusedOrReplacedNeverTrusted() {
        var bytes = Array(#"{"type":"incoming","callId":"a"#.utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array(#"b","doorName":"x"}"#.utf8)
        let text = String(decoding: bytes, as: UTF8.self)
        switch WireCodec.decode(ServerMessage.self, from: text) {
        case .success(.incoming(let callId, _)): XCTAssertFalse(ServerIdentifier.isValid(callId), "replacement characters are outside the alphabet")
        case .success(let other): XCTFail("\(other)")
        case .failure: break
        }
        switch WireCodec.decode(ServerMessage.self, from: #"{"type":"incoming","callId":"a\udc80b"}"#) {
        case .success(.incoming(let callId, _)): XCTAssertFalse(ServerIdentifier.isValid(callId))
        case .success(let other): XCTFail("\(other)")
        case .failure: break
        }
    }
}
