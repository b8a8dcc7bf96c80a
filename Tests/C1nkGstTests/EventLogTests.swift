import Foundation
import XCTest
@testable import C1nkAnswerer
@testable import C1nkCall

/// The events log writes each event as its one JSON encoding (pinned, case by
/// case, in C1nkCallTests), in memory and to its file, and reads it back.
final class EventLogTests: XCTestCase {
    private static let events: [CallEvent] = [
        .connected(server: "wss://c1nk.example/ws"),
        .ringing(callId: "c1", doorName: "Hlavný vchod"),
        .missed(callId: "c2", doorName: "Dvor", reason: "busy"),
        .ended(callId: "c1", reason: .hangup, doorName: "Hlavný vchod", frames: 250),
    ]

    func testTheLogWritesEachEventsOneEncoding() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("c1nk-events-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var seen: [CallEvent] = []
        do {
            let log = try EventLog(path: path)
            log.onEvent = { event, _ in seen.append(event) }
            for event in Self.events { log.emit(event) }
            XCTAssertEqual(log.events.map(\.event), Self.events)
            XCTAssertEqual(log.written.compactMap { $0["event"] as? String }, Self.events.map(\.name))
        }
        XCTAssertEqual(seen, Self.events)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, Self.events.count)
        for (line, event) in zip(lines, Self.events) {
            let timed = try TimedCallEvent(line: Data(line.utf8))
            XCTAssertEqual(timed.event, event)
            // Byte for byte the encoder's line for the same time.
            XCTAssertEqual(line, String(decoding: try XCTUnwrap(event.jsonLine(t: timed.t)), as: UTF8.self))
        }
        XCTAssertEqual(TimedCallEvent.read(lines.joined(separator: "\n")).map(\.event), Self.events)
    }
}
