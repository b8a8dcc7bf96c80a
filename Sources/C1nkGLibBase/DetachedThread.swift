import CGLib

/// Runs `body` on a thread of its own (named, for debuggers and `top -H`) that
/// nobody joins, as Foundation's `Thread` did: the answerer does not link
/// Foundation, to keep ICU out of its memory.
package func detachThread(named name: String? = nil, _ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    g_thread_unref(g_thread_new(name, { data in
        let box = Unmanaged<Box>.fromOpaque(data!).takeRetainedValue()
        box.body()
        return nil
    }, box))
}
