import CGStreamer

/// Caps that own one reference.
public final class Caps: @unchecked Sendable, CustomStringConvertible {
    public let pointer: UnsafeMutablePointer<GstCaps>

    public init(adopting pointer: UnsafeMutablePointer<GstCaps>) { self.pointer = pointer }

    public convenience init(retaining pointer: UnsafeMutablePointer<GstCaps>) {
        _ = gst_mini_object_ref(MiniObject.cast(pointer))
        self.init(adopting: pointer)
    }

    /// Caps from their string form ("video/x-raw,width=640"), or nil when it does not parse.
    public convenience init?(_ description: String) {
        guard let parsed = gst_caps_from_string(description) else { return nil }
        self.init(adopting: parsed)
    }

    deinit { gst_mini_object_unref(MiniObject.cast(pointer)) }

    public var description: String {
        guard let text = gst_caps_to_string(pointer) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }

    public var count: Int { Int(gst_caps_get_size(pointer)) }

    /// The media type of structure `index` ("video/x-raw").
    public func mediaType(at index: Int = 0) -> String? {
        guard index < count, let structure = gst_caps_get_structure(pointer, guint(index)) else { return nil }
        return String(cString: gst_structure_get_name(structure))
    }

    /// A string field of structure `index` ("encoding-name").
    public func string(_ field: String, at index: Int = 0) -> String? {
        guard index < count, let structure = gst_caps_get_structure(pointer, guint(index)),
              let value = gst_structure_get_string(structure, field) else { return nil }
        return String(cString: value)
    }

    /// An integer field of structure `index` ("width", "clock-rate").
    public func int(_ field: String, at index: Int = 0) -> Int? {
        guard index < count, let structure = gst_caps_get_structure(pointer, guint(index)) else { return nil }
        var value: gint = 0
        return gst_structure_get_int(structure, field, &value) != 0 ? Int(value) : nil
    }

    /// The structure at `index`, borrowed from these caps.
    public func structure(at index: Int = 0) -> UnsafeMutablePointer<GstStructure>? {
        index < count ? gst_caps_get_structure(pointer, guint(index)) : nil
    }
}

/// Casts of GStreamer's mini objects (caps, buffers, samples, events,
/// messages) to the base type their ref and unref take.
public enum MiniObject {
    public static func cast<T>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<GstMiniObject> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self)
    }

    /// Drops one reference of any mini object.
    public static func release<T>(_ pointer: UnsafeMutablePointer<T>) { gst_mini_object_unref(cast(pointer)) }
}
