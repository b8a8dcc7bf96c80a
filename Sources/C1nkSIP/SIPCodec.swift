/// The audio codecs the phone leg speaks, with their fixed RTP names. The
/// pipeline is chosen from this enum alone, never from a peer's text.
public enum SIPCodec: String, CaseIterable, Equatable, Sendable {
    /// G.711 µ-law.
    case pcmu = "PCMU"
    /// G.711 A-law.
    case pcma = "PCMA"

    /// The static payload type (RFC 3551).
    public var payloadType: Int {
        switch self {
        case .pcmu: 0
        case .pcma: 8
        }
    }

    public var clockRate: Int { 8000 }
}
