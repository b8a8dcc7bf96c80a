import CGStreamer

extension PipelineDescription {
    /// The element factories this description builds, with `values` for its
    /// placeholders (stand-ins for the per-call ones), for `doctor`. Throws
    /// what building throws (a missing element named with its package).
    public func elementFactories(_ values: [String: String]) throws -> [String] {
        var all = values
        for (key, value) in Self.standInValues where all[key] == nil { all[key] = value }
        if all["record-location"] == nil { all["record-location"] = "/dev/null" }
        let bin = try build(all)
        defer { gst_object_unref(UnsafeMutableRawPointer(bin)) }
        guard let iterator = gst_bin_iterate_recurse(UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self)) else { return [] }
        defer { gst_iterator_free(iterator) }
        var names = Set<String>()
        var value = GValue()
        defer { g_value_unset(&value) }
        while gst_iterator_next(iterator, &value) == GST_ITERATOR_OK {
            if let object = g_value_get_object(&value),
               let factory = gst_element_get_factory(object.assumingMemoryBound(to: GstElement.self)),
               let name = gst_object_get_name(UnsafeMutableRawPointer(factory).assumingMemoryBound(to: GstObject.self)) {
                names.insert(String(cString: name))
                g_free(name)
            }
            g_value_reset(&value)
        }
        return names.sorted()
    }

    /// The Debian package that brings an element, when known.
    public static func package(forElement name: String) -> String? {
        PluginPackages.package(forElement: name)
    }
}

extension MediaConfiguration {
    /// The placeholder values the user chose (`{sink}`, `{audio-source}`, …), for `doctor`.
    public var userPlaceholderValues: [String: String] { userValues }
}
