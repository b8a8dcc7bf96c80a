/// What the bridge reads from a phone's SDP answer: where to send audio,
/// which of our offered codecs it chose, and its telephone-event type. A
/// peer's text is data: its size and line count are capped, addresses must
/// be numeric, and only values matching our offer are used.
public struct SDPAnswer: Equatable, Sendable {
    public static let largest = 16384
    public static let mostLines = 256

    public let address: String
    public let port: Int
    public let rtcpPort: Int
    public let codec: SIPCodec
    /// The phone's payload type for `codec`: what we send with (ours for it may differ for Opus).
    public let payloadType: Int
    /// The phone's payload type for RFC 4733 telephone-events, when it takes them.
    public let telephoneEventPayloadType: Int?
    /// Where the door's video goes, when we offered it and the phone takes one of its codecs.
    public let video: Video?

    public struct Video: Equatable, Sendable {
        public let address: String
        public let port: Int
        public let rtcpPort: Int
        public let codec: SIPVideoCodec
        /// The phone's payload type for `codec`: what the video is sent with.
        public let payloadType: Int
    }

    public struct Unusable: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(_ text: String, offer: SDPOffer) throws {
        func unusable(_ why: String) -> Unusable { Unusable(description: "the phone's SDP answer is unusable: \(why)") }
        guard text.utf8.count <= Self.largest else { throw unusable("larger than \(Self.largest) bytes") }
        let lines = text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        guard lines.count <= Self.mostLines else { throw unusable("more than \(Self.mostLines) lines") }

        var sessionAddress: String?
        var audio: (port: Int, types: [Int])?
        var audioAddress: String?
        var rtpmaps: [Int: String] = [:]
        var rtcpPort: Int?
        var inAudio = false
        var sawAudio = false
        var inVideo = false
        var sawVideo = false
        var videoLine: (port: Int, types: [Int])?
        var videoAddress: String?
        var videoRtpmaps: [Int: String] = [:]
        var videoRTCPPort: Int?
        for line in lines {
            guard line.count >= 2, line.dropFirst().first == "=" else { continue }
            let value = line.dropFirst(2)
            switch line.first {
            case "m":
                let fields = value.split(separator: " ")
                inAudio = !sawAudio && fields.first == "audio"
                inVideo = !sawVideo && fields.first == "video"
                if inVideo {
                    sawVideo = true
                    if fields.count >= 4, let port = Int(fields[1]), (0...65535).contains(port) {
                        videoLine = (port, fields.dropFirst(3).compactMap { Int($0) })
                    }
                    continue
                }
                guard inAudio else { continue }
                sawAudio = true
                guard fields.count >= 4, let port = Int(fields[1]), (0...65535).contains(port) else {
                    throw unusable("a malformed audio m= line")
                }
                audio = (port, fields.dropFirst(3).compactMap { Int($0) })
            case "c":
                let fields = value.split(separator: " ")
                guard fields.count == 3, fields[0] == "IN", let address = Self.numericAddress(fields[2]) else {
                    throw unusable("a c= line without a numeric address")
                }
                if !sawAudio && !sawVideo { sessionAddress = address } else if inAudio { audioAddress = address } else if inVideo { videoAddress = address }
            case "a" where inVideo:
                Self.attribute(value, rtpmaps: &videoRtpmaps, rtcpPort: &videoRTCPPort)
            case "a" where inAudio:
                Self.attribute(value, rtpmaps: &rtpmaps, rtcpPort: &rtcpPort)
            default:
                continue
            }
        }
        guard let audio else { throw unusable("no audio stream") }
        guard audio.port != 0 else { throw unusable("the phone declined audio (port 0)") }
        guard let address = audioAddress ?? sessionAddress else { throw unusable("no connection address") }
        // The phone's first choice among the codecs we offered; a dynamic type counts by its rtpmap name.
        func codec(for type: Int) -> SIPCodec? {
            if let name = rtpmaps[type] { return offer.codecs.first { $0.rawValue == name } }
            return offer.codecs.first { $0.payloadType == type }
        }
        guard let chosenType = audio.types.first(where: { codec(for: $0) != nil }), let chosen = codec(for: chosenType) else {
            throw unusable("none of its codecs (payload types \(audio.types.prefix(8).map(String.init).joined(separator: " "))) is one we offer (Opus, G.722, G.711)")
        }
        // A dynamic type outside RFC 3551's range would be the phone's mistake; ours stands then.
        self.payloadType = (0...127).contains(chosenType) ? chosenType : chosen.payloadType
        self.address = address
        self.port = audio.port
        self.rtcpPort = rtcpPort.flatMap { (1...65535).contains($0) ? $0 : nil } ?? min(audio.port + 1, 65535)
        self.codec = chosen
        self.telephoneEventPayloadType = audio.types.first { rtpmaps[$0] == "TELEPHONE-EVENT" }
        // Video only when offered, taken (port not 0) and in one of our codecs; else the call is audio only.
        if offer.videoPort != nil, let videoLine, videoLine.port != 0, let videoHost = videoAddress ?? sessionAddress {
            func videoCodec(for type: Int) -> SIPVideoCodec? {
                if let name = videoRtpmaps[type] { return offer.videoCodecs.first { $0.rawValue == name } }
                return offer.videoCodecs.first { $0.payloadType == type }
            }
            if let type = videoLine.types.first(where: { videoCodec(for: $0) != nil }), let codec = videoCodec(for: type) {
                video = Video(address: videoHost, port: videoLine.port,
                              rtcpPort: videoRTCPPort.flatMap { (1...65535).contains($0) ? $0 : nil } ?? min(videoLine.port + 1, 65535),
                              codec: codec, payloadType: (0...127).contains(type) ? type : codec.payloadType)
            } else {
                video = nil
            }
        } else {
            video = nil
        }
    }

    /// An a= line of a media section: its rtpmap (type → encoding name, uppercased) or its rtcp port.
    private static func attribute(_ value: Substring, rtpmaps: inout [Int: String], rtcpPort: inout Int?) {
        if value.hasPrefix("rtpmap:") {
            let fields = value.dropFirst(7).split(separator: " ", maxSplits: 1)
            if fields.count == 2, let type = Int(fields[0]) {
                rtpmaps[type] = fields[1].split(separator: "/").first.map { $0.uppercased() }
            }
        } else if value.hasPrefix("rtcp:") {
            rtcpPort = value.dropFirst(5).split(separator: " ").first.flatMap { Int($0) }
        }
    }

    /// `text` when it is a numeric IPv4 or IPv6 address (no names: the answer must not make us look anything up).
    static func numericAddress(_ text: Substring) -> String? {
        guard text.count <= 45 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && UInt8($0) != nil }) { return String(text) }
        if text.contains(":"), text.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) { return String(text) }
        return nil
    }
}
