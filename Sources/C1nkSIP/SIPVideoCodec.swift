/// The video codecs offered to a video phone: the door's own, passed on
/// without re-encoding (re-payloaded with the phone's payload type). Fixed
/// names and elements, chosen from this enum alone.
public enum SIPVideoCodec: String, CaseIterable, Equatable, Sendable {
    case h264 = "H264"
    case vp8 = "VP8"

    public var payloadType: Int { self == .h264 ? 97 : 96 }

    /// Constrained baseline, packetization mode 1: what desk video phones decode.
    var fmtp: String? { self == .h264 ? "packetization-mode=1;profile-level-id=42e01f" : nil }

    /// The door's RTP in, the phone's RTP out.
    var elements: (depayloader: String, payloader: String) {
        switch self {
        case .h264: ("rtph264depay", "rtph264pay config-interval=-1 aggregate-mode=zero-latency")
        case .vp8: ("rtpvp8depay", "rtpvp8pay")
        }
    }

    /// The codec of the door's RTP caps (`encoding-name`), if one of these.
    public init?(encodingName: String) {
        self.init(rawValue: encodingName.uppercased())
    }
}
