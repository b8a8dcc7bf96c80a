/// The layers the display's compositor stacks, bottom first, and the
/// overlays after it. Every element that runs per frame is named
/// `display-…`, so its streaming threads are too (`display-mix:src`,
/// `display-queue:s`…): the benchmark adds up their CPU time as the
/// display's cost.
enum DisplayLayer: Int, CaseIterable {
    case video = 0, base, pulseA, pulseB

    var name: String { ["video", "base", "pulse-a", "pulse-b"][rawValue] }

    /// The pulse's two circles: `gdkpixbufoverlay`s after the compositor.
    static let overlaid: [DisplayLayer] = [.pulseA, .pulseB]
    /// The compositor's pads, by `sink_<rawValue>`.
    static let mixed: [DisplayLayer] = [.video, .base]
}

/// The display pipeline as text, and the numbers it is made of: what is a
/// decision about the pipeline, apart from the code that builds it.
struct DisplayPipelineDescription: Equatable {
    let width: Int
    let height: Int
    let framesPerSecond: Int
    /// The `{sink}`: an element name or a bin description, as `--sink`.
    let sink: String

    /// The elements the description needs beyond the sink, with their Debian packages.
    static let requiredElements = [("compositor", "gstreamer1.0-plugins-base"), ("appsrc", "gstreamer1.0-plugins-base"),
                                   ("imagefreeze", "gstreamer1.0-plugins-good"), ("gdkpixbufoverlay", "gstreamer1.0-plugins-good")]

    /// How long the video pad shows a call's last frame once frames stop
    /// coming (then the background, black, shows through), in nanoseconds.
    static let lastFrameKept: UInt64 = 1_000_000_000

    /// At least 16 pixels each way, and even (I420 halves both for colour).
    init(sink: String, width: Int, height: Int, framesPerSecond: Int) {
        self.sink = sink
        self.width = max(16, width) & ~1
        self.height = max(16, height) & ~1
        self.framesPerSecond = max(1, framesPerSecond)
    }

    /// One display frame in nanoseconds: the compositor's latency, and how
    /// long each call frame is stamped to last.
    var frameDuration: UInt64 { UInt64(1_000_000_000 / framesPerSecond) }

    /// The base picture's `imagefreeze` is not live, so it never holds the
    /// compositor to the clock; the call's appsrc holds one frame (a call
    /// never waits for the display).
    var text: String {
        let overlays = DisplayLayer.overlaid.map { "gdkpixbufoverlay name=display-\($0.name)" }.joined(separator: " ! ")
        return """
        compositor name=display-mix background=black latency=\(frameDuration) ! video/x-raw,format=I420,colorimetry=bt709,width=\(width),height=\(height),framerate=\(framesPerSecond)/1
          ! \(overlays) ! queue name=display-queue max-size-buffers=2 leaky=downstream ! videoconvert ! \(sink)
        appsrc name=display-video is-live=true format=time max-buffers=1 leaky-type=downstream ! display-mix.sink_0
        appsrc name=display-base is-live=true format=time do-timestamp=true ! videoconvert ! video/x-raw,format=I420,colorimetry=bt709
          ! imagefreeze name=display-freeze allow-replace=true ! display-mix.sink_1
        """
    }

    /// Whether the display's sinks get `sync=false`: with `renderImmediately`
    /// (the default, as for a call's sink), unless the sink description sets
    /// `sync` itself.
    func syncOff(renderImmediately: Bool) -> Bool { renderImmediately && !sink.contains("sync=") }
}
