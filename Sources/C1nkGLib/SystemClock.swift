import CGStreamer

/// GStreamer's system clock (monotonic, shared by the process), one reference.
public final class SystemClock: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstClock>

    public init() { pointer = gst_system_clock_obtain() }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// The clock's time now, in nanoseconds.
    public var time: GstClockTime { gst_clock_get_time(pointer) }
}
