import CGStreamer

/// Watches a pipeline's bus on the main context. Removed when released.
public final class BusWatch {
    public typealias Handler = (UnsafeMutablePointer<GstMessage>) -> Void
    private var sourceID: guint = 0

    public init(_ pipeline: UnsafeMutablePointer<GstElement>, _ handler: @escaping Handler) {
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        let box = Unmanaged.passRetained(ClosureBox<Handler>(handler)).toOpaque()
        // gst_bus_add_watch attaches to the calling thread's default context:
        // the source is attached to the library's context instead.
        let source = gst_bus_create_watch(bus)!
        let dispatch: GstBusFunc = { _, message, data in
            if let message {
                Unmanaged<ClosureBox<Handler>>.fromOpaque(data!).takeUnretainedValue().value(message)
            }
            return 1
        }
        g_source_set_callback(source, unsafeBitCast(dispatch, to: GSourceFunc.self), box, { data in
            Unmanaged<ClosureBox<Handler>>.fromOpaque(data!).release()
        })
        sourceID = MainContext.attach(source)
    }

    public func remove() {
        if sourceID != 0 { MainContext.remove(sourceID); sourceID = 0 }
    }

    deinit { remove() }
}
