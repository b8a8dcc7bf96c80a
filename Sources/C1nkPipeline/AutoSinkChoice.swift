import CGStreamer

/// What `autovideosink`, `autoaudiosink` or `autoaudiosrc` picks on this
/// machine. Opening one always "works": with no device it falls back to a
/// fake element, so `doctor` asks which element it chose.
public enum AutoSinkChoice {
    /// The factory name of the element the automatic element chose once
    /// ready (`pulsesink`, `alsasink`, `fakesink`, …); nil when the
    /// description has no automatic element or it chose nothing.
    public static func chosen(_ description: String) -> String? {
        guard let bin = try? PipelineBin.make(description, name: "auto-check") else { return nil }
        defer {
            gst_element_set_state(bin, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(bin))
        }
        let bus = gst_bus_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_bus(bin, bus)
        guard gst_element_set_state(bin, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE else { return nil }
        return firstChild(of: bin, depth: 0)
    }

    /// The first element below an `auto*` element, searching child bins.
    private static func firstChild(of bin: UnsafeMutablePointer<GstElement>, depth: Int) -> String? {
        guard depth < 4, let iterator = gst_bin_iterate_elements(UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self)) else { return nil }
        defer { gst_iterator_free(iterator) }
        var value = GValue()
        defer { g_value_unset(&value) }
        var children: [UnsafeMutablePointer<GstElement>] = []
        while gst_iterator_next(iterator, &value) == GST_ITERATOR_OK {
            if let object = g_value_get_object(&value) { children.append(object.assumingMemoryBound(to: GstElement.self)) }
            g_value_reset(&value)
        }
        for child in children {
            let factory = factoryName(child)
            if factory.hasPrefix("auto") {
                // The automatic element's own child is the real one.
                return firstInside(child)
            }
        }
        return nil
    }

    private static func firstInside(_ auto: UnsafeMutablePointer<GstElement>) -> String? {
        guard let iterator = gst_bin_iterate_elements(UnsafeMutableRawPointer(auto).assumingMemoryBound(to: GstBin.self)) else { return nil }
        defer { gst_iterator_free(iterator) }
        var value = GValue()
        defer { g_value_unset(&value) }
        var result: String?
        while gst_iterator_next(iterator, &value) == GST_ITERATOR_OK {
            if let object = g_value_get_object(&value) {
                let name = factoryName(object.assumingMemoryBound(to: GstElement.self))
                if result == nil || name != "capsfilter" && name != "queue" { result = name }
            }
            g_value_reset(&value)
        }
        return result
    }

    private static func factoryName(_ element: UnsafeMutablePointer<GstElement>) -> String {
        guard let factory = gst_element_get_factory(element),
              let name = gst_object_get_name(UnsafeMutableRawPointer(factory).assumingMemoryBound(to: GstObject.self)) else { return "?" }
        defer { g_free(name) }
        return String(cString: name)
    }
}
