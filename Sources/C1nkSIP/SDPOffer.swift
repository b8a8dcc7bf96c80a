/// The SDP offer of a phone leg: one audio stream on `address`:`port` (RTCP
/// on `port + 1`), Opus, G.722 and G.711 in our order of preference and
/// RFC 4733 telephone-events for the phone's keys. Built from our own
/// values only; rtpbin sends and receives what it describes.
public struct SDPOffer: Equatable, Sendable {
    public static let telephoneEventPayloadType = 101

    public let address: String
    public let port: Int
    public let codecs: [SIPCodec]
    /// The o= line's session id; one per call.
    public let sessionID: UInt32
    /// The door's video offered on this port (RTCP on the next), send-only; nil: audio only.
    public let videoPort: Int?
    public let videoCodecs: [SIPVideoCodec]

    public init(address: String, port: Int, codecs: [SIPCodec] = SIPCodec.allCases, sessionID: UInt32,
                videoPort: Int? = nil, videoCodecs: [SIPVideoCodec] = SIPVideoCodec.allCases) {
        self.address = address
        self.port = port
        self.codecs = codecs
        self.sessionID = sessionID
        self.videoPort = videoPort
        self.videoCodecs = videoCodecs
    }

    /// `IP6` for an IPv6 address, `IP4` otherwise.
    var addressType: String { address.contains(":") ? "IP6" : "IP4" }

    public var text: String {
        let types = codecs.map { String($0.payloadType) } + [String(Self.telephoneEventPayloadType)]
        var lines = [
            "v=0",
            "o=- \(sessionID) 1 IN \(addressType) \(address)",
            "s=c1nk-gst",
            "c=IN \(addressType) \(address)",
            "t=0 0",
            "m=audio \(port) RTP/AVP \(types.joined(separator: " "))",
        ]
        lines += codecs.map { "a=rtpmap:\($0.payloadType) \($0.rtpmap)" }
        if codecs.contains(.opus) { lines.append("a=fmtp:\(SIPCodec.opus.payloadType) useinbandfec=1") }
        lines += [
            "a=rtpmap:\(Self.telephoneEventPayloadType) telephone-event/8000",
            "a=fmtp:\(Self.telephoneEventPayloadType) 0-15",
            "a=ptime:20",
            "a=sendrecv",
        ]
        if let videoPort, !videoCodecs.isEmpty {
            // The door's video only: we send it, the phone's camera has nowhere to go.
            lines.append("m=video \(videoPort) RTP/AVP \(videoCodecs.map { String($0.payloadType) }.joined(separator: " "))")
            for codec in videoCodecs {
                lines.append("a=rtpmap:\(codec.payloadType) \(codec.rawValue)/90000")
                if let fmtp = codec.fmtp { lines.append("a=fmtp:\(codec.payloadType) \(fmtp)") }
                lines.append("a=rtcp-fb:\(codec.payloadType) nack pli")
            }
            lines.append("a=sendonly")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
