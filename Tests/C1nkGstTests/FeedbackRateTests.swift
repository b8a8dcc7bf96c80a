import XCTest
@testable import C1nkDoor
@testable import C1nkMedia

/// The simulated door's answer to congestion feedback, as a value.
final class FeedbackRateTests: XCTestCase {
    /// Reports every 100 ms with what arrived and the queue's delay.
    private func feed(_ rate: inout FeedbackRate, from start: Double, seconds: Double, sent: Double, received: Double,
                      loss: Double = 0, queue: Double = 0) -> Double {
        var time = start
        while time < start + seconds {
            _ = rate.feedback(sentBps: sent, receivedBps: received, lossPercent: loss, delayTrendMs: 0, queueDelayMs: queue, at: time)
            time += 0.1
        }
        return time
    }

    func testSlowStartThenItSettlesUnderWhatArrives() {
        var rate = FeedbackRate(startKbps: 300, maximumKbps: 2000)
        var time = feed(&rate, from: 0, seconds: 1, sent: 300_000, received: 300_000)
        XCTAssertEqual(rate.kbps, 300, "the first second's reports hold the start-up burst")
        time = feed(&rate, from: time, seconds: 1, sent: 300_000, received: 300_000)
        XCTAssertGreaterThan(rate.kbps, 400, "slow start")
        XCTAssertLessThanOrEqual(rate.kbps, 450, "never far above what arrives (1.5×)")
        // The router's queue fills: 50 ms over the least delay seen.
        _ = feed(&rate, from: time, seconds: 0.2, sent: 700_000, received: 600_000, queue: 80)
        XCTAssertLessThanOrEqual(rate.kbps, 0.85 * 600 + 1)
    }

    func testFeedbackThatLiesCannotStopTheDoor() {
        var rate = FeedbackRate(startKbps: 300, minimumKbps: 80, maximumKbps: 2000)
        var time = feed(&rate, from: 0, seconds: 1.1, sent: 300_000, received: 300_000)
        // "1 kbit/s arrived", every 100 ms for 5 s; then 90 % loss.
        time = feed(&rate, from: time, seconds: 5, sent: 300_000, received: 1_000)
        XCTAssertEqual(rate.kbps, 80, "the floor holds")
        time = feed(&rate, from: time, seconds: 2, sent: 80_000, received: 8_000, loss: 90)
        XCTAssertEqual(rate.kbps, 80)
        // The truth again: it climbs back.
        _ = feed(&rate, from: time, seconds: 5, sent: 80_000, received: 80_000)
        XCTAssertGreaterThan(rate.kbps, 80)
    }

    func testMissingFeedbackHalvesTheRateAtMostTwiceASecond() {
        var rate = FeedbackRate(startKbps: 800, maximumKbps: 2000)
        XCTAssertNil(rate.feedbackMissing(since: 10, at: 10.3), "not yet")
        XCTAssertEqual(rate.feedbackMissing(since: 10, at: 10.6), 400)
        XCTAssertNil(rate.feedbackMissing(since: 10, at: 10.8), "once per half second")
        XCTAssertEqual(rate.feedbackMissing(since: 10, at: 11.2), 200)
    }
    /// However low the feedback says, and however long it is missing, the
    /// encoder is told the floor and never less.
    func testTheFloorHoldsAgainstAnyFeedback() {
        var rate = FeedbackRate(startKbps: 300, minimumKbps: 80, maximumKbps: 2000)
        var told: [Int] = []
        var time = 0.0
        while time < 6 {
            // "1 kbit/s arrived" from the first report on, 40 % lost, the delay climbing.
            if let kbps = rate.feedback(sentBps: 300_000, receivedBps: 1_000, lossPercent: 40, delayTrendMs: 50,
                                        queueDelayMs: 500, at: time) { told.append(kbps) }
            time += 0.1
        }
        for step in 0..<10 {
            if let kbps = rate.feedbackMissing(since: time, at: time + 0.5 * Double(step + 1)) { told.append(kbps) }
        }
        XCTAssertFalse(told.isEmpty)
        XCTAssertEqual(told.min(), 80, "\(told)")
        XCTAssertEqual(rate.kbps, 80)
        XCTAssertTrue(rate.history.allSatisfy { $0.kbps >= 80 }, "\(rate.history)")
    }
}
