import C1nkGLib
import CGStreamer
import FoundationEssentials

/// The measurement probes of `--measure` and the benchmark. They sit on the
/// per-buffer path — and are the only Swift that does: each reads a clock
/// and stores a number under a lock; nothing else.
///
/// - decode latency: the video decoder's sink and src pads, matched by
///   timestamp (any element whose class says "Decoder/Video", also inside
///   `decodebin`);
/// - glass-to-glass: the door's `FrameStamp`, read at `video-out`.
public final class MeasurementProbes: @unchecked Sendable {
    private let lock = ThreadLock()
    private var arrivals: [GstClockTime: gint64] = [:]
    private var decodeLatencies: [Double] = []
    /// (monotonic µs, ms) pairs.
    private var glassToGlass: [(Int, Double)] = []
    private var framesDecoded = 0
    private var unreadableStamps = 0
    /// (monotonic µs, sequence number) of frames shown with a readable stamp.
    private var shown: [(Int, Int)] = []
    /// The same with each frame's age, for the figures (the first `frameLimit`).
    private var shownFrames: [ShownFrame] = []
    /// Ten minutes at 30 fps: what a `measurements` event carries frame by frame.
    public static let frameLimit = 18_000
    /// Keyframe requests sent to the door (set by the session).
    package var keyframeRequests: () -> Int = { 0 }
    private var signal: SignalConnection?

    public struct Summary: Equatable, Sendable {
        public var decode: LatencyStats
        public var glassToGlass: LatencyStats
        /// Glass-to-glass after the first two seconds of video, once the
        /// jitterbuffer has settled on the stream's timing.
        public var glassToGlassSteady: LatencyStats
        public var framesDecoded: Int
        public var unreadableStamps: Int
        /// Frames the video sink dropped as too late (sinks with `qos`), if it says.
        public var framesDroppedLate: Int?
        /// Frames shown intact (stamp readable, each a later frame than the
        /// one before) and the frames the door sent over the same span, by
        /// their sequence numbers; 0 when the door writes none.
        public var framesIntact = 0
        public var framesSent = 0
        /// The longest time between two intact frames shown.
        public var longestFreezeMs: Double = 0
        /// The same after the first 3 s shown (a congestion controller's start-up left out).
        public var longestFreezeAfterStartMs: Double = 0
        public var keyframeRequests = 0
        /// Set-up steps of the call in ms: offerToAnswer, answerToConnected, connectedToFirstFrame.
        public var setupMs: [String: Double] = [:]
        /// Each frame shown with a readable stamp and sequence number, in the
        /// order shown (the first `frameLimit`): what a benchmark needs to
        /// count against the frames the door drew and to take percentiles
        /// over frames of several calls.
        public var frames: [ShownFrame] = []
        /// When these figures were taken (monotonic ms).
        public var measuredAtMs = 0

        public var intactPercent: Double { framesSent > 0 ? Double(framesIntact) * 100 / Double(framesSent) : 0 }

        public var fields: [String: Any] {
            var fields: [String: Any] = ["decodeMs": decode.fields, "glassToGlassMs": glassToGlass.fields,
                                         "glassToGlassSteadyMs": glassToGlassSteady.fields,
                                         "framesDecoded": framesDecoded, "unreadableStamps": unreadableStamps]
            if let framesDroppedLate { fields["framesDroppedLate"] = framesDroppedLate }
            fields["framesIntact"] = framesIntact
            fields["framesSent"] = framesSent
            fields["longestFreezeMs"] = (longestFreezeMs * 10).rounded() / 10
            fields["longestFreezeAfterStartMs"] = (longestFreezeAfterStartMs * 10).rounded() / 10
            fields["keyframeRequests"] = keyframeRequests
            fields["setupMs"] = setupMs.mapValues { ($0 * 10).rounded() / 10 }
            fields["frames"] = ["sequence": frames.map(\.sequence), "shownAtMs": frames.map(\.shownAtMs), "ageMs": frames.map(\.ageMs)]
            fields["measuredAtMs"] = measuredAtMs
            return fields
        }
    }

    /// One frame shown: the door's sequence number, when (monotonic ms) and its stamp's age (ms).
    public struct ShownFrame: Equatable, Sendable {
        public var sequence: Int
        public var shownAtMs: Int
        public var ageMs: Int

        public init(sequence: Int, shownAtMs: Int, ageMs: Int) {
            self.sequence = sequence
            self.shownAtMs = shownAtMs
            self.ageMs = ageMs
        }
    }

    public init() {}

    /// Watches `pipeline` for video decoders as they are created and reads
    /// stamps at its `video-out`.
    public func attach(to pipeline: Bin) {
        signal = pipeline.connect("deep-element-added") { [weak self] (_: gpointer?, added: gpointer?) in
            guard let self, let added else { return }
            let element = Element(retaining: added.assumingMemoryBound(to: GstElement.self))
            if Self.isVideoDecoder(element.factory?.klass ?? "") { self.watchDecoder(element) }
        }
        if let output = pipeline.element(named: "video-out") {
            if let pad = output.staticPad("sink") { watchOutput(pad) }
            videoSink = output.staticPad("src")?.peer?.parent
        }
        // Decoders named in the description exist already.
        for name in ["video-decoder"] {
            if let decoder = pipeline.element(named: name) { watchDecoder(decoder) }
        }
    }

