import C1nkGLib
import C1nkMedia
import C1nkPipeline
import C1nkProbes
import CDisplayInput
import CGStreamer
import FoundationEssentials
import Glibc

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
/// Built, it waits in PAUSED for its first picture (`show`); `start` then
/// runs it, so its first frame is that picture. Main context only.
final class DisplayPipeline {
    let width: Int
    let height: Int
    let framesPerSecond: Int
    /// Where a call sends its video: the `{sink}` of the call's pipeline.
    let callSink: String
    /// A touch, click or key from the sink (GstNavigation), on the main context.
    var onNavigation: ((NavigationInput) -> Void)?
    /// A pipeline error (the sink went away…), on the main context.
    var onError: ((String) -> Void)?

    private let description: DisplayPipelineDescription
    private let pipeline: OwnedPipeline
    /// The elements that show pictures; nil once stopped (released after NULL).
    private var mixer: DisplayMixer?
    private let drawing = PictureBlend()
    private var pulse: PulseAnimation?
    private var pulseShown: ScreenLayout.Pulse?
    private let clock: any TimerClock
    private let log = Log.display
    /// The name under which calls send this display their video (`callSink`).
    private let channel: String
    /// Numbers each display's channel; the main context only.
    nonisolated(unsafe) private static var channels = 0

    /// At most this many rectangles of drawing over video (overlapping ones
    /// merge; then the cheapest merges until so few).
    static let drawingRectangles = 12

    /// How long a still screen keeps running before the pipeline pauses:
    /// long enough for the new picture to reach the sink.
    static let stillAfter = 0.6
    /// Whether the pipeline is paused on a still screen.
    private(set) var isPaused = false
    private var pauseTimer: (any ScheduledTimer)?
    /// The probe that holds the compositor's output while the screen is still.
    private var stillBlock: gulong = 0

    /// Builds the display on `sink` (an element name or a bin description,
    /// as `--sink`) and readies it for its first picture.
    /// `renderImmediately` (the default, as for a call's sink): the sink shows
    /// each display frame as soon as it is composed (`sync=false`), unless the
    /// `sink` description sets `sync` itself. `clock` times the pause of a still screen.
    init(sink: String, width: Int, height: Int, framesPerSecond: Int = 30, renderImmediately: Bool = true,
         clock: any TimerClock = GLibClock.shared) throws {
        GStreamer.initialize()
        for (element, package) in DisplayPipelineDescription.requiredElements where !GStreamer.hasElement(element) {
            throw MediaError.missingElement(element, package: package)
        }
        description = DisplayPipelineDescription(sink: sink, width: width, height: height, framesPerSecond: framesPerSecond)
        self.width = description.width
        self.height = description.height
        self.framesPerSecond = description.framesPerSecond
        self.clock = clock
        Self.channels += 1
        channel = "c1nk-display-\(getpid())-\(Self.channels)"
        c1nk_display_input_register()
        callSink = "c1nkdisplayinput channel=\(channel)"
        let bin = Element(adopting: try PipelineBin.make(description.text, name: "display"))
        pipeline = OwnedPipeline(named: "c1nk-display")
        let whole = pipeline.pipeline
        whole.add(bin) // the pipeline holds it now
        let mixer = DisplayMixer(in: whole, description)
        self.mixer = mixer
        c1nk_display_input_open(channel, mixer.video.pointer, mixer.compositor.pointer, GstClockTime(description.frameDuration))
        drawing.attach(to: mixer.lastOverlayOutput)
        if description.syncOff(renderImmediately: renderImmediately) {
            for element in whole.elements where element.has(property: "sync") { element[bool: "sync"] = false }
        }
        watchNavigation(mixer.output)
        pipeline.watchBus { [weak self] message in self?.busMessage(message) }
        // The base picture's appsrc takes pictures from PAUSED on; a live pipeline makes no frame before PLAYING.
        guard pipeline.setState(GST_STATE_PAUSED) else { throw startFailure() }
    }

    deinit { stop() }

    /// Runs the display: frames from now on, the first of them the picture shown last.
    func start() throws {
        guard mixer != nil else { return }
        guard pipeline.start() else { throw startFailure() }
    }

