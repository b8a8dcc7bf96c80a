/// How the simulated door's encoder follows the answerer's transport-wide
/// congestion feedback, as a browser's does in short: a value, fed with
/// each feedback report (what was sent and received over the last 300 ms,
/// the loss, the trend of the packets' delay), giving the encoder's new
/// target when it should change.
///
/// - It starts low and doubles its rate every second or so until the first
///   sign of congestion (a slow start, where a browser probes).
/// - When less arrives than was sent, the packets' one-way delay stands
///   50 ms over the least seen (a router's queue fills) or over 2 % is lost, it drops to 85 % of what arrived and holds a second.
/// - Loss over 10 % cuts in proportion (half the loss fraction), once a second.
/// - No feedback for half a second halves the rate.
/// - Otherwise it climbs 8 % a second toward its maximum, never past 1.5
///   times what arrived.
public struct FeedbackRate: Sendable {
    public private(set) var kbps: Double
    public let minimumKbps: Double
    public let maximumKbps: Double
    private var slowStart = true
    private var lastTime: Double?
    private var holdUntil = 0.0
    /// Each change: (seconds, kbps), for reports.
    public private(set) var history: [(time: Double, kbps: Int)] = []

    public init(startKbps: Double = 300, minimumKbps: Double = 80, maximumKbps: Double = 2500) {
        self.minimumKbps = minimumKbps
        self.maximumKbps = max(minimumKbps, maximumKbps)
        kbps = min(max(startKbps, minimumKbps), self.maximumKbps)
    }

    /// One feedback report at `time` (seconds). Returns the new target in
    /// kbit/s when it moved by 5 % or more since the encoder was last told.
    public mutating func feedback(sentBps: Double, receivedBps: Double, lossPercent: Double, delayTrendMs: Double,
                                  queueDelayMs: Double = 0, at time: Double) -> Int? {
        let first = firstTime ?? time
        firstTime = first
        let elapsed = min(1, max(0, time - (lastTime ?? time)))
        lastTime = time
        // The first second's reports still hold the start-up burst.
        guard time - first >= 1 else { return nil }
        let before = kbps
        let receivedKbps = receivedBps / 1000
        let congested = (sentBps > 50_000 && receivedBps < 0.95 * sentBps) || delayTrendMs > 1
            || queueDelayMs > Self.queueLimitMs
        // A queue that has not drained yet: no climbing into it.
        let draining = queueDelayMs > Self.queueLimitMs / 2
        if lossPercent > 10 && time >= holdUntil {
            kbps *= 1 - 0.5 * min(lossPercent, 100) / 100
            enterHold(time)
        } else if (congested || lossPercent > 2) && time >= holdUntil && receivedKbps > 0 {
            kbps = min(kbps, 0.85 * receivedKbps)
            enterHold(time)
        } else if time >= holdUntil && lossPercent < 2 && !congested && !draining {
            kbps *= slowStart ? 1 + elapsed : 1 + 0.08 * elapsed
            // Never far above what demonstrably arrives.
            if receivedKbps > 0 { kbps = min(kbps, max(before, 1.5 * receivedKbps)) }
        }
        kbps = min(max(kbps, minimumKbps), maximumKbps)
        // The encoder is told of a move of 5 % or more, or of reaching a bound.
        guard abs(kbps - reported) >= 0.05 * reported || ((kbps == minimumKbps || kbps == maximumKbps) && kbps != reported) else {
            return nil
        }
        reported = kbps
        history.append((time, Int(kbps)))
        return Int(kbps)
    }

    private var firstTime: Double?
    /// A queue this long (one-way delay over the least seen) is congestion.
    static let queueLimitMs = 50.0
    private var reported: Double = 0

    /// No feedback has come for a while although the door sends: what it
    /// sends is not arriving (feedback comes with the video's packets).
    /// Halves the rate, at most once per half second, as libwebrtc does
    /// when its feedback stops.
    public mutating func feedbackMissing(since last: Double, at time: Double) -> Int? {
        guard time - last >= 0.5, time - lastMissingCut >= 0.5 else { return nil }
        lastMissingCut = time
        kbps = max(minimumKbps, kbps / 2)
        enterHold(time)
        reported = kbps
        history.append((time, Int(kbps)))
        return Int(kbps)
    }

    private var lastMissingCut = -Double.infinity

    private mutating func enterHold(_ time: Double) {
        slowStart = false
        holdUntil = time + 1
    }
}
