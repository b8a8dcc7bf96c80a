import CGStreamer
import Foundation

/// The wall display's one pipeline, alive as long as the process: the screen
/// never goes black between calls and a kmssink sets its mode once.
///
///     intervideosrc (the call's video)   ─ sink_0 ─┐
///     appsrc ! imagefreeze (base, panel) ─ sink_1 ─┤
///     appsrc ! imagefreeze (pulse ring)  ─ sink_2 ─┼─ compositor ! video/x-raw,WxH,30 fps ! {sink}
///     appsrc ! imagefreeze (pulse ring)  ─ sink_3 ─┤
///     appsrc ! imagefreeze (overlay)     ─ sink_4 ─┘
///
/// Each call's pipeline ends in `intervideosink channel=…` (`callSink`), so
/// the call's video joins when the call starts and leaves when it ends
/// without touching this pipeline. Swift pushes a picture per state change;
/// the compositor blends, and the pulse is animated by GStreamer controllers
/// on the compositor pads, both per frame in native code.
public final class DisplayPipeline {
    public let width: Int
    public let height: Int
    public let framesPerSecond: Int
    /// Where a call sends its video: the `{sink}` of the call's pipeline.
    public let callSink: String
    /// A touch, click or key from the sink (GstNavigation), on the main context.
    public var onNavigation: ((NavigationInput) -> Void)?
    /// A pipeline error (the sink went away…), on the main context.
    public var onError: ((String) -> Void)?

    private let pipeline: UnsafeMutablePointer<GstElement>
    private let mixer: UnsafeMutablePointer<GstElement>
    private var pads: [Layer: UnsafeMutablePointer<GstPad>] = [:]
    private var sources: [Layer: UnsafeMutablePointer<GstElement>] = [:]
    private var busWatch: BusWatch?
    private var pulse: PulseAnimation?
    private var stopped = false
    private let log = Log.media
    private static var channels = 0

    enum Layer: Int, CaseIterable {
        case video = 0, base, pulseA, pulseB, overlay
        var name: String { ["video", "base", "pulse-a", "pulse-b", "overlay"][rawValue] }
    }

