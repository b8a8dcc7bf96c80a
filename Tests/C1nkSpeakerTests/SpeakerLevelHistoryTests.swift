import XCTest
@testable import C1nkSpeaker

/// The speaker's level history: the loudest level between two times, and
/// only the last 30 s kept.
final class SpeakerLevelHistoryTests: XCTestCase {
    func testLoudestBetweenTwoTimes() {
        var history = SpeakerLevelHistory()
        XCTAssertEqual(history.loudest(since: 0), -.infinity, "nothing heard yet")
        history.append(-50, at: 1)
        history.append(-20, at: 2)
        history.append(-40, at: 3)
        XCTAssertEqual(history.loudest(since: 0), -20)
        XCTAssertEqual(history.loudest(since: 2.5), -40)
        XCTAssertEqual(history.loudest(since: 0, until: 1), -50, "both ends included")
        XCTAssertEqual(history.loudest(since: 3, until: 3), -40)
        XCTAssertEqual(history.loudest(since: 4), -.infinity)
    }

    /// What is older than the window goes, once the oldest is a second past
    /// it (not at every level).
    func testKeepsTheLastWindow() {
        var history = SpeakerLevelHistory()
        XCTAssertEqual(history.window, 30, "today's default")
        for tenth in 0...310 { history.append(-60, at: Double(tenth) / 10) }
        XCTAssertEqual(history.levels.first?.time, 0, "at 31 s the oldest is not yet a second past the window")
        history.append(-10, at: 31.05)
        XCTAssertEqual(history.levels.first?.time ?? 0, 1.1, accuracy: 1e-9, "the last 30 s are kept")
        XCTAssertEqual(history.levels.last?.level, -10)
        XCTAssertEqual(history.loudest(since: 0), -10)
    }

    func testAShorterWindow() {
        var history = SpeakerLevelHistory(window: 2)
        history.append(-30, at: 0)
        history.append(-40, at: 3.5)
        XCTAssertEqual(history.levels.map(\.time), [3.5])
    }
}