    /// Stops and releases the pipeline (and the error it left), for a display that cannot start.
    private func startFailure() -> Error {
        let reason = pipeline.takeError() ?? "it failed to start"
        stop()
        return MediaError.badConfiguration("the display '\(description.sink)' cannot start: \(reason). "
            + SinkCheck.alternatives("video", besides: description.sink))
    }

    func stop() {
        guard mixer != nil else { return }
        c1nk_display_input_close(channel)
        pipeline.release(detach: {
            pulse = nil
            pauseTimer = nil
        }, afterNull: {
            mixer = nil
        })
    }

    // MARK: - Showing a layout

    /// Shows a painted layout: the base and overlay pictures, the door's
    /// video behind them when the layout wants it, and the pulse.
    func show(_ layout: ScreenLayout, layers: ScreenPainter.Layers) {
        guard let mixer else { return }
        resume()
        mixer.push(layers.base)
        let alphas = DisplayComposition.alphas(layout.background)
        mixer.setAlpha(.video, alphas.video)
        mixer.setAlpha(.base, alphas.base)
        drawing.show(layers.overlay.map { OverlayBands.cuts($0, layout: layout, limit: Self.drawingRectangles) } ?? [])
        showPulse(layout.pulse, on: mixer)
        pauseTimer = DisplayComposition.isStill(layout) ? clock.schedule(after: Self.stillAfter) { [weak self] in self?.pause() } : nil
    }

    /// Pauses the pipeline and blocks the compositor's output: a live
    /// compositor goes on composing at its frame rate in PAUSED (its
    /// deadlines follow the clock, which runs on), a frame nobody shows
    /// every 33 ms. Blocked, its thread sleeps in the push; the pipeline's
    /// pause keeps the running time, so nothing is late when it resumes.
    private func pause() {
        guard let mixer, !isPaused else { return }
        isPaused = true
        stillBlock = mixer.output.addProbe(GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM) { _ in GST_PAD_PROBE_OK }
        pipeline.setState(GST_STATE_PAUSED)
    }

    private func resume() {
        pauseTimer = nil
        guard let mixer, isPaused else { return }
        isPaused = false
        pipeline.setState(GST_STATE_PLAYING)
        mixer.output.removeProbe(stillBlock)
        stillBlock = 0
    }

    private func showPulse(_ spec: ScreenLayout.Pulse?, on mixer: DisplayMixer) {
        guard spec != pulseShown else { return }
        pulseShown = spec
        pulse = nil
        guard let spec else {
            for layer in DisplayLayer.overlaid { mixer.setOverlay(layer, nil) }
            return
        }
        let ring = OverlayBands.whole(ScreenPainter.pulseRing(diameter: Int(spec.toDiameter.rounded())))
        for layer in DisplayLayer.overlaid { mixer.setOverlay(layer, ring) }
        if spec.animated {
            pulse = PulseAnimation(elements: DisplayLayer.overlaid.compactMap { mixer.overlays[$0] }, spec: spec, now: mixer.runningSeconds)
        } else {
            mixer.showStill(DisplayComposition.StillCircle(spec))
        }
    }

    // MARK: - Snapshots

    /// The last frame the sink showed, converted to `caps` (e.g. "image/png"
    /// or "video/x-raw,format=RGB"); nil when the sink keeps none.
    func lastFrame(as caps: String) -> Data? { DisplaySnapshot.lastFrame(of: videoSinks(), as: caps) }

    /// The display's element that sinks the frames (for tests that send
    /// navigation events the way a window sink does).
    var sinkElement: Element? { videoSinks().first }

    /// The compositor's output (for tests that count the frames composed).
    var mixerOutput: Pad? { mixer?.output }

    /// The elements inside the `{sink}` description that render frames.
    private func videoSinks() -> [Element] {
        guard mixer != nil else { return [] }
        return pipeline.pipeline.elements.filter { $0.has(property: "last-sample") }
    }

    // MARK: - Bus and navigation

    private func watchNavigation(_ output: Pad) {
        // Upstream events only (a click, a key): never per frame.
        output.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { [weak self] info in
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
