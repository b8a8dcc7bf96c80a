/// The audio codecs the phone leg speaks, with their fixed RTP names, in our
/// order of preference. The pipeline is chosen from this enum alone, never
/// from a peer's text.
public enum SIPCodec: String, CaseIterable, Equatable, Sendable {
    /// Opus, wideband, where the phone offers it (desk phones, softphones).
    case opus = "OPUS"
    /// G.722, wideband ("HD voice" on DECT bases such as a Fritz!Box).
    case g722 = "G722"
    /// G.711 µ-law, which every phone speaks.
    case pcmu = "PCMU"
    /// G.711 A-law.
    case pcma = "PCMA"

    /// Our payload type: static ones from RFC 3551, Opus's dynamic one.
    public var payloadType: Int {
        switch self {
        case .opus: 111
        case .g722: 9
        case .pcmu: 0
        case .pcma: 8
        }
    }

    /// The RTP clock rate (G.722's is 8000 for historical reasons, RFC 3551; it samples at 16 kHz).
    public var clockRate: Int { self == .opus ? 48000 : 8000 }

    /// The rate the encoder takes and the decoder gives.
    public var sampleRate: Int {
        switch self {
        case .opus: 48000
        case .g722: 16000
        case .pcmu, .pcma: 8000
        }
    }

    /// The a=rtpmap value.
    public var rtpmap: String { self == .opus ? "opus/48000/2" : "\(rawValue)/\(clockRate)" }

    /// The fixed elements: encoder and payloader, depayloader and decoder.
    var elements: (encoder: String, payloader: String, depayloader: String, decoder: String) {
        switch self {
        case .opus: ("opusenc bitrate=32000 frame-size=20", "rtpopuspay", "rtpopusdepay", "opusdec plc=true")
        case .g722: ("avenc_g722", "rtpg722pay", "rtpg722depay", "avdec_g722")
        case .pcmu: ("mulawenc", "rtppcmupay", "rtppcmudepay", "mulawdec")
        case .pcma: ("alawenc", "rtppcmapay", "rtppcmadepay", "alawdec")
        }
    }

    /// What to install when the codec's elements are missing.
    var package: String { self == .g722 ? "gstreamer1.0-libav" : "gstreamer1.0-plugins-good and gstreamer1.0-plugins-base" }
}
