import C1nkCall
import Foundation
import XCTest
@testable import C1nkDisplay

final class RingHistoryTests: XCTestCase {
    func temporaryPath() -> String {
        let directory = NSTemporaryDirectory() + "c1nk-history-\(UUID().uuidString)"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        return directory + "/c1nk/history.jsonl"
    }

    func testRingsAreKeptOwnerOnlyAndReadBack() throws {
        let path = temporaryPath()
        let history = RingHistory(path: path)
        let recorder = RingHistoryRecorder(history: history)
        let events: [(CallEvent, Int64)] = [
            (.ringing(callId: "1", doorName: "Hlavný vchod"), 1_000), (.accepted(callId: "1"), 1_100),
            (.ended(callId: "1", reason: .hangup, doorName: "Hlavný vchod"), 1_200),
            (.ringing(callId: "2", doorName: "Dvor"), 2_000), (.ended(callId: "2", reason: .remote, doorName: "Dvor"), 2_100),
            (.ringing(callId: "3", doorName: "Dvor"), 3_000), (.ended(callId: "3", reason: .rejected, doorName: "Dvor"), 3_100),
            (.ringing(callId: "4", doorName: "Garáž"), 4_000),
            (.ended(callId: "4", reason: .answeredElsewhere, doorName: "Garáž"), 4_100),
            // A ring while busy never reached the resident: no entry.
            (.missed(callId: "5", doorName: "Dvor", reason: "busy"), 5_000),
        ]
        var changes = 0
        recorder.onChange = { changes += 1 }
        for (event, t) in events { recorder.record(event, at: t) }
        XCTAssertEqual(changes, 4)
        let reread = RingHistory(path: path)
        XCTAssertEqual(reread.entries.map(\.outcome), [.answered, .missed, .rejected, .answeredElsewhere])
        XCTAssertEqual(reread.latest(1).first?.door, "Garáž")
        XCTAssertEqual(reread.entries.map(\.t), [1_000, 2_000, 3_000, 4_000], "each entry at its ring's time")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        XCTAssertEqual((directory[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        XCTAssertTrue(reread.text().contains("Hlavný vchod · prijaté"))
    }

    func testCorruptLinesAreSkippedWithAWarning() throws {
        let path = temporaryPath()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let good = #"{"door":"Dvor","outcome":"missed","t":5}"#
        try "\(good)\nnot json\n{\"door\":1}\n\u{FF}\u{FE}\n\(good)\n".write(toFile: path, atomically: true, encoding: .utf8)
        var warnings: [String] = []
        let history = RingHistory(path: path) { warnings.append($0) }
        XCTAssertEqual(history.entries.count, 2)
        XCTAssertEqual(warnings.count, 3)
        XCTAssertTrue(warnings[0].contains("history.jsonl:2"), warnings[0])
    }

    func testOnlyTheLast500AreKept() throws {
        let path = temporaryPath()
        let history = RingHistory(path: path)
        for index in 0..<510 { history.append(.init(t: Int64(index), door: "D", outcome: .missed)) }
        let reread = RingHistory(path: path)
        XCTAssertEqual(reread.entries.count, 500)
        XCTAssertEqual(reread.entries.first?.t, 10)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertLessThanOrEqual(lines.count, 500)
    }

    func testRowsSayTodayAndYesterday() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let today = RingHistory.Entry(t: Int64((now.timeIntervalSince1970 - 60) * 1000), door: "Hlavný vchod", outcome: .answered)
        XCTAssertTrue(today.row(now: now).title.hasPrefix("Dnes "))
        XCTAssertEqual(today.row(now: now).subtitle, "Hlavný vchod · prijaté")
        let yesterday = RingHistory.Entry(t: Int64((now.timeIntervalSince1970 - 86_400) * 1000), door: "D", outcome: .missed)
        XCTAssertTrue(yesterday.row(now: now).title.hasPrefix("Včera "))
        XCTAssertEqual(yesterday.row(now: now).subtitle, "D · zmeškané")
    }

    /// An end without its ring (the process started during the call) still
    /// counts, at the end's time, under the door the end names.
    func testAnEndWithoutItsRingIsKeptAtItsTime() {
        let history = RingHistory(path: temporaryPath())
        RingHistoryRecorder(history: history).record(.ended(callId: "9", reason: .noConnection, doorName: "Dvor"), at: 9_000)
        XCTAssertEqual(history.entries, [.init(t: 9_000, door: "Dvor", outcome: .missed)])
    }

    func testOutcomes() {
        XCTAssertEqual(RingHistoryRecorder.outcome(accepted: true, reason: .remote), .answered)
        XCTAssertEqual(RingHistoryRecorder.outcome(accepted: true, reason: .answeredElsewhere), .answered)
        XCTAssertEqual(RingHistoryRecorder.outcome(accepted: false, reason: .answeredElsewhere), .answeredElsewhere)
        XCTAssertEqual(RingHistoryRecorder.outcome(accepted: false, reason: .rejected), .rejected)
        for reason: CallMachine.EndReason in [.hangup, .remote, .noConnection, .mediaFailed, .lost, .serverError, .shutdown] {
            XCTAssertEqual(RingHistoryRecorder.outcome(accepted: false, reason: reason), .missed, "\(reason)")
        }
    }
}
