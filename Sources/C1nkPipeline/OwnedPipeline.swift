import C1nkGLib
import CGStreamer

/// A pipeline and its lifecycle, owned once: made from a description or
/// empty, started, its bus watched on the main context, and released
/// (bus watch removed, set to NULL, unreferenced) exactly once, whoever asks
/// first — the owner's `stop()`, its `deinit`, or this object's own `deinit`.
///
/// The owner keeps the order of its own teardown: `release` runs the
/// owner's steps around the fixed ones (see `release(detach:afterNull:)`).
/// Main context only.
public final class OwnedPipeline {
    public let element: UnsafeMutablePointer<GstElement>
    private var busWatch: BusWatch?
    /// Whether `release` ran: the element must not be touched any more.
    public private(set) var isReleased = false

    /// Takes the caller's (non-floating) reference to `element`.
    public init(adopting element: UnsafeMutablePointer<GstElement>) {
        self.element = element
    }

    /// A new, empty pipeline called `name`.
    public convenience init(named name: String) {
        let pipeline = gst_pipeline_new(name)!
        gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))
        self.init(adopting: pipeline)
    }

    /// The pipeline of a description with `values` filled in (errors name the
    /// file, line and element), called `name`.
    public convenience init(_ description: PipelineDescription, values: [String: String], name: String) throws {
        self.init(adopting: try description.build(values))
        gst_object_set_name(UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self), name)
    }

    deinit { release() }

    public var bin: UnsafeMutablePointer<GstBin> { UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstBin.self) }

    /// The pipeline as an owning `Bin` (a reference of its own).
    public var pipeline: Bin { Bin(retaining: element) }

    /// Watches the bus on the main context until `release` (one watch; a
    /// second call replaces the first).
    public func watchBus(_ handler: @escaping BusWatch.Handler) {
        busWatch?.remove()
        busWatch = BusWatch(element, handler)
    }

    /// Sets PLAYING; false when the state change failed at once.
    @discardableResult
    public func start() -> Bool { setState(GST_STATE_PLAYING) }

    /// Sets a state; false when the change failed at once.
    @discardableResult
    public func setState(_ state: GstState) -> Bool {
        guard !isReleased else { return false }
        return gst_element_set_state(element, state) != GST_STATE_CHANGE_FAILURE
    }

    /// Takes the first error waiting on the bus (a failed start leaves it
    /// there: the watch has not run yet), described for the user.
    public func takeError() -> String? {
        guard !isReleased, let bus = gst_element_get_bus(element) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        guard let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self)) }
        return PipelineMessage.describeError(message)
    }

    /// Asks the pipeline's sinks to take the latency again (after a latency message).
    public func recalculateLatency() {
        guard !isReleased else { return }
        gst_bin_recalculate_latency(bin)
    }

    /// Releases the pipeline, once; a later call does nothing. In order:
    /// `detach` (the owner's signals and probes), the bus watch removed, the
    /// pipeline set to NULL, `afterNull` (what the owner held inside it), and
    /// the pipeline's reference dropped.
    public func release(detach: () -> Void = {}, afterNull: () -> Void = {}) {
        guard !isReleased else { return }
        isReleased = true
        detach()
        busWatch?.remove()
        busWatch = nil
        gst_element_set_state(element, GST_STATE_NULL)
        afterNull()
        gst_object_unref(UnsafeMutableRawPointer(element))
    }
}
