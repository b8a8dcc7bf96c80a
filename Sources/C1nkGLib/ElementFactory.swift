import CGStreamer

/// An element factory (what makes `queue`, `opusenc`, …) that owns one
/// reference: found by name, or the one that made an element; its metadata
/// says what kind of element it makes.
public final class ElementFactory: @unchecked Sendable {
    /// The `GstElementFactory` (an opaque type to Swift).
    public let pointer: OpaquePointer

    /// Takes a reference the caller owns (`gst_element_factory_find`).
    public init(adopting pointer: OpaquePointer) { self.pointer = pointer }

    /// Adds a reference of its own to a borrowed factory (`gst_element_get_factory`).
    public convenience init(retaining pointer: OpaquePointer) {
        gst_object_ref(UnsafeMutableRawPointer(pointer))
        self.init(adopting: pointer)
    }

    /// The installed factory called `name`, or nil when no plugin brings it.
    public convenience init?(named name: String) {
        guard let found = gst_element_factory_find(name) else { return nil }
        self.init(adopting: found)
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var name: String { Gst.name(UnsafeMutablePointer<GstObject>(pointer)) }

    /// A metadata field ("klass", "long-name", "description").
    public func metadata(_ key: String) -> String? {
        gst_element_factory_get_metadata(pointer, key).map { String(cString: $0) }
    }

    /// The factory's class, "Sink/Audio" or "Codec/Decoder/Video"; empty when it says none.
    public var klass: String { metadata("klass") ?? "" }
}

extension Element {
    /// The factory that made this element, if any.
    public var factory: ElementFactory? { gst_element_get_factory(pointer).map { ElementFactory(retaining: $0) } }
}
