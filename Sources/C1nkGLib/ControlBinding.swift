import CGStreamer

/// A linear interpolation control source (GstController): values at points
/// of stream time, interpolated between them. Owns one reference.
public final class InterpolationControlSource: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstControlSource>

    public init() {
        pointer = gst_interpolation_control_source_new()! // not floating: ours
        ObjectProperty.set(UnsafeMutableRawPointer(pointer), "mode", "linear")
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// Sets the value at `time` (nanoseconds of stream time).
    public func set(_ value: Double, at time: GstClockTime) {
        _ = gst_timed_value_control_source_set(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstTimedValueControlSource.self),
                                               time, value)
    }

    /// The value the source gives at `seconds` of stream time (0 where it has none).
    public func value(atSeconds seconds: Double) -> Double {
        var value = 0.0
        _ = gst_control_source_get_value(pointer, GstClockTime(max(0, seconds) * 1_000_000_000), &value)
        return value
    }
}

/// A property of an element driven by a control source: the element reads
/// the source's value for each buffer's time, in native code. Bound when
/// made; unbound, and its reference dropped, when released.
public final class ControlBinding: @unchecked Sendable {
    private let element: Element
    private let binding: UnsafeMutablePointer<GstControlBinding>

    /// Binds `property` of `element` to `source`'s values as they are (absolute).
    public init(_ element: Element, property: String, source: InterpolationControlSource) {
        let object = UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GstObject.self)
        let made = gst_direct_control_binding_new_absolute(object, property, source.pointer)! // floating; holds the source
        gst_object_ref(UnsafeMutableRawPointer(made)) // ours, besides the element's
        gst_object_add_control_binding(object, made) // the element sinks the floating one
        self.element = element
        binding = made
    }

    deinit {
        gst_object_remove_control_binding(UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GstObject.self), binding)
        gst_object_unref(UnsafeMutableRawPointer(binding))
    }
}
