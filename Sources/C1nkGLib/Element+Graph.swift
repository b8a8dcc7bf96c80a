import CGLib
import CGStreamer

/// Where an element sits in its graph: its pads as lists, its direct
/// children, and what its flags and type say it is. For code that walks a
/// built pipeline's links.
extension Element {
    /// The sink pads, each with a reference of its own, in the element's order.
    public var sinkPads: [Pad] { ObjectIterator.pads(gst_element_iterate_sink_pads(pointer)) }

    /// The source pads, each with a reference of its own, in the element's order.
    public var sourcePads: [Pad] { ObjectIterator.pads(gst_element_iterate_src_pads(pointer)) }

    /// How many sink pads it has now (a muxer or a mixer: more than one).
    public var sinkPadCount: Int { Int(pointer.pointee.numsinkpads) }

    /// Whether the element calls itself a sink (`GST_ELEMENT_FLAG_SINK`); a
    /// bin holding a sink says so too.
    public var isSinkFlagged: Bool { pointer.pointee.object.flags & GST_ELEMENT_FLAG_SINK.rawValue != 0 }

    /// Whether the element is an instance of `type` (or of a type derived from it).
    public func isA(_ type: GType) -> Bool { c1nk_object_is_a(object, type) != 0 }
}

extension Bin {
    /// The bin's own elements, not those of its child bins, each with a reference of its own.
    public var children: [Element] {
        ObjectIterator.drain(gst_bin_iterate_elements(binPointer)) {
            Element(retaining: $0.assumingMemoryBound(to: GstElement.self))
        }
    }
}

/// Drains GStreamer iterators of objects (pads, elements), then frees them.
enum ObjectIterator {
    static func pads(_ iterator: UnsafeMutablePointer<GstIterator>?) -> [Pad] {
        drain(iterator) { Pad(retaining: $0.assumingMemoryBound(to: GstPad.self)) }
    }

    /// Each object through `take`, which must add its own reference: the
    /// iterator's is dropped right after.
    static func drain<T>(_ iterator: UnsafeMutablePointer<GstIterator>?, _ take: (UnsafeMutableRawPointer) -> T) -> [T] {
        guard let iterator else { return [] }
        defer { gst_iterator_free(iterator) }
        var result: [T] = []
        var value = GValue()
        while gst_iterator_next(iterator, &value) == GST_ITERATOR_OK {
            if let object = g_value_get_object(&value) { result.append(take(object)) }
            g_value_reset(&value)
        }
        g_value_unset(&value)
        return result
    }
}
