import C1nkGLib
import CGStreamer
import FoundationEssentials
import Glibc

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
    /// (higher: less echo, more clipped double talk). Low by default: on the
    /// echo loop it kept 90–120 % of the resident's voice during double talk
    /// where moderate kept 35–40 %, and the echo still fell by 29–44 dB.
    public var echoSuppression = "low"
    /// `--noise-suppression`: off, low, moderate, high or very-high.
    public var noiseSuppression = "moderate"
    /// `--no-gain-control` turns the automatic gain control off.
    public var gainControl = true
    /// Let the canceller search for the echo's delay itself instead of
    /// trusting the delay the echo probe reports (see `configure`).
    public var delayAgnostic = false
    /// A longer echo tail, more robust to delay changes.
    public var extendedFilter = true
    /// `--mic-gain`: gain on the microphone after processing, in dB.
    public var microphoneGainDB: Double = 0

    public init() {}

    /// The linear factor of `microphoneGainDB`.
    var microphoneGain: Double { pow(10, microphoneGainDB / 20) }

    /// Configures a `webrtcdsp` element before it starts.
    ///
    /// The probe sits just before the sink in the same process, so it
    /// reports the playback delay it sees (the sink's latency), and the DSP
    /// adds the capture side's. Delay-agnostic mode (the canceller searching
    /// for the delay itself) is off: on the echo loop it measured 13–23 dB of
    /// echo reduction against 29–44 dB without it. Turn it on for a device
    /// whose reported latencies are wrong. The extended filter (a longer echo
    /// tail, more robust to delay changes) stays on, as webrtcdsp ships it:
    /// without it the loop measured 13–17 dB.
    func configure(_ dsp: Element, probe: String) {
        dsp.set("probe", fromString: probe)
        dsp.set("echo-cancel", fromString: echoCancel ? "true" : "false")
        dsp.set("echo-suppression-level", fromString: echoSuppression)
        dsp.set("delay-agnostic", fromString: delayAgnostic ? "true" : "false")
        dsp.set("extended-filter", fromString: extendedFilter ? "true" : "false")
        dsp.set("noise-suppression", fromString: noiseSuppression == "off" ? "false" : "true")
        if noiseSuppression != "off" { dsp.set("noise-suppression-level", fromString: noiseSuppression) }
        dsp.set("gain-control", fromString: gainControl ? "true" : "false")
    }

    /// The same, for a borrowed element (`measureCost`'s pipeline is not on the wrappers yet).
    func configure(_ dsp: UnsafeMutablePointer<GstElement>, probe: String) {
        configure(Element(retaining: dsp), probe: probe)
    }
}
