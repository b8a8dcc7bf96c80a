import CGStreamer

/// The one place where c1nk-gst serialises events.
///
/// Every object of the library (signaling client, server, call manager, media
/// session) lives on GLib's *default* main context and is touched only from the
/// thread that iterates it. libsoup already delivers its callbacks there;
/// `webrtcbin` and pad probes call back on streaming threads, and those
/// callbacks only `post` a closure here — they never block on Swift work.
public enum MainContext {
    /// Runs `work` on the default main context, soon. Safe from any thread.
    public static func post(_ work: @escaping () -> Void) {
        let box = Unmanaged.passRetained(ClosureBox(work)).toOpaque()
        g_idle_add_full(G_PRIORITY_DEFAULT, { data in
            let box = Unmanaged<ClosureBox<() -> Void>>.fromOpaque(data!).takeUnretainedValue()
            box.value()
            return 0 // G_SOURCE_REMOVE
        }, box, { data in
            Unmanaged<ClosureBox<() -> Void>>.fromOpaque(data!).release()
        })
    }

    /// Iterates the default main context on the calling thread until `done`
    /// returns true or `timeout` seconds pass. Returns whether `done` held.
    /// Commands use it as their main loop; tests use it to wait for events.
    ///
    /// `done` is checked after every event dispatched. `poll` adds a check
    /// every so many seconds, for conditions that change outside the main
    /// context (another process exiting); commands pass nil, so an idle
    /// process sleeps until something happens.
    @discardableResult
    public static func run(timeout: Double = .infinity, poll: Double? = 0.05, until done: () -> Bool) -> Bool {
        let deadline = timeout.isFinite ? monotonicSeconds() + timeout : .infinity
        var sources: [guint] = []
        if let poll {
            sources.append(g_timeout_add_full(G_PRIORITY_DEFAULT, guint(poll * 1000), { _ in 1 }, nil, nil))
        }
        if timeout.isFinite {
            // Wakes the iteration at the deadline (kept until removed below).
            sources.append(g_timeout_add_full(G_PRIORITY_DEFAULT, guint(min(max(0, timeout), 86_400) * 1000), { _ in 1 }, nil, nil))
        }
        defer { sources.forEach { g_source_remove($0) } }
        while !done() {
            if monotonicSeconds() >= deadline { return false }
            g_main_context_iteration(nil, 1)
        }
        return true
    }

    /// Iterates for `seconds`, dispatching whatever is due.
    public static func spin(_ seconds: Double) {
        run(timeout: seconds) { false }
    }

    /// Seconds on the monotonic clock (GLib's, the same clock as timers).
    public static func monotonicSeconds() -> Double {
        Double(g_get_monotonic_time()) / 1_000_000
    }

    /// Milliseconds since the Unix epoch, for event timestamps.
    public static func unixMilliseconds() -> Int64 {
        Int64(g_get_real_time() / 1000)
    }
}

/// Carries a Swift value through a C `gpointer`.
final class ClosureBox<T> {
    let value: T
    init(_ value: T) { self.value = value }
}
