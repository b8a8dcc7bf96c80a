import CGStreamer

/// Reading and writing GObject properties without variadic calls.
public enum ObjectProperty {
    /// Sets a property from its string form, as gst-launch does (enums by nick,
    /// numbers, booleans).
    public static func set(_ object: UnsafeMutableRawPointer, _ name: String, _ value: String) {
        gst_util_set_object_arg(object.assumingMemoryBound(to: GObject.self), name, value)
    }

    public static func has(_ object: UnsafeMutableRawPointer, _ name: String) -> Bool {
        c1nk_object_has_property(object, name) != 0
    }

    public static func string(_ object: UnsafeMutableRawPointer, _ name: String) -> String? {
        guard let value = c1nk_object_get_string(object, name) else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }
}

/// Small conveniences over GStreamer pointers.
public enum Gst {
    public static func name<T>(_ object: UnsafeMutablePointer<T>) -> String {
        guard let name = gst_object_get_name(UnsafeMutableRawPointer(object).assumingMemoryBound(to: GstObject.self)) else { return "?" }
        defer { g_free(name) }
        return String(cString: name)
    }

    /// Finds an element by name inside a bin and its child bins; the caller gets a reference.
    public static func find(_ name: String, in bin: UnsafeMutablePointer<GstElement>) -> UnsafeMutablePointer<GstElement>? {
        gst_bin_get_by_name(UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self), name)
            .flatMap { $0 }
    }

    /// The sink elements of a bin, recursively (references released).
    public static func sinks(of bin: UnsafeMutablePointer<GstElement>) -> [UnsafeMutablePointer<GstElement>] {
        collect(gst_bin_iterate_sinks(UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self)))
    }

    /// Every element of a bin and its child bins (references released: the
    /// bin keeps them alive).
    public static func elements(of bin: UnsafeMutablePointer<GstElement>) -> [UnsafeMutablePointer<GstElement>] {
        collect(gst_bin_iterate_recurse(UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self)))
    }

    /// The name of the factory that made `element` ("decodebin"), if any.
    public static func factoryName(_ element: UnsafeMutablePointer<GstElement>) -> String? {
        gst_element_get_factory(element).map { name(UnsafeMutablePointer<GstObject>($0)) }
    }

    /// Drains an element iterator, then frees it.
    private static func collect(_ iterator: UnsafeMutablePointer<GstIterator>?) -> [UnsafeMutablePointer<GstElement>] {
        guard let iterator else { return [] }
        defer { gst_iterator_free(iterator) }
        var result: [UnsafeMutablePointer<GstElement>] = []
        var value = GValue()
        while gst_iterator_next(iterator, &value) == GST_ITERATOR_OK {
            if let object = g_value_get_object(&value) {
                result.append(object.assumingMemoryBound(to: GstElement.self))
            }
            g_value_reset(&value)
        }
        g_value_unset(&value)
        return result
    }

    /// The caps field `name` of a pad's current caps, as a string.
    public static func capsField(_ pad: UnsafeMutablePointer<GstPad>, _ name: String) -> String? {
        guard let caps = gst_pad_get_current_caps(pad) ?? gst_pad_query_caps(pad, nil) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
        guard gst_caps_get_size(caps) > 0, let structure = gst_caps_get_structure(caps, 0),
              let value = gst_structure_get_string(structure, name) else { return nil }
        return String(cString: value)
    }
}
