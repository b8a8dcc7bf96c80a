import CGLib
import CGStreamer

/// A GObject that is not an element — webrtcbin's transceivers, its ICE
/// agent, libnice's agent; a `PangoLayout`, a `GdkPixbuf` — holding one
/// reference, dropped in `deinit`; its properties by name, as `Element`'s are.
/// Libraries whose pointers are opaque to Swift get theirs back as `opaque`.
///
/// `init(retaining:)` adds a plain reference and never sinks: an object
/// still floating inside its owner (webrtcbin 1.22's ICE agent) stays
/// floating, and its owner keeps the reference it has.
public final class GObjectReference: GObjectProperties, @unchecked Sendable {
    public let object: gpointer

    /// Takes a reference the caller owns (an object property read, an action signal's result).
    public init(adopting object: gpointer) { self.object = object }

    /// Adds a reference of its own to a borrowed object.
    public convenience init(retaining object: gpointer) {
        g_object_ref(object)
        self.init(adopting: object)
    }

    /// The object-valued property `name` of `owner`, with a reference of its own; nil when unset.
    public convenience init?(property name: String, of owner: gpointer) {
        guard let value = c1nk_object_get_object(owner, name) else { return nil }
        self.init(adopting: value)
    }

    /// Takes a (non-floating) reference the caller owns, as `pango_cairo_create_layout` and `gdk_pixbuf_new` return.
    public convenience init(adopting pointer: OpaquePointer) { self.init(adopting: UnsafeMutableRawPointer(pointer)) }

    deinit { g_object_unref(object) }

    /// The object, valid while this reference lives (`withOpaque` keeps it alive for a block).
    public var opaque: OpaquePointer { OpaquePointer(object) }

    /// Calls `body` with the object, this reference kept alive until `body` returns.
    public func withOpaque<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try withExtendedLifetime(self) { try body(opaque) }
    }

    /// An object-valued property, with a reference of its own.
    public subscript(object name: String) -> GObjectReference? { GObjectReference(property: name, of: object) }
}
