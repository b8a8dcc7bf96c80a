import C1nkGLib
import CGStreamer
import CScreenLibraries

/// The display pipeline's elements that show pictures, found by name once:
/// the compositor with its two pads (the call's video, the base picture),
/// the base picture's appsrc, and the pulse's two overlays. It holds a
/// reference to each until it is released, after the pipeline is NULL.
final class DisplayMixer {
    let compositor: Element
    /// The compositor's output: what a still screen blocks, where touches and keys come up.
    let output: Pad
    /// The appsrc of the call's video (`display-video`).
    let video: Element
    private let pads: [DisplayLayer: Pad]
    private let base: Element
    let overlays: [DisplayLayer: Element]

    /// The elements of `DisplayPipelineDescription.text` in `pipeline`,
    /// sized to `description`; every layer hidden until the first picture.
    init(in pipeline: Bin, _ description: DisplayPipelineDescription) {
        // The names are the description's own: missing, it is a programming error.
        compositor = pipeline.element(named: "display-mix")!
        output = compositor.staticPad("src")!
        video = pipeline.element(named: "display-video")!
        base = pipeline.element(named: "display-base")!
        var pads: [DisplayLayer: Pad] = [:]
        for layer in DisplayLayer.mixed {
            let pad = compositor.staticPad("sink_\(layer.rawValue)")!
            pad[int: "zorder"] = layer.rawValue
            pad[double: "alpha"] = 0
            pad[int: "width"] = description.width
            pad[int: "height"] = description.height
            if layer == .video {
                pad.set("sizing-policy", fromString: "keep-aspect-ratio")
                pad[int: "max-last-buffer-repeat"] = Int(DisplayPipelineDescription.lastFrameKept)
            }
            pads[layer] = pad
        }
        self.pads = pads
        var overlays: [DisplayLayer: Element] = [:]
        for layer in DisplayLayer.overlaid { overlays[layer] = pipeline.element(named: "display-\(layer.name)")! }
        self.overlays = overlays
        for layer in DisplayLayer.overlaid { setOverlay(layer, nil) }
    }

    /// The last overlay's output: where the drawing over video is blended.
    var lastOverlayOutput: Pad { overlays[.pulseB]!.staticPad("src")! }

    func setAlpha(_ layer: DisplayLayer, _ alpha: Double) { pads[layer]?[double: "alpha"] = alpha }

    /// Hands the base picture to its `imagefreeze` (through one conversion to
    /// I420), which repeats it at the display's frame rate until the next one.
    func push(_ picture: Picture) {
        base[caps: "caps"] = Caps(picture.caps)
        let buffer = picture.bytes.withUnsafeBytes { gst_buffer_new_memdup($0.baseAddress, gsize($0.count)) }
        // The appsrc takes the buffer's reference.
        _ = gst_app_src_push_buffer(PointerCast.cast(base.pointer, to: GstAppSrc.self), buffer)
    }

    /// The compositor's running time in seconds (0 before it runs).
    var runningSeconds: Double {
        let running = gst_element_get_current_running_time(compositor.pointer)
        return running == GstClockTime.max ? 0 : Double(running) / 1_000_000_000
    }

    /// A single transparent pixel: what a hidden overlay holds (an overlay
    /// keeps its last picture when the pixbuf is unset). Hidden, its alpha
    /// is 0 as well, and it blends nothing at all (a frame mapped and let
    /// go: two overlays blending a transparent pixel cost 0.4–0.6 % of a
    /// core at 1280x800, 30 fps, measured with gst-launch).
    private static let nothing = OverlayBands.Band(x: 0, y: 0, width: 1, height: 1, rgba: [0, 0, 0, 0])

    /// Shows a transparent picture on an overlay; nil hides it.
    func setOverlay(_ layer: DisplayLayer, _ shown: OverlayBands.Band?) {
        guard let overlay = overlays[layer] else { return }
        if shown == nil {
            for property in ["offset-x", "offset-y", "overlay-width", "overlay-height"] { overlay[int: property] = 0 }
        }
        let pixbuf = Self.pixbuf(shown ?? Self.nothing)
        withExtendedLifetime(pixbuf) { c1nk_object_set_pointer(overlay.object, "pixbuf", pixbuf.object) } // the overlay takes its own reference
        overlay[double: "alpha"] = shown == nil ? 0 : 1
    }

    /// `--reduce-motion`: the first overlay holds one still circle, the second none.
    func showStill(_ circle: DisplayComposition.StillCircle) {
        guard let overlay = overlays[.pulseA] else { return }
        overlay[int: "overlay-width"] = circle.diameter
        overlay[int: "overlay-height"] = circle.diameter
        overlay[int: "offset-x"] = circle.offsetX
        overlay[int: "offset-y"] = circle.offsetY
        overlay[double: "alpha"] = circle.alpha
        setOverlay(.pulseB, nil)
    }

    /// A pixbuf holding a copy of `band`'s straight-alpha RGBA.
    private static func pixbuf(_ band: OverlayBands.Band) -> GObjectReference {
        let made = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 1, 8, Int32(band.width), Int32(band.height))!
        let stride = Int(gdk_pixbuf_get_rowstride(made))
        let pixels = gdk_pixbuf_get_pixels(made)!
        let row = band.width * 4
        band.rgba.withUnsafeBufferPointer { source in
            for y in 0..<band.height { (pixels + y * stride).update(from: source.baseAddress! + y * row, count: row) }
        }
        return GObjectReference(adopting: made)
    }
}
