/// How late the main context runs a repeating timer: each tick's delay past
/// its due time, in seconds. A main context kept busy (a hash, a file read)
/// shows up here as lateness; the tests and the benchmark use it to prove
/// that work stays off the main context.
public final class MainLoopLateness {
    public let interval: Double
    /// Every tick's lateness so far, in seconds, in order.
    public private(set) var samples: [Double] = []
    private var timer: GLibTimer?
    private var due = 0.0

    /// Starts ticking every `interval` seconds (10 ms by default).
    public init(interval: Double = 0.01) {
        self.interval = interval
        due = MainContext.monotonicSeconds() + interval
        timer = GLibTimer(after: interval, repeats: true) { [weak self] in self?.tick() }
    }

    public func stop() { timer = nil }

    deinit { stop() }

    /// The lateness below which `fraction` of the ticks were (0.99: the p99), in seconds.
    public func percentile(_ fraction: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
        return sorted[max(0, index)]
    }

    public var maximum: Double { samples.max() ?? 0 }

    private func tick() {
        let now = MainContext.monotonicSeconds()
        samples.append(max(0, now - due))
        // GLib schedules the next tick an interval after this dispatch, not after the due time.
        due = now + interval
    }
}
