import CGStreamer

extension Pipeline {
    /// Whether any message waits on the bus (of any type), without taking it.
    public var hasPendingMessages: Bool {
        guard let bus = gst_element_get_bus(pointer) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        return gst_bus_have_pending(bus) != 0
    }
}
