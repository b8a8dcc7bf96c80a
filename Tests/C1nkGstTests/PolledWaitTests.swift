import XCTest
import C1nkGLibBase

/// A wait on the main context for what another thread makes true (the web
/// page's offer waiting for the door's video): one outcome, whatever happens.
final class PolledWaitTests: XCTestCase {
    func testItEndsOnceWhenReadyTimedOutOrCancelled() {
        let clock = ManualClock()
        var outcomes: [PolledWait.Outcome] = []
        var flowing = false
        let ready = PolledWait(clock: clock, timeout: 2, ready: { flowing }) { outcomes.append($0) }
        clock.advance(by: 0.5)
        XCTAssertEqual(outcomes, [])
        XCTAssertTrue(ready.isWaiting)
        flowing = true
        clock.advance(by: 0.05)
        XCTAssertEqual(outcomes, [.ready])
        ready.cancel("the call ended")
        clock.advance(by: 5)
        XCTAssertEqual(outcomes, [.ready], "once")

        outcomes = []
        let never = PolledWait(clock: clock, timeout: 2, ready: { false }) { outcomes.append($0) }
        clock.advance(by: 1.9)
        XCTAssertEqual(outcomes, [])
        clock.advance(by: 0.2)
        XCTAssertEqual(outcomes, [.timedOut])
        XCTAssertFalse(never.isWaiting)
        XCTAssertEqual(clock.pendingCount, 0, "no timer left")

        outcomes = []
        var cancelled: PolledWait? = PolledWait(clock: clock, timeout: 2, ready: { false }) { outcomes.append($0) }
        cancelled?.cancel("the call ended")
        cancelled = nil
        clock.advance(by: 3)
        XCTAssertEqual(outcomes, [.cancelled("the call ended")])
        _ = cancelled

        outcomes = []
        _ = PolledWait(clock: clock, timeout: 2, ready: { true }) { outcomes.append($0) }
        XCTAssertEqual(outcomes, [.ready], "ready already: at once")
    }
}
