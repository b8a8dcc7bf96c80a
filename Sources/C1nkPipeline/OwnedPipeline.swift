import C1nkGLib
import CGStreamer

/// A pipeline and its lifecycle, owned once: made from a description, from
/// gst-launch text or empty, started, its bus watched on the main context,
/// and released (bus watch removed, set to NULL, its reference dropped)
/// exactly once, whoever asks first — the owner's `stop()`, its `deinit`,
/// or this object's own `deinit`.
///
/// The owner keeps the order of its own teardown: `release` runs the
/// owner's steps around the fixed ones (see `release(detach:afterNull:)`).
/// Main context only.
public final class OwnedPipeline {
    /// The pipeline's pointer, borrowed: valid until `release`.
    public let element: UnsafeMutablePointer<GstElement>
    /// The reference this object owns, dropped by `release`.
    private var owned: Pipeline?
    private var busWatch: BusWatch?
    /// Whether `release` ran: the element must not be touched any more.
    public private(set) var isReleased = false

    /// Takes over `pipeline` (the caller keeps no other use of it).
    public init(_ pipeline: Pipeline) {
        owned = pipeline
        element = pipeline.pointer
    }

    /// Takes the caller's (non-floating) reference to a pipeline element.
    public convenience init(adopting element: UnsafeMutablePointer<GstElement>) {
        self.init(Pipeline(adopting: element))
    }

    /// A new, empty pipeline called `name`.
    public convenience init(named name: String) {
        self.init(Pipeline(pipelineNamed: name))
    }

    /// The pipeline of a description with `values` filled in (errors name the
    /// file, line and element), called `name`.
    public convenience init(_ description: PipelineDescription, values: [String: String], name: String) throws {
        self.init(try description.makePipeline(values))
        pipeline.name = name
    }

    /// The pipeline of gst-launch text (no placeholders, no checks), called
    /// `name`; throws `MediaError.badDescription` when it does not parse.
    public convenience init(launching text: String, name: String) throws {
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        // The parser's result is floating: retaining sinks it.
        let parsed = gst_parse_launch(text, &error).map { Element(retaining: $0) }
        if let error { throw MediaError.badDescription(text, detail: GLibError.take(error).message) }
        guard let top = parsed else { throw MediaError.badDescription(text, detail: "empty description") }
        self.init(PipelineDescription.asPipeline(top))
        pipeline.name = name
    }

    deinit { release() }

    public var bin: UnsafeMutablePointer<GstBin> { PointerCast.cast(element, to: GstBin.self) }

    /// The pipeline as an owning `Pipeline` (this object's; until `release`).
    public var pipeline: Pipeline {
        guard let owned else { preconditionFailure("the pipeline \(Gst.name(element)) was released") }
        return owned
    }

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
    public func setState(_ state: GstState) -> Bool { owned?.setState(state) ?? false }

    /// Takes the first error waiting on the bus (a failed start leaves it
    /// there: the watch has not run yet), described for the user.
    public func takeError() -> String? {
        owned?.popMessage(GST_MESSAGE_ERROR).map(PipelineMessage.describeError)
    }

    /// Waits up to `seconds` for the end of the stream or an error (the
    /// error described for the user).
    public func waitForEnd(seconds: Double) -> PipelineEnd {
        let types = GstMessageType(GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        guard let message = owned?.waitForMessage(types, seconds: seconds) else { return .timedOut }
        return message.type == GST_MESSAGE_EOS ? .endOfStream : .error(PipelineMessage.describeError(message))
    }

    /// Takes every end-of-stream and error message waiting on the bus;
    /// whether there was one (the pipeline stopped, or never ran).
    public func takeEndMessages() -> Bool {
        let types = GstMessageType(GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        var ended = false
        while owned?.popMessage(types) != nil { ended = true }
        return ended
    }

    /// Whether any message waits on the bus (a failed start that posted nothing has none).
    public var hasPendingMessages: Bool { owned?.hasPendingMessages ?? false }

    /// Asks the pipeline's sinks to take the latency again (after a latency message).
    public func recalculateLatency() { owned?.recalculateLatency() }

    /// Releases the pipeline, once; a later call does nothing. In order:
    /// `detach` (the owner's signals and probes), the bus watch removed, the
    /// pipeline set to NULL, `afterNull` (what the owner held inside it), and
    /// the pipeline's reference dropped.
    public func release(detach: () -> Void = {}, afterNull: () -> Void = {}) {
        guard !isReleased else { return }
        isReleased = true
        Log.pipeline.debug("releasing \(Gst.name(element))")
        detach()
        busWatch?.remove()
        busWatch = nil
        owned?.setState(GST_STATE_NULL)
        afterNull()
        owned = nil
    }
}

/// How a pipeline's run ended (`OwnedPipeline.waitForEnd`).
public enum PipelineEnd: Equatable, Sendable {
    case endOfStream
    case error(String)
    case timedOut
}
