import CGStreamer

/// Watches a pipeline's bus on the main context (`MainContext`). Removed when released.
public final class BusWatch {
    public typealias Handler = (UnsafeMutablePointer<GstMessage>) -> Void
    private var sourceID: guint = 0

    public init(_ pipeline: UnsafeMutablePointer<GstElement>, _ handler: @escaping Handler) {
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        let box = Unmanaged.passRetained(ClosureBox<Handler>(handler)).toOpaque()
        // gst_bus_add_watch attaches to the calling thread's thread-default
        // context: library code runs on the thread that iterates
        // `MainContext.context`, with that context pushed as its thread-default.
        sourceID = gst_bus_add_watch_full(bus, G_PRIORITY_DEFAULT, { _, message, data in
            if let message {
                Unmanaged<ClosureBox<Handler>>.fromOpaque(data!).takeUnretainedValue().value(message)
            }
            return 1
        }, box, { data in
            Unmanaged<ClosureBox<Handler>>.fromOpaque(data!).release()
        })
    }

    public func remove() {
        if sourceID != 0 { MainContext.remove(sourceID); sourceID = 0 }
    }

    deinit { remove() }
}
