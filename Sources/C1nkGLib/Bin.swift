import CGStreamer

/// A bin (or pipeline) that owns one reference: elements in and out, looked
/// up by name, listed. Elements found or listed come back as `Element`s
/// holding their own reference.
public class Bin: Element, @unchecked Sendable {
    /// A new, empty bin.
    public convenience init(named name: String) {
        let bin = gst_bin_new(name)!
        gst_object_ref_sink(UnsafeMutableRawPointer(bin))
        self.init(adopting: bin)
    }

    public var binPointer: UnsafeMutablePointer<GstBin> { UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstBin.self) }

    /// Adds `element` (the bin takes a reference of its own).
    @discardableResult
    public func add(_ element: Element) -> Bool { gst_bin_add(binPointer, element.pointer) != 0 }

    /// Removes `element`; set it to NULL first if it ran.
    @discardableResult
    public func remove(_ element: Element) -> Bool { gst_bin_remove(binPointer, element.pointer) != 0 }

    /// The element called `name`, here or in a child bin.
    public func element(named name: String) -> Element? {
        gst_bin_get_by_name(binPointer, name).map { Element(adopting: $0) }
    }

    /// Every element, recursively.
    public var elements: [Element] { Gst.elements(of: pointer).map { Element(retaining: $0) } }

    /// The sink elements, recursively.
    public var sinks: [Element] { Gst.sinks(of: pointer).map { Element(retaining: $0) } }

    /// Asks the sinks to take the latency again (after a latency message).
    public func recalculateLatency() { gst_bin_recalculate_latency(binPointer) }
}

/// A top-level pipeline: a bin with a bus and a clock.
public final class Pipeline: Bin, @unchecked Sendable {
    /// A new, empty pipeline.
    public convenience init(pipelineNamed name: String) {
        let pipeline = gst_pipeline_new(name)!
        gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))
        self.init(adopting: pipeline)
    }

    /// Pops the first message of `types` waiting on the bus, without blocking.
    public func popMessage(_ types: GstMessageType) -> Message? {
        guard let bus = gst_element_get_bus(pointer) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        return gst_bus_pop_filtered(bus, types).map { Message(adopting: $0) }
    }

    /// Waits up to `seconds` for a message of `types` on the bus.
    public func waitForMessage(_ types: GstMessageType, seconds: Double) -> Message? {
        guard let bus = gst_element_get_bus(pointer) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        return gst_bus_timed_pop_filtered(bus, GstClockTime(seconds * 1e9), types).map { Message(adopting: $0) }
    }

    /// The pipeline's running time now, in nanoseconds (0 before it runs).
    public var runningTime: GstClockTime {
        guard let clock = gst_element_get_clock(pointer) else { return 0 }
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        let now = gst_clock_get_time(clock)
        let base = gst_element_get_base_time(pointer)
        return now > base ? now - base : 0
    }
}
