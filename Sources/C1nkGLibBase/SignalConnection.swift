import CGLib

/// A GObject signal handler backed by a Swift closure; disconnects when
/// released. This file and its siblings in `GLib/` are the only Swift that
/// hands C function pointers to GLib: each `@convention(c)` thunk below
/// matches one C signal signature and forwards to the boxed closure.
public final class SignalConnection {
    private let instance: gpointer
    private var handlerID: gulong

    private init(instance: gpointer, handlerID: gulong) {
        self.instance = instance
        self.handlerID = handlerID
        g_object_ref(instance)
    }

    public func disconnect() {
        if handlerID != 0 {
            g_signal_handler_disconnect(instance, handlerID)
            handlerID = 0
        }
    }

    deinit {
        disconnect()
        g_object_unref(instance)
    }

    private static func connect<F>(_ instance: gpointer, _ signal: String, _ thunk: gpointer,
                                   _ handler: F) -> SignalConnection {
        let box = Unmanaged.passRetained(ClosureBox(handler)).toOpaque()
        let id = c1nk_signal_connect(instance, signal, thunk, box, { data, _ in
            // Releases the box whatever its closure type: the layout of the
            // retain count does not depend on the generic parameter.
            Unmanaged<AnyObject>.fromOpaque(data!).release()
        })
        precondition(id != 0, "no signal '\(signal)' on this object")
        return SignalConnection(instance: instance, handlerID: id)
    }

    /// `void handler(GObject*, gpointer user_data)`
    public static func connect(_ instance: gpointer, _ signal: String,
                               _ handler: @escaping () -> Void) -> SignalConnection {
        typealias Thunk = @convention(c) (gpointer?, gpointer?) -> Void
        let thunk: Thunk = { _, data in
            Unmanaged<ClosureBox<() -> Void>>.fromOpaque(data!).takeUnretainedValue().value()
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: gpointer.self), handler)
    }

    /// `void handler(GObject*, gpointer arg, gpointer user_data)`
    public static func connect(_ instance: gpointer, _ signal: String,
                               _ handler: @escaping (gpointer?) -> Void) -> SignalConnection {
        typealias Thunk = @convention(c) (gpointer?, gpointer?, gpointer?) -> Void
        let thunk: Thunk = { _, arg, data in
            Unmanaged<ClosureBox<(gpointer?) -> Void>>.fromOpaque(data!).takeUnretainedValue().value(arg)
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: gpointer.self), handler)
    }

    /// `void handler(GObject*, gpointer arg1, gpointer arg2, gpointer user_data)`
    public static func connect(_ instance: gpointer, _ signal: String,
                               _ handler: @escaping (gpointer?, gpointer?) -> Void) -> SignalConnection {
        typealias Thunk = @convention(c) (gpointer?, gpointer?, gpointer?, gpointer?) -> Void
        let thunk: Thunk = { _, a, b, data in
            Unmanaged<ClosureBox<(gpointer?, gpointer?) -> Void>>.fromOpaque(data!).takeUnretainedValue().value(a, b)
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: gpointer.self), handler)
    }

    /// `void handler(GObject*, gint arg1, gpointer arg2, gpointer user_data)`
    public static func connect(_ instance: gpointer, _ signal: String,
                               _ handler: @escaping (Int32, gpointer?) -> Void) -> SignalConnection {
        typealias Thunk = @convention(c) (gpointer?, Int32, gpointer?, gpointer?) -> Void
        let thunk: Thunk = { _, a, b, data in
            Unmanaged<ClosureBox<(Int32, gpointer?) -> Void>>.fromOpaque(data!).takeUnretainedValue().value(a, b)
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: gpointer.self), handler)
    }

    /// `void handler(GObject*, guint arg1, gchar *arg2, gpointer user_data)`
    public static func connect(_ instance: gpointer, _ signal: String,
                               _ handler: @escaping (UInt32, String) -> Void) -> SignalConnection {
        typealias Thunk = @convention(c) (gpointer?, UInt32, UnsafePointer<CChar>?, gpointer?) -> Void
        let thunk: Thunk = { _, a, b, data in
            let text = b.map { String(cString: $0) } ?? ""
            Unmanaged<ClosureBox<(UInt32, String) -> Void>>.fromOpaque(data!).takeUnretainedValue().value(a, text)
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: gpointer.self), handler)
    }

    /// `void handler(GObject*, gpointer arg1, guint arg2, guint arg3, gpointer user_data)`
    /// (e.g. rtpbin's `new-jitterbuffer`: the element, the session, the SSRC)
    public static func connect(_ instance: gpointer, _ signal: String,
                               _ handler: @escaping (gpointer?, UInt32, UInt32) -> Void) -> SignalConnection {
        typealias Thunk = @convention(c) (gpointer?, gpointer?, UInt32, UInt32, gpointer?) -> Void
        let thunk: Thunk = { _, a, b, c, data in
            Unmanaged<ClosureBox<(gpointer?, UInt32, UInt32) -> Void>>.fromOpaque(data!).takeUnretainedValue().value(a, b, c)
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: gpointer.self), handler)
    }

    /// `gpointer handler(GObject*, gpointer arg, gpointer user_data)`: the
    /// handler's result is the signal's return value (e.g. an element).
    public static func connectReturning(_ instance: gpointer, _ signal: String,
                                        _ handler: @escaping (gpointer?) -> gpointer?) -> SignalConnection {
        typealias Thunk = @convention(c) (gpointer?, gpointer?, gpointer?) -> gpointer?
        let thunk: Thunk = { _, arg, data in
            Unmanaged<ClosureBox<(gpointer?) -> gpointer?>>.fromOpaque(data!).takeUnretainedValue().value(arg)
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: gpointer.self), handler)
    }

    /// `gpointer handler(GObject*, guint arg1, guint arg2, gpointer user_data)`: the
    /// handler's result is the signal's return value (e.g. rtpbin's `request-pt-map`:
    /// the session and the payload type in, new caps or NULL out).
    public static func connectReturning(_ instance: gpointer, _ signal: String,
                                        _ handler: @escaping (UInt32, UInt32) -> gpointer?) -> SignalConnection {
        typealias Thunk = @convention(c) (gpointer?, UInt32, UInt32, gpointer?) -> gpointer?
        let thunk: Thunk = { _, a, b, data in
            Unmanaged<ClosureBox<(UInt32, UInt32) -> gpointer?>>.fromOpaque(data!).takeUnretainedValue().value(a, b)
        }
        return connect(instance, signal, unsafeBitCast(thunk, to: gpointer.self), handler)
    }
}
