import CGStreamer

/// The sinks fed from a pad, found by following links downstream: through
/// plain elements, tees, and into and out of bins (a `--sink` description is
/// a bin whose real sink sits inside it).
enum DownstreamSinks {
    /// Sinks reachable from `pad` (a source pad); the caller gets no references.
    static func from(_ pad: UnsafeMutablePointer<GstPad>) -> [UnsafeMutablePointer<GstElement>] {
        var found: [UnsafeMutablePointer<GstElement>] = []
        var seen: Set<UnsafeMutableRawPointer> = []
        visit(pad, &found, &seen)
        return found
    }

    private static func isA(_ pad: UnsafeMutablePointer<GstPad>, _ type: GType) -> Bool {
        g_type_is_a(c1nk_object_type(UnsafeMutableRawPointer(pad)), type) != 0
    }

    private static func visit(_ source: UnsafeMutablePointer<GstPad>, _ found: inout [UnsafeMutablePointer<GstElement>],
                              _ seen: inout Set<UnsafeMutableRawPointer>) {
        guard seen.insert(UnsafeMutableRawPointer(source)).inserted, let peer = gst_pad_get_peer(source) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(peer)) }
        var sinkPad = peer
        var target: UnsafeMutablePointer<GstPad>?
        if isA(peer, gst_ghost_pad_get_type()) {
            // Into a bin: continue at the element inside.
            target = gst_ghost_pad_get_target(UnsafeMutableRawPointer(peer).assumingMemoryBound(to: GstGhostPad.self))
            guard let target else { return }
            sinkPad = target
        } else if isA(peer, gst_proxy_pad_get_type()), let ghost = gst_proxy_pad_get_internal(UnsafeMutableRawPointer(peer).assumingMemoryBound(to: GstProxyPad.self)) {
            // Out of a bin through its source ghost pad.
            let outward = UnsafeMutableRawPointer(ghost).assumingMemoryBound(to: GstPad.self)
            visit(outward, &found, &seen)
            gst_object_unref(UnsafeMutableRawPointer(ghost))
            return
        }
        defer { if let target { gst_object_unref(UnsafeMutableRawPointer(target)) } }
        guard let element = gst_pad_get_parent_element(sinkPad) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
        if isA(sinkPad, gst_ghost_pad_get_type()) { return } // a ghost without target
        let flags = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self).pointee.flags
        if flags & GST_ELEMENT_FLAG_SINK.rawValue != 0, gst_bin_get_type() != c1nk_object_type(UnsafeMutableRawPointer(element)),
           g_type_is_a(c1nk_object_type(UnsafeMutableRawPointer(element)), gst_bin_get_type()) == 0 {
            if !found.contains(element) { found.append(element) }
        }
        guard let iterator = gst_element_iterate_src_pads(element) else { return }
        defer { gst_iterator_free(iterator) }
        var value = GValue()
        var pads: [UnsafeMutablePointer<GstPad>] = []
        while gst_iterator_next(iterator, &value) == GST_ITERATOR_OK {
            if let object = g_value_get_object(&value) {
                let pad = object.assumingMemoryBound(to: GstPad.self)
                gst_object_ref(UnsafeMutableRawPointer(pad))
                pads.append(pad)
            }
            g_value_reset(&value)
        }
        g_value_unset(&value)
        for pad in pads {
            visit(pad, &found, &seen)
            gst_object_unref(UnsafeMutableRawPointer(pad))
        }
    }
}
