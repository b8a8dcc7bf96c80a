import CGLib

/// The one place where c1nk-gst serialises events.
///
/// Every object of the library (signaling client, server, call manager, media
/// session) lives on one GLib main context — the *default* one unless the
/// process chose another with `use(_:)` — and is touched only from the thread
/// that iterates it. libsoup delivers its callbacks to the context that was
/// thread-default when its session was made, so that thread must also have
/// `context` pushed as its thread-default (`g_main_context_push_thread_default`).
/// `webrtcbin` and pad probes call back on streaming threads, and those
/// callbacks only `post` a closure here — they never block on Swift work.
///
/// The commands and the tests use the default context; the GStreamer plugin
/// (`libgstc1nk.so`) runs everything on a context of its own, iterated by a
/// thread of its own, because the application that loads it may never iterate
/// the default context. The choice is made once per process, before any
/// source is attached.
public enum MainContext {
    /// The context every source of the library is attached to; nil is GLib's default context.
    /// Written once by `use(_:)` before any source exists (so before any other
    /// thread can read it), then only read.
    nonisolated(unsafe) public private(set) static var context: OpaquePointer?
    nonisolated(unsafe) private static var chosen = false

    /// Chooses the context of the process. Call it once, before anything of
    /// the library attaches a source (a post, a timer, a socket, a bus watch).
    public static func use(_ context: OpaquePointer) {
        precondition(!chosen, "MainContext.use may be called once per process")
        chosen = true
        g_main_context_ref(context)
        self.context = context
    }

    /// Attaches `source` to the context (taking over the caller's reference) and returns its id.
    package static func attach(_ source: UnsafeMutablePointer<GSource>) -> guint {
        defer { g_source_unref(source) }
        return g_source_attach(source, context)
    }

    /// Removes the source `id` from the context (`g_source_remove` only looks in the default one).
    package static func remove(_ id: guint) {
        guard id != 0, let source = g_main_context_find_source_by_id(context, id) else { return }
        g_source_destroy(source)
    }

    /// Attaches a watch of `fd` (`g_unix_fd_add` on the library's context) and returns its id.
    package static func attachDescriptorWatch(_ fd: Int32, _ condition: GIOCondition, _ dispatch: GUnixFDSourceFunc,
                                      _ data: gpointer, _ destroy: GDestroyNotify) -> guint {
        let source = g_unix_fd_source_new(fd, condition)!
        g_source_set_callback(source, unsafeBitCast(dispatch, to: GSourceFunc.self), data, destroy)
        return attach(source)
    }

    /// Runs `work` on the main context, soon. Safe from any thread.
    public static func post(_ work: @escaping () -> Void) {
        let box = Unmanaged.passRetained(ClosureBox(work)).toOpaque()
        let source = g_idle_source_new()!
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(source, { data in
            let box = Unmanaged<ClosureBox<() -> Void>>.fromOpaque(data!).takeUnretainedValue()
            box.value()
            return 0 // G_SOURCE_REMOVE
        }, box, { data in
            Unmanaged<ClosureBox<() -> Void>>.fromOpaque(data!).release()
        })
        _ = attach(source)
    }

    /// A source that wakes the context every `seconds` and does nothing else.
    private static func wakeUp(every seconds: Double) -> guint {
        let source = g_timeout_source_new(guint(min(max(0, seconds), 86_400) * 1000))!
        g_source_set_callback(source, { _ in 1 }, nil, nil)
        return attach(source)
    }

    /// Iterates the main context on the calling thread until `done`
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
        if let poll { sources.append(wakeUp(every: poll)) }
        // Wakes the iteration at the deadline (kept until removed below).
        if timeout.isFinite { sources.append(wakeUp(every: timeout)) }
        defer { sources.forEach { remove($0) } }
        while !done() {
            if monotonicSeconds() >= deadline { return false }
            g_main_context_iteration(context, 1)
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
package final class ClosureBox<T> {
    package let value: T
    package init(_ value: T) { self.value = value }
}
