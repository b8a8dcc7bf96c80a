import C1nkGLib
import C1nkPipeline
import C1nkProbes
import CDisplayInput
import CGStreamer
import Foundation

/// The wall display's one pipeline, alive as long as the process: the screen
/// never goes black between calls and a kmssink sets its mode once.
///
///     appsrc (the call's video, from c1nkdisplayinput) ─── sink_0 ─┐
///     appsrc ! videoconvert ! imagefreeze (base, panel) ── sink_1 ─┴─ compositor (I420, WxH, 30 fps, latency 1 frame)
///       ! gdkpixbufoverlay (pulse) ! gdkpixbufoverlay (pulse)
///           └ (its src pad) PictureBlend: the drawing over video, in tight rectangles
///       ! queue ! videoconvert ! {sink}
///
/// Each call's pipeline ends in `c1nkdisplayinput channel=…` (`callSink`,
/// CDisplayInput), which hands each decoded frame to the `display-video`
/// appsrc, so the call's video joins when the call starts and leaves when it
/// ends without touching this pipeline. On its way in, each frame is stamped
/// for the compositor's next output: the compositor, which waits for every
/// pad (up to its one frame of latency), composes as soon as the frame is
/// there, not at its own rate (docs/pipelines.md). Without a call it
/// composes at its frame rate on its deadlines. The video stays in I420 (no
/// conversion to RGB per frame); Swift pushes a picture per state change, converted once;
/// the drawing is blended only in its own rectangles, by a C pad probe, and
/// the pulse is animated by GStreamer controllers on two overlays, per frame
/// in native code.
///
/// Every element that runs per frame is named `display-…`, so its streaming
/// threads are too (`display-mix:src`, `display-queue:s`…): the benchmark
/// adds up their CPU time as the display's cost.
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

    private let pipeline: OwnedPipeline
    private let mixer: UnsafeMutablePointer<GstElement>
    /// The compositor's output: what a still screen blocks.
    let mixerOutput: UnsafeMutablePointer<GstPad>
    private var pads: [Layer: UnsafeMutablePointer<GstPad>] = [:]
    private var base: UnsafeMutablePointer<GstElement>
    private var overlays: [Layer: UnsafeMutablePointer<GstElement>] = [:]
    private let drawing = PictureBlend()
    private var pulse: PulseAnimation?
    private var stopped = false
    private let log = Log.media
    /// The name under which calls send this display their video (`callSink`).
    private let channel: String
    /// Numbers each display's channel; the main context only.
    nonisolated(unsafe) private static var channels = 0
    /// How long the video pad shows a call's last frame once frames stop
    /// coming (then the background, black, shows through).
    static let lastFrameKept: GstClockTime = 1_000_000_000

    enum Layer: Int, CaseIterable {
        case video = 0, base, pulseA, pulseB
        var name: String { ["video", "base", "pulse-a", "pulse-b"][rawValue] }
        static let overlaid: [Layer] = [.pulseA, .pulseB]
    }

    /// At most this many rectangles of drawing over video (overlapping ones
    /// merge; then the cheapest merges until so few).
    static let drawingRectangles = 12

    /// Builds and starts the display on `sink` (an element name or a bin
    /// description, as `--sink`).
    /// `renderImmediately` (the default, as for a call's sink): the sink shows
    /// each display frame as soon as it is composed (`sync=false`), unless the
    /// `sink` description sets `sync` itself.
    public init(sink: String, width: Int, height: Int, framesPerSecond: Int = 30, renderImmediately: Bool = true) throws {
        GStreamer.initialize()
        for (element, package) in [("compositor", "gstreamer1.0-plugins-base"), ("appsrc", "gstreamer1.0-plugins-base"),
                                   ("imagefreeze", "gstreamer1.0-plugins-good"), ("gdkpixbufoverlay", "gstreamer1.0-plugins-good")]
        where !GStreamer.hasElement(element) {
            throw MediaError.missingElement(element, package: package)
        }
        self.width = max(16, width) & ~1
        self.height = max(16, height) & ~1
        self.framesPerSecond = max(1, framesPerSecond)
        Self.channels += 1
        channel = "c1nk-display-\(getpid())-\(Self.channels)"
        c1nk_display_input_register()
        callSink = "c1nkdisplayinput channel=\(channel)"
        let frame = GstClockTime(1_000_000_000 / self.framesPerSecond)
        let overlays = Layer.overlaid.map { "gdkpixbufoverlay name=display-\($0.name)" }.joined(separator: " ! ")
        let description = """
        compositor name=display-mix background=black latency=\(frame) ! video/x-raw,format=I420,colorimetry=bt709,width=\(self.width),height=\(self.height),framerate=\(self.framesPerSecond)/1
          ! \(overlays) ! queue name=display-queue max-size-buffers=2 leaky=downstream ! videoconvert ! \(sink)
        appsrc name=display-video is-live=true format=time max-buffers=1 leaky-type=downstream ! display-mix.sink_0
        appsrc name=display-base is-live=true format=time do-timestamp=true ! videoconvert ! video/x-raw,format=I420,colorimetry=bt709
          ! imagefreeze name=display-freeze allow-replace=true ! display-mix.sink_1
        """
        let bin = try PipelineBin.make(description, name: "display")
        pipeline = OwnedPipeline(named: "c1nk-display")
        gst_bin_add(pipeline.bin, bin)
        gst_object_unref(UnsafeMutableRawPointer(bin)) // the pipeline holds it now
        mixer = Gst.find("display-mix", in: pipeline.element)!
        mixerOutput = gst_element_get_static_pad(mixer, "src")!
        base = Gst.find("display-base", in: pipeline.element)!
        for layer in [Layer.video, .base] {
            let pad = gst_element_get_static_pad(mixer, "sink_\(layer.rawValue)")!
            pads[layer] = pad
            let object = UnsafeMutableRawPointer(pad)
            ObjectProperty.set(object, "zorder", "\(layer.rawValue)")
            ObjectProperty.set(object, "alpha", "0")
            ObjectProperty.set(object, "width", "\(self.width)")
            ObjectProperty.set(object, "height", "\(self.height)")
            if layer == .video {
                ObjectProperty.set(object, "sizing-policy", "keep-aspect-ratio")
                ObjectProperty.set(object, "max-last-buffer-repeat", "\(Self.lastFrameKept)")
            }
        }
        if let video = Gst.find("display-video", in: pipeline.element) {
            c1nk_display_input_open(channel, video, mixer, frame)
            gst_object_unref(UnsafeMutableRawPointer(video))
        }
        for layer in Layer.overlaid { self.overlays[layer] = Gst.find("display-\(layer.name)", in: pipeline.element) }
        for layer in Layer.overlaid { setPixbuf(layer, nil) }
        let lastOverlay = gst_element_get_static_pad(self.overlays[.pulseB]!, "src")!
        drawing.attach(to: lastOverlay)
        gst_object_unref(UnsafeMutableRawPointer(lastOverlay))
        if renderImmediately && !sink.contains("sync=") {
            for element in elements() where ObjectProperty.has(UnsafeMutableRawPointer(element), "sync") {
                ObjectProperty.set(UnsafeMutableRawPointer(element), "sync", "false")
            }
        }
        watchNavigation()
        pipeline.watchBus { [weak self] message in self?.busMessage(message) }
        if !pipeline.start() {
            let reason = pipeline.takeError() ?? "it failed to start"
            stop()
            throw MediaError.badConfiguration("the display '\(sink)' cannot start: \(reason). " + SinkCheck.alternatives("video", besides: sink))
        }
    }

    deinit { stop() }

    public func stop() {
        guard !stopped else { return }
        stopped = true
        c1nk_display_input_close(channel)
        pipeline.release(detach: {
            pulse = nil
            pauseTimer = nil
        }, afterNull: {
            pads.values.forEach { gst_object_unref(UnsafeMutableRawPointer($0)) }
            overlays.values.forEach { gst_object_unref(UnsafeMutableRawPointer($0)) }
            gst_object_unref(UnsafeMutableRawPointer(base))
            gst_object_unref(UnsafeMutableRawPointer(mixerOutput))
            gst_object_unref(UnsafeMutableRawPointer(mixer))
        })
    }

    // MARK: - Showing a layout

    /// Shows a painted layout: the base and overlay pictures, the door's
    /// video behind them when the layout wants it, and the pulse.
    public func show(_ layout: ScreenLayout, layers: ScreenPainter.Layers) {
        guard !stopped else { return }
        resume()
        pushBase(layers.base)
        switch layout.background {
        case .panel:
            setAlpha(.video, 0)
            setAlpha(.base, 1)
        case .video(let veil):
            setAlpha(.video, 1)
            setAlpha(.base, veil)
        }
        drawing.show(layers.overlay.map { OverlayBands.cuts($0, layout: layout, limit: Self.drawingRectangles) } ?? [])
        showPulse(layout.pulse)
        // A still screen (home, the end screens, "Bez pripojenia") needs no
        // frames once it is up: the pipeline pauses and the sink keeps showing
        // its last frame, until the next change (the clock, a ring).
        let still = layout.background == .panel && !(layout.pulse?.animated ?? false)
        pauseTimer = still ? GLibTimer(after: Self.stillAfter) { [weak self] in self?.pause() } : nil
    }

    /// How long a still screen keeps running before the pipeline pauses:
    /// long enough for the new picture to reach the sink.
    /// Set before a display starts (tests shorten it), then only read on the main context.
    nonisolated(unsafe) public static var stillAfter = 0.6
    /// Whether the pipeline is paused on a still screen.
    public private(set) var isPaused = false
    private var pauseTimer: GLibTimer?
    /// The probe that holds the compositor's output while the screen is still.
    private var stillBlock: gulong = 0

    /// Pauses the pipeline and blocks the compositor's output: a live
    /// compositor goes on composing at its frame rate in PAUSED (its
    /// deadlines follow the clock, which runs on), a frame nobody shows
    /// every 33 ms. Blocked, its thread sleeps in the push; the pipeline's
    /// pause keeps the running time, so nothing is late when it resumes.
    private func pause() {
        guard !stopped, !isPaused else { return }
        isPaused = true
        stillBlock = PadProbe.add(mixerOutput, GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM) { _ in GST_PAD_PROBE_OK }
        pipeline.setState(GST_STATE_PAUSED)
    }

    private func resume() {
        pauseTimer = nil
        guard !stopped, isPaused else { return }
        isPaused = false
        pipeline.setState(GST_STATE_PLAYING)
        gst_pad_remove_probe(mixerOutput, stillBlock)
        stillBlock = 0
    }

    private var pulseShown: ScreenLayout.Pulse?

    private func showPulse(_ spec: ScreenLayout.Pulse?) {
        guard spec != pulseShown else { return }
        pulseShown = spec
        pulse = nil
        guard let spec else {
            setPixbuf(.pulseA, nil)
            setPixbuf(.pulseB, nil)
            return
        }
        let ring = OverlayBands.whole(ScreenPainter.pulseRing(diameter: Int(spec.toDiameter.rounded())))
        setPixbuf(.pulseA, ring)
        setPixbuf(.pulseB, ring)
        if spec.animated {
            let running = gst_element_get_current_running_time(mixer)
            let now = running == GstClockTime.max ? 0 : Double(running) / 1_000_000_000
            pulse = PulseAnimation(elements: [overlays[.pulseA]!, overlays[.pulseB]!], spec: spec, now: now)
        } else {
            // --reduce-motion: one static circle between the two sizes.
            let diameter = Int(((spec.fromDiameter + spec.toDiameter) / 2).rounded())
            let object = UnsafeMutableRawPointer(overlays[.pulseA]!)
            ObjectProperty.set(object, "overlay-width", "\(diameter)")
            ObjectProperty.set(object, "overlay-height", "\(diameter)")
            ObjectProperty.set(object, "offset-x", "\(max(0, Int(spec.centerX) - diameter / 2))")
            ObjectProperty.set(object, "offset-y", "\(max(0, Int(spec.centerY) - diameter / 2))")
            ObjectProperty.set(object, "alpha", "0.5")
            setPixbuf(.pulseB, nil)
        }
    }

    private func setAlpha(_ layer: Layer, _ alpha: Double) {
        ObjectProperty.set(UnsafeMutableRawPointer(pads[layer]!), "alpha", String(format: "%.3f", alpha))
    }

    /// Hands the base picture to its `imagefreeze` (through one conversion to
    /// I420), which repeats it at the display's frame rate until the next one.
    private func pushBase(_ picture: Picture) {
        let appsrc = UnsafeMutableRawPointer(base).assumingMemoryBound(to: GstAppSrc.self)
        let caps = gst_caps_from_string(picture.caps)
        gst_app_src_set_caps(appsrc, caps)
        gst_caps_unref(caps)
        let buffer = picture.bytes.withUnsafeBytes { gst_buffer_new_memdup($0.baseAddress, gsize($0.count)) }
        gst_app_src_push_buffer(appsrc, buffer)
    }

    /// A single transparent pixel: what a hidden overlay holds (an overlay
    /// keeps its last picture when the pixbuf is unset). Hidden, its alpha
    /// is 0 as well, and it blends nothing at all (a frame mapped and let
    /// go: two overlays blending a transparent pixel cost 0.4–0.6 % of a
    /// core at 1280x800, 30 fps, measured with gst-launch).
    private static let nothing = OverlayBands.Band(x: 0, y: 0, width: 1, height: 1, rgba: [0, 0, 0, 0])

    /// Shows a transparent picture on an overlay element; nil hides it.
    private func setPixbuf(_ layer: Layer, _ shown: OverlayBands.Band?) {
        let element = UnsafeMutableRawPointer(overlays[layer]!)
        let picture = shown ?? Self.nothing
        if shown == nil {
            for property in ["offset-x", "offset-y", "overlay-width", "overlay-height"] { ObjectProperty.set(element, property, "0") }
        }
        let bytes = picture.rgba.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        let pixbuf = gdk_pixbuf_new_from_bytes(bytes, GDK_COLORSPACE_RGB, 1, 8, Int32(picture.width), Int32(picture.height), Int32(picture.width * 4))
        g_bytes_unref(bytes)
        c1nk_object_set_pointer(element, "pixbuf", UnsafeMutableRawPointer(pixbuf))
        g_object_unref(UnsafeMutableRawPointer(pixbuf))
        ObjectProperty.set(element, "alpha", shown == nil ? "0" : "1")
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
        elements().filter { ObjectProperty.has(UnsafeMutableRawPointer($0), "last-sample") }
    }

    /// Every element of the pipeline, recursively (references released).
    private func elements() -> [UnsafeMutablePointer<GstElement>] { Gst.elements(of: pipeline.element) }

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
            pipeline.recalculateLatency()
        default:
            break
        }
    }
}
