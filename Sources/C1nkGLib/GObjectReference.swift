import CGLib

/// One reference to a GObject of a library beside GStreamer (a `PangoLayout`,
/// a `GdkPixbuf`), dropped when released. Those libraries' pointers are
/// opaque to Swift; `opaque` hands this one back for their calls, `object`
/// for property calls (`c1nk_object_set_pointer`).
public final class GObjectReference: @unchecked Sendable {
    public let object: gpointer

    /// Takes a (non-floating) reference the caller owns, as `pango_cairo_create_layout` and `gdk_pixbuf_new` return.
    public init(adopting pointer: OpaquePointer) { object = UnsafeMutableRawPointer(pointer) }

    deinit { g_object_unref(object) }

    /// The object, valid while this reference lives (`withOpaque` keeps it alive for a block).
    public var opaque: OpaquePointer { OpaquePointer(object) }

    /// Calls `body` with the object, this reference kept alive until `body` returns.
    public func withOpaque<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try withExtendedLifetime(self) { try body(opaque) }
    }
}
