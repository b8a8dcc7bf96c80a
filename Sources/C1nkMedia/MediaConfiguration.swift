import C1nkGLib
import C1nkPipeline
import CGStreamer
import FoundationEssentials
import Glibc

/// Everything a call's media needs: the pipeline description around
/// `webrtcbin`, the values of its placeholders, recording, and the network.
public struct MediaConfiguration: Equatable, Sendable {
    public var ice = IceConfiguration()
    /// Jitterbuffer latency. 20 ms: on a LAN the steady glass-to-glass is then
    /// ~11 ms on loopback, and 20 ms still absorbs reordering and a burst of
    /// jitter (0–30 ms per frame added 25 ms at p50 and no late frames). Raise
    /// it for a lossy Wi-Fi link. Measured in docs/benchmarks.md.
    public var latencyMilliseconds: UInt = 20
    /// How long the door's video waits for a lost packet's retransmission
    /// while frames are shown at once (`renderImmediately`) and the door
    /// answers NACK; the larger of this and `latencyMilliseconds`. Packets
    /// in order are never held by it, so it costs nothing on a clean link;
    /// on a lossy one a repair that comes late is shown late instead of the
    /// picture freezing until the next keyframe. The audio keeps
    /// `latencyMilliseconds`. Measured in docs/benchmarks.md (Network).
    public var videoRepairWindowMilliseconds: UInt = 100
    /// `{sink}`: the video sink, an element name or a bin description.
    public var videoSink = MediaConfiguration.automaticVideoSink()
    /// `{audio-source}`: the microphone.
    public var audioSource = "autoaudiosrc"
    /// `{audio-sink}`: the speaker.
    public var audioSink = "autoaudiosink"
    /// The graph; nil: `display`, or `display-record` when recording.
    public var pipeline: PipelineDescription?
    /// `--record`: where calls are written; nil for no recording.
    public var recording: RecordingTarget?
    /// `--snapshot`: where the visitor's picture of each call is written.
    public var snapshot = SnapshotTarget.besideRecording
    /// `--measure`: decode and glass-to-glass latency probes on every call.
    /// `--decoder`: which element decodes the door's video (applied once per
    /// process, by ranks: `VideoDecoders.apply`).
    public var decoder = DecoderPreference.auto
    public var measure = false
    /// Echo cancellation, noise suppression, gain control and microphone
    /// gain for the `webrtcdsp` of the call's pipeline.
    public var voice = VoiceProcessing()
    /// Show each frame as soon as it is decoded (`sync=false` on the video
    /// sink) unless the `--sink` description sets `sync` itself. A doorbell
    /// wants the visitor now: measured, this takes glass-to-glass from
    /// ~12–34 ms to ~7 ms (the plain-pipeline floor is 6 ms) and removes a
    /// ~2 s start-up tail of 100–150 ms; network jitter then shows as uneven
    /// motion instead of delay. `--video-sync` turns it off.
    public var renderImmediately = true
    /// Where the door's video codec of the last call is kept (beside the
    /// device id), so that the next process warms its decoder at start-up;
    /// nil: nothing kept, nothing but the start-up warm-up.
    public var videoCodecMemory: VideoCodecMemory?

    public init() {}

    /// The sink a device would want when none is given: the desktop's
    /// (`autovideosink`) when there is a display server, the screen itself
    /// (`kmssink`) when there is a DRM device, and otherwise none at all
    /// (`fakesink`: video is still decoded, counted and recorded).
    public static func automaticVideoSink(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty {
            return "autovideosink"
        }
        if access("/dev/dri/card0", R_OK | W_OK) == 0 && GStreamer.hasElement("kmssink") {
            return "kmssink"
        }
        return "fakesink"
    }

    /// The placeholder values the user chose.
    var userValues: [String: String] {
        ["sink": videoSink, "audio-source": audioSource, "audio-sink": audioSink]
    }

    /// The pipeline to use, loading the default one when none was chosen.
    public func resolvedPipeline() throws -> PipelineDescription {
        if let pipeline { return pipeline }
        return try PipelineDescription.load(recording == nil ? PipelineDescription.defaultName : PipelineDescription.defaultRecordingName)
    }

    /// Loads and builds the pipeline once, before any call, so that a typo, a
    /// missing plugin or a missing placeholder is reported at start-up.
    /// Returns the configuration with the pipeline loaded.
    public func validated() throws -> MediaConfiguration {
        var result = self
        if ice.transportPolicy == .relay && ice.turnServers.isEmpty {
            throw MediaError.badConfiguration("--ice-transport-policy relay connects only through a TURN server: give --turn turn://user:pass@host:port")
        }
        let pipeline = try resolvedPipeline()
        result.pipeline = pipeline
        try pipeline.validate(userValues, recording: recording != nil)
        for (element, package) in [("webrtcbin", "gstreamer1.0-plugins-bad"), ("nicesrc", "gstreamer1.0-nice")]
        where !GStreamer.hasElement(element) {
            throw MediaError.missingElement(element, package: package)
        }
        return result
    }

    /// `description` with its `{placeholders}` filled (`Placeholders.fill`).
    package static func fill(_ description: String, _ values: [String: String]) -> String {
        Placeholders.fill(description, values)
    }
}

extension MediaConfiguration {
    /// Whether the pipeline in use has `{placeholder}` (false if it cannot load).
    public func resolvedPipelineUses(_ placeholder: String) -> Bool {
        (try? resolvedPipeline())?.uses(placeholder) ?? false
    }
}
