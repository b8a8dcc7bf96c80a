import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal

/// A server that sends callIds made to escape: the real command, recording
/// and taking snapshots into folders of their own, refuses each ring with a
/// line that says why, writes nothing anywhere, and answers the next real
/// call as ever.
final class HostileIdCommandTests: XCTestCase {
    typealias Command = AnswerCommandTests.Command

    /// The three ids found on main, a 4 KB one, a newline, NUL, and bytes that are no UTF-8.
    static let hostileFrames: [String] = {
        func incoming(_ json: String) -> String { #"{"type":"incoming","callId":"# + json + #","doorName":"Vchod"}"# }
        return [incoming(#""../../c1nk-escape1""#), incoming(#""x\" location=\"c1nk-pwned""#), incoming(#""a%n%s%Y{callId}""#),
                incoming("\"" + String(repeating: "A", count: 4096) + "\""), incoming(#""call\n1""#), incoming(#""call\u0000nul""#),
                incoming("\"call-\u{FFFD}\u{FFFD}\"")]
    }()
    /// Frames that are no JSON text: refused as frames, before any id is read.
    static let undecodableFrames = [#"{"type":"incoming","callId":"call-\udc80","doorName":"Vchod"}"#]

    func testHostileCallIdsAreRefusedWriteNothingAndTheNextCallRecords() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let (server, door) = try AnswerCommandTests.serverAndDoor { _ in }
        defer { door.stop(); server.stop() }
        // DIR is two folders down, so that ../../ from either folder lands in `base`.
        let base = temporaryDirectory()
        let directory = base + "/dir"
        for folder in ["rec", "snap"] { try FileManager.default.createDirectory(atPath: "\(directory)/\(folder)", withIntermediateDirectories: true) }
        let events = base + "/events.jsonl"
        let command = try Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", base + "/id", "--answer", "auto", "--hangup-after", "1",
            "--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none", "--screens", "off",
            "--record", "\(directory)/rec/{callId}.mkv", "--snapshot", "\(directory)/snap/{callId}.jpg",
            "--audio-source", "audiotestsrc is-live=true", "--audio-sink", "fakesink", "--sink", "fakesink"])
        defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }
        for frame in Self.hostileFrames { server.sendRawToApps(frame) }
        for frame in Self.undecodableFrames { server.sendRawToApps(frame) }
        server.sendBinaryToApps(Array(#"{"type":"incoming","callId":"bin-"#.utf8) + [0xFF, 0xFE] + Array(#"","doorName":"x"}"#.utf8))
        let refusals = Self.hostileFrames.count
        waitUntil("each hostile ring missed", timeout: 10) {
            AnswerCommandTests.events(in: events).filter { $0["reason"] as? String == "invalid-call-id" }.count >= refusals
        }
        door.ring()
        waitUntil("the real call recorded", timeout: 20) { AnswerCommandTests.names(AnswerCommandTests.events(in: events)).contains("recorded") }
        command.signal(SIGINT)
        XCTAssertEqual(command.wait(), 0, command.stderr)

        let all = AnswerCommandTests.events(in: events)
        let missed = all.filter { $0["event"] as? String == "missed" }
        XCTAssertEqual(missed.count, refusals, "each hostile ring missed once, none rang: \(missed)")
        XCTAssertTrue(missed.allSatisfy { ($0["callId"] as? String)?.utf8.count ?? .max <= 4 * 64 + 3 }, "the id shown escaped and cut")
        XCTAssertEqual(AnswerCommandTests.names(all).filter { $0 == "ringing" }.count, 1, "only the real call rang")
        XCTAssertTrue(command.stderr.contains("is not a valid id"), command.stderr)
        XCTAssertTrue(command.stderr.contains(#"x\x22\x20location\x3D\x22c1nk-pwned"#), "the id in the log is escaped: \(command.stderr)")
        XCTAssertFalse(command.stderr.contains("has no value here"), "no id was read as a placeholder")
        XCTAssertFalse(command.stderr.contains("no element"), "no id reached a pipeline's text")

        // Nothing beside the two folders (and the state the command keeps: its id, the door's last codec), and in them only the real call's files.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: base).sorted(), ["dir", "events.jsonl", "id", "last-video-codec"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory).sorted(), ["rec", "snap"])
        let ring = try XCTUnwrap(all.first { $0["event"] as? String == "ringing" })
        let callId = try XCTUnwrap(ring["callId"] as? String)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory + "/rec"), ["\(callId).mkv"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory + "/snap").filter { !$0.hasPrefix(".") }, ["\(callId).jpg"])
    }
}
