import CGStreamer
import Foundation

/// How the microphone is cleaned up before it reaches the door: WebRTC's
/// audio processing (`webrtcdsp`) fed with what the speaker plays
/// (`webrtcechoprobe`, in `SpeakerOutput`). The shipped pipelines have a
/// `webrtcdsp` before the `microphone` gate; these settings are applied to
/// every `webrtcdsp` of a call's pipeline.
public struct VoiceProcessing: Equatable, Sendable {
    public static let echoSuppressionLevels = ["low", "moderate", "high"]
    public static let noiseSuppressionLevels = ["off", "low", "moderate", "high", "very-high"]

    /// Echo cancellation; `--no-echo-cancel` turns it off.
    public var echoCancel = true
    /// `--echo-suppression`: how hard the residual echo is suppressed
    /// (higher: less echo, more clipped double talk).
    public var echoSuppression = "moderate"
    /// `--noise-suppression`: off, low, moderate, high or very-high.
    public var noiseSuppression = "moderate"
    /// `--no-gain-control` turns the automatic gain control off.
    public var gainControl = true
    /// `--mic-gain`: gain on the microphone after processing, in dB.
    public var microphoneGainDB: Double = 0

    public init() {}

    /// The linear factor of `microphoneGainDB`.
    var microphoneGain: Double { pow(10, microphoneGainDB / 20) }

    /// Configures a `webrtcdsp` element before it starts.
    ///
    /// The speaker's playback reaches the microphone after the sink's buffer
    /// and the room: an unknown delay, so the delay-agnostic mode is on (the
    /// canceller finds the delay itself instead of trusting the reported
    /// latency). The extended filter (a longer echo tail, more robust to
    /// delay changes) stays on, as webrtcdsp ships it.
    func configure(_ dsp: UnsafeMutablePointer<GstElement>, probe: String) {
        let object = UnsafeMutableRawPointer(dsp)
        ObjectProperty.set(object, "probe", probe)
        ObjectProperty.set(object, "echo-cancel", echoCancel ? "true" : "false")
        ObjectProperty.set(object, "echo-suppression-level", echoSuppression)
        ObjectProperty.set(object, "delay-agnostic", "true")
        ObjectProperty.set(object, "extended-filter", "true")
        ObjectProperty.set(object, "noise-suppression", noiseSuppression == "off" ? "false" : "true")
        if noiseSuppression != "off" { ObjectProperty.set(object, "noise-suppression-level", noiseSuppression) }
        ObjectProperty.set(object, "gain-control", gainControl ? "true" : "false")
    }
}
