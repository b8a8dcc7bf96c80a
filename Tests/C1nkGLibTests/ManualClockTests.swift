import C1nkGLibBase
import XCTest

final class ManualClockTests: XCTestCase {
    func testTimersFireInDueOrderWithTheClockAtTheirTime() {
        let clock = ManualClock()
        var fired: [(String, Double)] = []
        let late = clock.schedule(after: 2) { fired.append(("late", clock.now)) }
        let early = clock.schedule(after: 1) { fired.append(("early", clock.now)) }
        clock.advance(by: 0.5)
        XCTAssertTrue(fired.isEmpty)
        clock.advance(by: 5)
        XCTAssertEqual(fired.map(\.0), ["early", "late"])
        XCTAssertEqual(fired.map(\.1), [1, 2])
        XCTAssertEqual(clock.now, 5.5)
        XCTAssertFalse(early.isActive || late.isActive)
    }

    func testACancelledOrReleasedTimerNeverFires() {
        let clock = ManualClock()
        var fired = 0
        let cancelled = clock.schedule(after: 1) { fired += 1 }
        cancelled.cancel()
        _ = clock.schedule(after: 1) { fired += 1 }  // released at once
        clock.advance(by: 10)
        XCTAssertEqual(fired, 0)
        XCTAssertEqual(clock.pendingCount, 0)
    }

    func testARepeatingTimerFiresOncePerInterval() {
        let clock = ManualClock()
        var times: [Double] = []
        let timer = clock.schedule(after: 0.25, repeats: true) { times.append(clock.now) }
        clock.advance(by: 1)
        XCTAssertEqual(times, [0.25, 0.5, 0.75, 1.0])
        timer.cancel()
        clock.advance(by: 1)
        XCTAssertEqual(times.count, 4)
    }

    func testATimerScheduledWhileFiringRunsInTheSameAdvance() {
        let clock = ManualClock()
        var chain: [Double] = []
        var next: (any ScheduledTimer)?
        let first = clock.schedule(after: 1) {
            chain.append(clock.now)
            next = clock.schedule(after: 1) { chain.append(clock.now) }
        }
        clock.advance(by: 3)
        XCTAssertEqual(chain, [1, 2])
        withExtendedLifetime((first, next)) {}
    }
}
