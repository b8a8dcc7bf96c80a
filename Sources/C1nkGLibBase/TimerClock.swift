import CGLib

/// A timer a clock scheduled: cancelled by `cancel()` or when released.
public protocol ScheduledTimer: AnyObject {
    var isActive: Bool { get }
    func cancel()
}

/// Where timers come from. The answerer, the speaker and the display take
/// one, so a test can move time itself (`ManualClock.advance(by:)`) instead
/// of sleeping; everything else uses `GLibClock.shared`, timers on the main
/// context. Main context only.
public protocol TimerClock: AnyObject {
    /// Seconds on a monotonic clock.
    var now: Double { get }
    /// Calls `fire` after `seconds` (and every `seconds` when `repeats`) until
    /// the timer is cancelled or released.
    func schedule(after seconds: Double, repeats: Bool, _ fire: @escaping () -> Void) -> any ScheduledTimer
}

extension TimerClock {
    public func schedule(after seconds: Double, _ fire: @escaping () -> Void) -> any ScheduledTimer {
        schedule(after: seconds, repeats: false, fire)
    }
}

extension GLibTimer: ScheduledTimer {}

/// Timers on the main context (`GLibTimer`) and GLib's monotonic time.
public final class GLibClock: TimerClock {
    nonisolated(unsafe) public static let shared = GLibClock()

    public var now: Double { Double(g_get_monotonic_time()) / 1_000_000 }

    public func schedule(after seconds: Double, repeats: Bool, _ fire: @escaping () -> Void) -> any ScheduledTimer {
        GLibTimer(after: seconds, repeats: repeats, fire)
    }
}

/// A clock that moves only when told to, for tests (as NIOEmbedded's
/// `advanceTime`): `advance(by:)` fires every timer that falls due, in time
/// order, with `now` set to each one's due time.
public final class ManualClock: TimerClock {
    public private(set) var now: Double

    private var timers: [WeakTimer] = []
    private var order = 0

    public init(now: Double = 0) { self.now = now }

    public func schedule(after seconds: Double, repeats: Bool, _ fire: @escaping () -> Void) -> any ScheduledTimer {
        let timer = Timer(clock: self, due: now + max(0, seconds), interval: repeats ? max(0.001, seconds) : nil,
                          order: order, fire: fire)
        order += 1
        timers.append(WeakTimer(timer))
        return timer
    }

    /// Timers still waiting to fire.
    public var pendingCount: Int { timers.filter { $0.timer?.isActive == true }.count }

    /// The due time of the next timer, if any.
    public var nextDue: Double? { live.map(\.due).min() }

    /// Moves time forward by `seconds`, firing what falls due on the way.
    public func advance(by seconds: Double) {
        let end = now + max(0, seconds)
        while let next = live.filter({ $0.due <= end }).min(by: { ($0.due, $0.order) < ($1.due, $1.order) }) {
            now = max(now, next.due)
            next.fire()
        }
        now = end
        timers.removeAll { $0.timer?.isActive != true }
    }

    private var live: [Timer] { timers.compactMap(\.timer).filter(\.isActive) }

    private final class Timer: ScheduledTimer {
        weak var clock: ManualClock?
        var due: Double
        let interval: Double?
        var order: Int
        let body: () -> Void
        private(set) var isActive = true

        init(clock: ManualClock, due: Double, interval: Double?, order: Int, fire: @escaping () -> Void) {
            self.clock = clock
            self.due = due
            self.interval = interval
            self.order = order
            self.body = fire
        }

        func fire() {
            if let interval { due += interval } else { isActive = false }
            body()
        }

        func cancel() { isActive = false }
        deinit { isActive = false }
    }

    private struct WeakTimer {
        weak var timer: Timer?
        init(_ timer: Timer) { self.timer = timer }
    }
}
