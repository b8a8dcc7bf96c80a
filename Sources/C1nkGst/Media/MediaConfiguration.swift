import CGStreamer

/// The media graph around `webrtcbin` for one answered call, as gst-launch
/// descriptions with placeholders, plus the network settings.
///
/// Placeholders: `{sink}` (the video sink), `{audio-source}`, `{audio-sink}`,
/// and `{encoder}` (filled from the door's offer: Opus, else G.711).
/// The audio descriptions must keep a `volume` named `microphone` and one
/// named `speaker`: they are the privacy gates, muted until the user accepts.
public struct MediaConfiguration: Equatable, Sendable {
    public var ice = IceConfiguration()
    /// Jitterbuffer latency. 50 ms absorbs the jitter of a home LAN or Wi-Fi
    /// link (bursts of 20–40 ms) without smearing video, and keeps the first
    /// frame about 60 ms after the connection instead of webrtcbin's 200 ms.
    public var latencyMilliseconds: UInt = 50
    public var videoSink = "autovideosink"
    public var audioSource = "autoaudiosrc"
    public var audioSink = "autoaudiosink"

    public var videoReceive = "decodebin ! videoconvert ! videoscale ! {sink}"
    public var audioReceive = "decodebin ! audioconvert ! audioresample ! volume name=speaker mute=true"
        + " ! level name=speaker-level interval=100000000 ! {audio-sink}"
    public var audioSend = "{audio-source} ! audioconvert ! audioresample ! volume name=microphone mute=true"
        + " ! audioconvert ! {encoder}"

    public init() {}

    static func fill(_ description: String, _ values: [String: String]) -> String {
        var result = description
        for (key, value) in values { result = result.replacingOccurrences(of: "{\(key)}", with: value) }
        return result
    }
}

extension MediaConfiguration {
    /// Builds every description once, before any call, so a typo in `--sink`
    /// or a missing plugin is reported at start-up, naming the element.
    public func validate() throws {
        let checks: [(String, String, String?)] = [
            ("video receive", Self.fill(videoReceive, ["sink": videoSink]), nil),
            ("audio receive", Self.fill(audioReceive, ["audio-sink": audioSink]), "speaker"),
            ("audio send", Self.fill(audioSend, ["audio-source": audioSource, "encoder": "opusenc ! rtpopuspay"]), "microphone"),
        ]
        for (label, description, gate) in checks {
            let bin: UnsafeMutablePointer<GstElement>
            do {
                bin = try PipelineBin.make(description, name: "check")
            } catch let error as MediaError {
                throw MediaError.badConfiguration("the \(label) pipeline is not valid: \(error)")
            }
            defer { gst_object_unref(UnsafeMutableRawPointer(bin)) }
            if let gate {
                guard let element = Gst.find(gate, in: bin) else {
                    throw MediaError.badConfiguration("the \(label) pipeline has no volume element named '\(gate)' (the gate that keeps audio off until you accept)")
                }
                gst_object_unref(UnsafeMutableRawPointer(element))
            }
        }
        if !GStreamer.hasElement("webrtcbin") {
            throw MediaError.missingElement("webrtcbin", package: "gstreamer1.0-plugins-bad")
        }
        if !GStreamer.hasElement("nicesrc") {
            throw MediaError.missingElement("nicesrc", package: "gstreamer1.0-nice")
        }
    }
}