    /// The same for a pipeline held by pointer; prefer the `Bin` form.
    public func attach(to pipeline: UnsafeMutablePointer<GstElement>) { attach(to: Bin(sharing: pipeline)) }

    /// Whether a factory's class ("Codec/Decoder/Video") is a video decoder's.
    static func isVideoDecoder(_ klass: String) -> Bool { klass.contains("Decoder") && klass.contains("Video") }

    public func summary() -> Summary {
        let dropped = videoSink.flatMap { Self.droppedFrames(of: $0) }
        lock.lock()
        defer { lock.unlock() }
        let settled = (glassToGlass.first?.0 ?? 0) + 2_000_000
        var summary = Summary(decode: LatencyStats(decodeLatencies), glassToGlass: LatencyStats(glassToGlass.map(\.1)),
                              glassToGlassSteady: LatencyStats(glassToGlass.filter { $0.0 >= settled }.map(\.1)),
                              framesDecoded: framesDecoded, unreadableStamps: unreadableStamps, framesDroppedLate: dropped)
        let continuity = Self.continuity(shown)
        summary.framesIntact = continuity.intact
        summary.framesSent = continuity.sent
        summary.longestFreezeMs = continuity.longestFreezeMs
        let start = (shown.first?.0 ?? 0) + 3_000_000
        summary.longestFreezeAfterStartMs = Self.continuity(shown.filter { $0.0 >= start }).longestFreezeMs
        summary.keyframeRequests = keyframeRequests()
        summary.frames = shownFrames
        summary.measuredAtMs = Int(g_get_monotonic_time() / 1000)
        return summary
    }

    /// Intact frames among (time µs, sequence) in display order: a frame
    /// counts when it comes later in the door's sequence than the last
    /// counted one; the door sent every number from the first to the last.
    public static func continuity(_ shown: [(Int, Int)]) -> (intact: Int, sent: Int, longestFreezeMs: Double) {
        guard let first = shown.first else { return (0, 0, 0) }
        var intact = 1
        var last = first
        var longest = 0
        for frame in shown.dropFirst() where frame.1 > last.1 {
            intact += 1
            longest = max(longest, frame.0 - last.0)
            last = frame
        }
        return (intact, last.1 - first.1 + 1, Double(longest) / 1000)
    }

    /// The element after `video-out`: the video sink, whose `stats` count late frames.
    private var videoSink: Element?

    private static func droppedFrames(of sink: Element) -> Int? {
        guard sink.has(property: "stats"),
              let stats = c1nk_object_get_object(sink.object, "stats")?.assumingMemoryBound(to: GstStructure.self) else { return nil }
        defer { gst_structure_free(stats) }
        var dropped: guint64 = 0
        return gst_structure_get_uint64(stats, "dropped", &dropped) != 0 ? Int(dropped) : nil
    }

    private var watchedDecoders: Set<UnsafeMutablePointer<GstElement>> = []

    private func watchDecoder(_ decoder: Element) {
        lock.lock()
        let fresh = watchedDecoders.insert(decoder.pointer).inserted
        lock.unlock()
        guard fresh, let sink = decoder.staticPad("sink"), let source = decoder.staticPad("src") else { return }
        sink.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
            guard let self, let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
            let pts = buffer.pointee.pts
            guard pts != GstClockTime.max else { return GST_PAD_PROBE_OK }
            let now = g_get_monotonic_time()
            self.lock.lock()
            if self.arrivals.count > 256 { self.arrivals.removeAll(keepingCapacity: true) }
            self.arrivals[pts] = now
            self.lock.unlock()
            return GST_PAD_PROBE_OK
        }
        source.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
            guard let self, let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
            let now = g_get_monotonic_time()
            self.lock.lock()
            self.framesDecoded += 1
            if let arrived = self.arrivals.removeValue(forKey: buffer.pointee.pts) {
                self.decodeLatencies.append(Double(now - arrived) / 1000)
            }
            self.lock.unlock()
            return GST_PAD_PROBE_OK
        }
    }

    /// Formats whose first plane is plain 8-bit luma, where a stamp can be read.
    static let stampableFormats = [GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y42B]

    private func watchOutput(_ pad: Pad) {
        var width = 0
        var height = 0
        // The pointer, not the `Pad`: a probe that held its own pad would keep it alive forever.
        let padPointer = pad.pointer
        pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
            guard let self, let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
            if width == 0, let caps = gst_pad_get_current_caps(padPointer).map({ Caps(adopting: $0) }) {
                var video = GstVideoInfo()
                if gst_video_info_from_caps(&video, caps.pointer) != 0, Self.stampableFormats.contains(video.finfo.pointee.format) {
                    width = Int(video.width)
                    height = Int(video.height)
                } else {
                    width = -1 // not a format with a plain luma plane first
                }
            }
            let stamp = width > 0 ? FrameStamp.readBoth(buffer, width: width, height: height) : nil
            let age = stamp.flatMap { FrameStamp.age(of: $0.milliseconds) }
            let now = g_get_monotonic_time()
            self.lock.lock()
            if let age { self.glassToGlass.append((now, age)) } else { self.unreadableStamps += 1 }
            if let age, let sequence = stamp?.sequence {
                self.shown.append((now, sequence))
                if self.shownFrames.count < Self.frameLimit {
                    self.shownFrames.append(ShownFrame(sequence: sequence, shownAtMs: Int(now / 1000), ageMs: Int(age)))
                }
            }
            self.lock.unlock()
            return GST_PAD_PROBE_OK
        }
    }
}
