/// Waits, without blocking the main context, for something another thread
/// makes true (the door's video caps, seen on a streaming thread): `ready`
/// is asked every `interval` until it holds or `timeout` passed. `finish`
/// is called exactly once, with how the wait ended; `cancel` ends it early.
/// Main context.
public final class PolledWait {
    public enum Outcome: Equatable, Sendable {
        case ready
        case timedOut
        case cancelled(String)
    }

    private var finish: ((Outcome) -> Void)?
    private var timer: (any ScheduledTimer)?

    /// Finishes at once when `ready` already holds.
    public init(clock: TimerClock = GLibClock.shared, timeout: Double, interval: Double = 0.05,
                ready: @escaping () -> Bool, finish: @escaping (Outcome) -> Void) {
        self.finish = finish
        guard !ready() else {
            end(.ready)
            return
        }
        let deadline = clock.now + timeout
        timer = clock.schedule(after: interval, repeats: true) { [weak self, weak clock] in
            if ready() { self?.end(.ready) } else if (clock?.now ?? deadline) >= deadline - 1e-9 { self?.end(.timedOut) }
        }
    }

    public var isWaiting: Bool { finish != nil }

    public func cancel(_ reason: String) { end(.cancelled(reason)) }

    private func end(_ outcome: Outcome) {
        guard let finish else { return }
        self.finish = nil
        timer?.cancel()
        timer = nil
        finish(outcome)
    }

    deinit { end(.cancelled("released")) }
}
