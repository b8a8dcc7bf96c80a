import CGStreamer

/// A buffer that owns one reference: timestamps, size, its bytes read in place.
public final class Buffer: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstBuffer>

    public init(adopting pointer: UnsafeMutablePointer<GstBuffer>) { self.pointer = pointer }

    public convenience init(retaining pointer: UnsafeMutablePointer<GstBuffer>) {
        _ = gst_mini_object_ref(MiniObject.cast(pointer))
        self.init(adopting: pointer)
    }

    /// A new buffer holding a copy of `bytes`.
    public convenience init(copying bytes: [UInt8]) {
        let buffer = gst_buffer_new_allocate(nil, gsize(bytes.count), nil)!
        bytes.withUnsafeBytes { _ = gst_buffer_fill(buffer, 0, $0.baseAddress, gsize(bytes.count)) }
        self.init(adopting: buffer)
    }

    deinit { gst_mini_object_unref(MiniObject.cast(pointer)) }

    /// Presentation time in nanoseconds, nil when unset.
    public var pts: GstClockTime? {
        get { pointer.pointee.pts == GstClockTime.max ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? GstClockTime.max }
    }

    /// Duration in nanoseconds, nil when unset.
    public var duration: GstClockTime? {
        get { pointer.pointee.duration == GstClockTime.max ? nil : pointer.pointee.duration }
        set { pointer.pointee.duration = newValue ?? GstClockTime.max }
    }

    public var size: Int { Int(gst_buffer_get_size(pointer)) }

    /// Calls `body` with the buffer's bytes, mapped for reading (nil when it cannot be mapped).
    public func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        var map = GstMapInfo()
        guard gst_buffer_map(pointer, &map, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(pointer, &map) }
        return try body(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
    }

    /// A copy of the bytes.
    public var bytes: [UInt8] { withBytes { Array($0) } ?? [] }
}

/// A sample (a buffer with its caps, as appsink hands them out) that owns one reference.
public final class Sample: @unchecked Sendable {
    public let pointer: OpaquePointer

    public init(adopting pointer: OpaquePointer) { self.pointer = pointer }

    deinit { gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(pointer)) }

    public var buffer: Buffer? { gst_sample_get_buffer(pointer).map { Buffer(retaining: $0) } }
    public var caps: Caps? { gst_sample_get_caps(pointer).map { Caps(retaining: $0) } }

    /// The next sample of an appsink, waiting up to `seconds`; nil at the end or on time-out.
    public static func pull(from appsink: Element, seconds: Double) -> Sample? {
        let sink = UnsafeMutableRawPointer(appsink.pointer).assumingMemoryBound(to: GstAppSink.self)
        return gst_app_sink_try_pull_sample(sink, GstClockTime(seconds * 1e9)).map { Sample(adopting: $0) }
    }
}

/// A bus message that owns one reference (messages popped off a bus).
public final class Message: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstMessage>

    public init(adopting pointer: UnsafeMutablePointer<GstMessage>) { self.pointer = pointer }

    deinit { gst_mini_object_unref(MiniObject.cast(pointer)) }

    public var type: GstMessageType { pointer.pointee.type }

    /// The message's structure, borrowed (nil for messages without one).
    public var structure: UnsafePointer<GstStructure>? { gst_message_get_structure(pointer) }

    /// The name of the object that posted it.
    public var sourceName: String? { pointer.pointee.src.map { Gst.name($0) } }
}
