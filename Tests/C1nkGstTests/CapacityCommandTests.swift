import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal

/// `--max-calls`: two real `c1nk-gst-answer` processes, each answering its
/// own device (its own server and door), sharing one calls folder with room
/// for one call.
final class CapacityCommandTests: XCTestCase {
    typealias Command = AnswerCommandTests.Command

    private func answerer(_ server: SignalServer, calls: String, events: String, id: String) throws -> Command {
        try Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", id,
            "--answer", "auto", "--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none",
            "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc is-live=true",
            "--max-calls", "1", "--calls-dir", calls])
    }

    private func events(_ path: String, _ name: String) -> [[String: Any]] {
        AnswerCommandTests.events(in: path).filter { $0["event"] as? String == name }
    }

    func testARingBeyondCapacityIsMissedAndTheCallInProgressGoesOn() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        var firstDoor: [SimulatedDoor.Event] = []
        var secondDoor: [SimulatedDoor.Event] = []
        let (server1, door1) = try AnswerCommandTests.serverAndDoor { firstDoor.append($0) }
        let (server2, door2) = try AnswerCommandTests.serverAndDoor { secondDoor.append($0) }
        defer { door1.stop(); door2.stop() }
        let directory = temporaryDirectory()
        let calls = directory + "/calls"
        let (events1, events2) = (directory + "/events-1.jsonl", directory + "/events-2.jsonl")
        let first = try answerer(server1, calls: calls, events: events1, id: directory + "/id-1")
        let second = try answerer(server2, calls: calls, events: events2, id: directory + "/id-2")
        defer { [first, second].forEach { if $0.process.isRunning { $0.signal(SIGKILL) } } }
        waitUntil("both answerers registered", timeout: 15) {
            door1.isReady && door2.isReady && server1.connectedAppIds.count == 1 && server2.connectedAppIds.count == 1
        }

        door1.ring()
        waitUntil("the first call's video", timeout: 10) { !self.events(events1, "first-frame").isEmpty }

        // The second device's ring while the first is in its call: no slot is free.
        door2.ring()
        waitUntil("the second ring missed", timeout: 10) { !self.events(events2, "missed").isEmpty }
        let missed = try XCTUnwrap(events(events2, "missed").first)
        XCTAssertEqual(missed["reason"] as? String, "over-capacity")
        XCTAssertTrue(events(events2, "ringing").isEmpty, "it rings nowhere here")
        waitUntil("the status line says what to do") { second.stderr.contains("raise --max-calls or run fewer answerers on this machine") }

        XCTAssertFalse(secondDoor.contains { if case .peerJoined = $0 { true } else { false } }, "nothing answered it")
        XCTAssertTrue(events(events1, "ended").isEmpty, "the call in progress is untouched")
        XCTAssertFalse(firstDoor.contains { if case .callEnded = $0 { true } else { false } })
        // The first call goes on: a second of frames (counted at its end, below), then the door hangs up.
        MainContext.spin(1.0)
        door1.hangup()
        waitUntil("the first call ended") { !self.events(events1, "ended").isEmpty }
        let ended = try XCTUnwrap(events(events1, "ended").first)
        XCTAssertEqual(ended["reason"] as? String, "remote")
        // At 30 a second: the time from the first frame past the missed ring and the second of waiting.
        XCTAssertGreaterThanOrEqual(ended["frames"] as? Int ?? 0, 30, "frames kept coming while the second rang")

        // A slot is free again: the second device answers its next ring.
        door2.hangup()
        door2.ring()
        waitUntil("the second device's call", timeout: 10) { !self.events(events2, "first-frame").isEmpty }
        XCTAssertEqual(events(events2, "accepted").count, 1)
        door2.hangup()
        waitUntil("the second call ended") { !self.events(events2, "ended").isEmpty }

        first.signal(SIGTERM)
        second.signal(SIGTERM)
        XCTAssertEqual(first.wait(), 0, first.stderr)
        XCTAssertEqual(second.wait(), 0, second.stderr)
    }

    private func run(_ arguments: [String]) throws -> (status: Int32?, out: String, err: String) {
        let command = try Command("c1nk-gst-answer", arguments)
        let status = command.wait()
        return (status, command.stdout, command.stderr)
    }

    func testMaxCallsIsAnOptionWithItsDefault() throws {
        let help = try run(["--help"])
        XCTAssertTrue(help.out.contains("--max-calls N|auto|off"), help.out)
        XCTAssertTrue(help.out.contains("--calls-dir DIR"), help.out)
        let config = try run(["--print-config", "--server", "ws://127.0.0.1:1/ws"])
        XCTAssertEqual(config.status, 0, config.err)
        XCTAssertEqual(ServiceConfigTests.setting("max-calls", in: config.out), "auto", config.out)
        let bad = try run(["--max-calls", "0"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("--max-calls takes a number of calls from 1 to 10000, auto or off"), bad.err)
    }
}