    /// Builds and starts the display on `sink` (an element name or a bin
    /// description, as `--sink`).
    public init(sink: String, width: Int, height: Int, framesPerSecond: Int = 30) throws {
        GStreamer.initialize()
        for (element, package) in [("compositor", "gstreamer1.0-plugins-base"), ("intervideosrc", "gstreamer1.0-plugins-bad"),
                                   ("imagefreeze", "gstreamer1.0-plugins-good")] where !GStreamer.hasElement(element) {
            throw MediaError.missingElement(element, package: package)
        }
        self.width = max(16, width)
        self.height = max(16, height)
        self.framesPerSecond = max(1, framesPerSecond)
        Self.channels += 1
        let channel = "c1nk-display-\(getpid())-\(Self.channels)"
        callSink = "intervideosink channel=\(channel)"
        let layers = Layer.allCases.dropFirst().map { layer in
            "appsrc name=display-\(layer.name) is-live=true format=time do-timestamp=true ! imagefreeze allow-replace=true is-live=true ! mix.sink_\(layer.rawValue)"
        }
        let description = """
        compositor name=mix background=black ! video/x-raw,width=\(self.width),height=\(self.height),framerate=\(self.framesPerSecond)/1 ! queue max-size-buffers=2 leaky=downstream ! \(sink)
        intervideosrc name=display-video channel=\(channel) ! mix.sink_0
        \(layers.joined(separator: "\n"))
        """
        let bin = try PipelineBin.make(description, name: "display")
        pipeline = gst_pipeline_new("c1nk-display")
        gst_bin_add(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), bin)
        gst_object_unref(UnsafeMutableRawPointer(bin)) // the pipeline holds it now
        mixer = Gst.find("mix", in: pipeline)!
        for layer in Layer.allCases {
            let pad = gst_element_get_static_pad(mixer, "sink_\(layer.rawValue)")!
            pads[layer] = pad
            let object = UnsafeMutableRawPointer(pad)
            ObjectProperty.set(object, "zorder", "\(layer.rawValue)")
            ObjectProperty.set(object, "alpha", "0")
            if layer != .pulseA && layer != .pulseB {
                ObjectProperty.set(object, "width", "\(self.width)")
                ObjectProperty.set(object, "height", "\(self.height)")
            }
            if layer == .video { ObjectProperty.set(object, "sizing-policy", "keep-aspect-ratio") }
            if layer != .video { sources[layer] = Gst.find("display-\(layer.name)", in: pipeline) }
        }
        // Every layer starts with a picture: the compositor waits for data
        // on each pad before its first frame.
        let clear = Picture(width: 16, height: 16, hasAlpha: true, bytes: [UInt8](repeating: 0, count: 16 * 16 * 4))
        for layer in [Layer.pulseA, .pulseB, .overlay] { push(clear, to: layer) }
        watchNavigation()
        busWatch = BusWatch(pipeline) { [weak self] message in self?.busMessage(message) }
        if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            let reason = firstError() ?? "it failed to start"
            stop()
            throw MediaError.badConfiguration("the display '\(sink)' cannot start: \(reason). " + SinkCheck.alternatives("video", besides: sink))
        }
    }

    deinit { stop() }

    public func stop() {
        guard !stopped else { return }
        stopped = true
        pulse = nil
        busWatch?.remove()
        gst_element_set_state(pipeline, GST_STATE_NULL)
        pads.values.forEach { gst_object_unref(UnsafeMutableRawPointer($0)) }
        sources.values.forEach { gst_object_unref(UnsafeMutableRawPointer($0)) }
        gst_object_unref(UnsafeMutableRawPointer(mixer))
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }

    // MARK: - Showing a layout

    /// Shows a painted layout: the base and overlay pictures, the door's
    /// video behind them when the layout wants it, and the pulse.
    public func show(_ layout: ScreenLayout, layers: ScreenPainter.Layers) {
        guard !stopped else { return }
        push(layers.base, to: .base)
        switch layout.background {
        case .panel:
            setAlpha(.video, 0)
            setAlpha(.base, 1)
        case .video(let veil):
            setAlpha(.video, 1)
            setAlpha(.base, veil)
        }
        if let overlay = layers.overlay {
            push(overlay, to: .overlay)
            setAlpha(.overlay, 1)
        } else {
            setAlpha(.overlay, 0)
        }
        showPulse(layout.pulse)
    }

    private var pulseShown: ScreenLayout.Pulse?

    private func showPulse(_ spec: ScreenLayout.Pulse?) {
        guard spec != pulseShown else { return }
        pulseShown = spec
        pulse = nil
        guard let spec else {
            setAlpha(.pulseA, 0)
            setAlpha(.pulseB, 0)
            return
        }
        let ring = ScreenPainter.pulseRing(diameter: Int(spec.toDiameter.rounded()))
        push(ring, to: .pulseA)
        push(ring, to: .pulseB)
        if spec.animated {
            let running = gst_element_get_current_running_time(mixer)
            let now = running == GstClockTime.max ? 0 : Double(running) / 1_000_000_000
            pulse = PulseAnimation(pads: [pads[.pulseA]!, pads[.pulseB]!], spec: spec, now: now)
        } else {
            // --reduce-motion: one static circle between the two sizes.
            let diameter = Int(((spec.fromDiameter + spec.toDiameter) / 2).rounded())
            place(.pulseA, centerX: spec.centerX, centerY: spec.centerY, diameter: diameter, alpha: 0.5)
            setAlpha(.pulseB, 0)
        }
    }

    private func place(_ layer: Layer, centerX: Double, centerY: Double, diameter: Int, alpha: Double) {
        let object = UnsafeMutableRawPointer(pads[layer]!)
        ObjectProperty.set(object, "width", "\(diameter)")
        ObjectProperty.set(object, "height", "\(diameter)")
        ObjectProperty.set(object, "xpos", "\(Int(centerX) - diameter / 2)")
        ObjectProperty.set(object, "ypos", "\(Int(centerY) - diameter / 2)")
        setAlpha(layer, alpha)
    }

    private func setAlpha(_ layer: Layer, _ alpha: Double) {
        ObjectProperty.set(UnsafeMutableRawPointer(pads[layer]!), "alpha", String(format: "%.3f", alpha))
    }

    /// Hands a still picture to a layer's `imagefreeze`, which repeats it at
    /// the display's frame rate until the next one.
    private func push(_ picture: Picture, to layer: Layer) {
        guard let source = sources[layer] else { return }
        let appsrc = UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstAppSrc.self)
        let caps = gst_caps_from_string(picture.caps)
        gst_app_src_set_caps(appsrc, caps)
        gst_caps_unref(caps)
        let buffer = picture.bytes.withUnsafeBytes { gst_buffer_new_memdup($0.baseAddress, gsize($0.count)) }
        gst_app_src_push_buffer(appsrc, buffer)
    }

    // MARK: - Snapshots

    /// The last frame the sink showed, converted to `caps` (e.g. "image/png"
    /// or "video/x-raw,format=RGB"); nil when the sink keeps none.
    public func lastFrame(as caps: String) -> Data? {
        for sink in videoSinks() {
            guard let raw = c1nk_object_get_object(UnsafeMutableRawPointer(sink), "last-sample") else { continue }
            let sample = OpaquePointer(raw)
            defer { gst_mini_object_unref(raw.assumingMemoryBound(to: GstMiniObject.self)) }
            let target = gst_caps_from_string(caps)
            defer { gst_caps_unref(target) }
            var error: UnsafeMutablePointer<GError>?
            guard let converted = gst_video_convert_sample(sample, target, 5 * 1_000_000_000, &error) else {
                log.warning("display snapshot: \(GLibError.take(error).message)")
                return nil
            }
            defer { gst_mini_object_unref(UnsafeMutableRawPointer(converted).assumingMemoryBound(to: GstMiniObject.self)) }
            guard let buffer = gst_sample_get_buffer(converted) else { return nil }
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return nil }
            defer { gst_buffer_unmap(buffer, &map) }
            return Data(bytes: map.data, count: Int(map.size))
        }
        return nil
    }

    /// The display's element that sinks the frames (for tests that send
    /// navigation events the way a window sink does).
    public var sinkElement: UnsafeMutablePointer<GstElement>? { videoSinks().first }

    /// The elements inside the `{sink}` description that render frames.
    private func videoSinks() -> [UnsafeMutablePointer<GstElement>] {
        var result: [UnsafeMutablePointer<GstElement>] = []
        guard let iterator = gst_bin_iterate_recurse(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)) else { return [] }
        defer { gst_iterator_free(iterator) }
        var value = GValue()
        while gst_iterator_next(iterator, &value) == GST_ITERATOR_OK {
            if let object = g_value_get_object(&value), ObjectProperty.has(object, "last-sample") {
                result.append(object.assumingMemoryBound(to: GstElement.self))
            }
            g_value_reset(&value)
        }
        g_value_unset(&value)
        return result
    }

    // MARK: - Bus and navigation

    private func watchNavigation() {
        guard let source = gst_element_get_static_pad(mixer, "src") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(source)) }
        // Upstream events only (a click, a key): never per frame.
        PadProbe.add(source, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { [weak self] info in
            guard let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
                  event.pointee.type == GST_EVENT_NAVIGATION,
                  let input = NavigationInput(event: event) else { return GST_PAD_PROBE_OK }
            MainContext.post { self?.onNavigation?(input) }
            return GST_PAD_PROBE_OK
        }
    }

    private func busMessage(_ message: UnsafeMutablePointer<GstMessage>) {
        switch message.pointee.type {
        case GST_MESSAGE_ERROR:
            let text = PipelineMessage.describeError(message)
            log.warning("display: \(text)")
            onError?(text)
        case GST_MESSAGE_LATENCY:
            gst_bin_recalculate_latency(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self))
        default:
            break
        }
    }

    private func firstError() -> String? {
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        guard let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self)) }
        return PipelineMessage.describeError(message)
    }
}
