import C1nkGLib
import CGStreamer
import Foundation

/// The plugin's main context and the one thread that iterates it.
///
/// An application that loads `libgstc1nk.so` (gst-launch-1.0, a GTK app, a
/// Python script with its own loop) may never iterate GLib's default
/// context, so the answering core cannot live there. The first c1nkdoorbin
/// of a process makes a context, chooses it for the whole library
/// (`MainContext.use`), and starts a thread that pushes it as its
/// thread-default context (libsoup binds its sockets to that one) and
/// iterates it for the life of the process. Every c1nkdoorbin of the process
/// shares this thread: the core is event-driven and light, and one thread
/// keeps the library's rule of a single serialising context.
enum PluginContext {
    /// Made once (a lazy static is thread-safe), then only read; GMainContext is thread-safe.
    nonisolated(unsafe) private static let context: OpaquePointer = {
        GStreamer.initialize()
        let context = g_main_context_new()!
        MainContext.use(context)
        let ready = DispatchSemaphore(value: 0)
        let address = UInt(bitPattern: context)
        let thread = Thread {
            let context = OpaquePointer(bitPattern: address)
            g_main_context_push_thread_default(context)
            ready.signal()
            while true { g_main_context_iteration(context, 1) }
        }
        thread.name = "c1nk-context"
        thread.start()
        ready.wait()
        return context
    }()

    /// Whether the caller is the context thread, dispatching.
    static var isContextThread: Bool { g_main_context_is_owner(context) != 0 }

    /// Runs `work` on the context thread and waits for it (inline when
    /// called on that thread, e.g. from a signal handler of ours).
    static func sync<T>(_ work: @escaping () throws -> T) throws -> T {
        if isContextThread { return try work() }
        var result: Result<T, Error>?
        let done = DispatchSemaphore(value: 0)
        MainContext.post {
            result = Result { try work() }
            done.signal()
        }
        done.wait()
        return try result!.get()
    }

    /// Runs `work` on the context thread, soon.
    static func post(_ work: @escaping () -> Void) {
        _ = context
        MainContext.post(work)
    }
}
