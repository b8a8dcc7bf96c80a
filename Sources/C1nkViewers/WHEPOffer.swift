/// A browser's WHEP offer (`POST /api/whep`), read for what the viewer
/// needs: the m-line and payload type of the door's video codec and of Opus.
/// Pure; anything that is not such an offer is refused with a reason.
public struct WHEPOffer: Equatable, Sendable {
    public struct Line: Equatable, Sendable {
        public let index: Int
        public let payloadType: Int
        /// The id the browser gave libwebrtc's playout-delay header extension
        /// (`a=extmap`), when it offers it.
        public var playoutDelayExtension: Int? = nil
    }

    public static let playoutDelayURI = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"

    public let video: Line?
    public let audio: Line?
    /// Why the door's video is not sent to this browser though it offers
    /// video (its codec, or its H.264 profile, is not the door's).
    public let videoRefusal: String?

    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// - Parameters:
    ///   - videoCodec: the door's, as an RTP encoding name (`VP8`, `H264`).
    ///   - videoProfile: the door's H.264 profile (`H264Profile`), when known.
    public init(sdp: String, videoCodec: String?, videoProfile: String? = nil) throws {
        let lines = sdp.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.map(String.init)
        guard lines.first == "v=0", sdp.utf8.count <= 64 * 1024 else { throw Refusal("not an SDP offer (it must begin with v=0)") }
        var sections: [(kind: String, rtpmap: [(Int, String, String)], playoutDelay: Int?)] = []
        for line in lines {
            guard line.count >= 2, line.dropFirst().first == "=" else { throw Refusal("not an SDP offer: a line is not type=value") }
            if line.hasPrefix("m=") {
                let kind = line.dropFirst(2).split(separator: " ").first.map(String.init) ?? ""
                sections.append((kind, [], nil))
            } else if line.hasPrefix("a=rtpmap:"), !sections.isEmpty {
                let rest = line.dropFirst("a=rtpmap:".count).split(separator: " ", maxSplits: 1)
                guard rest.count == 2, let pt = Int(rest[0]) else { continue }
                let name = rest[1].split(separator: "/").first.map { $0.uppercased() } ?? ""
                sections[sections.count - 1].rtpmap.append((pt, name, String(rest[1])))
            } else if line.hasPrefix("a=extmap:"), line.hasSuffix(" " + Self.playoutDelayURI), !sections.isEmpty {
                // "a=extmap:5 URI" or "a=extmap:5/sendrecv URI"
                let id = line.dropFirst("a=extmap:".count).prefix { $0.isNumber }
                sections[sections.count - 1].playoutDelay = Int(id)
            } else if line.hasPrefix("a=fmtp:"), !sections.isEmpty {
                let rest = line.dropFirst("a=fmtp:".count).split(separator: " ", maxSplits: 1)
                guard rest.count == 2, let pt = Int(rest[0]),
                      let index = sections[sections.count - 1].rtpmap.firstIndex(where: { $0.0 == pt }) else { continue }
                sections[sections.count - 1].rtpmap[index].2 += " " + rest[1]
            }
        }
        guard !sections.isEmpty else { throw Refusal("the offer has no media (m=) lines") }
        var video: Line?
        var audio: Line?
        var videoRefusal: String?
        for (index, section) in sections.enumerated() {
            if section.kind == "video", video == nil, let codec = videoCodec?.uppercased() {
                switch Self.payloadType(codec, section.rtpmap.filter { $0.1 == codec }.map { ($0.0, $0.2) }, profile: videoProfile) {
                case .success(let pt):
                    video = Line(index: index, payloadType: pt, playoutDelayExtension: section.playoutDelay)
                case .failure(let refusal): videoRefusal = videoRefusal ?? refusal.description
                }
            }
            if section.kind == "audio", audio == nil, let opus = section.rtpmap.first(where: { $0.1 == "OPUS" }) {
                audio = Line(index: index, payloadType: opus.0)
            }
        }
        guard video != nil || audio != nil else {
            throw Refusal("the offer has neither the door's video (\(videoRefusal ?? videoCodec ?? "none")) nor Opus audio")
        }
        self.video = video
        self.audio = audio
        self.videoRefusal = video == nil ? videoRefusal : nil
    }

    /// The browser's payload type for the door's `codec` among `candidates`
    /// (payload type, rtpmap and fmtp). H.264: packetization-mode=1, as the
    /// door's RTP is, and the door's profile, which webrtcbin matches literally.
    static func payloadType(_ codec: String, _ candidates: [(Int, String)], profile: String?) -> Result<Int, Refusal> {
        guard let first = candidates.first else { return .failure(Refusal("the browser does not offer \(codec), the door's video")) }
        guard codec == "H264" else { return .success(first.0) }
        let modeOne = candidates.filter { $0.1.contains("packetization-mode=1") }
        guard let any = modeOne.first else {
            return .failure(Refusal("the browser offers H.264 only without packetization-mode=1, which the door's stream needs"))
        }
        guard let profile else { return .success(any.0) }
        if let match = modeOne.first(where: { H264Profile.name(fmtp: $0.1) == profile }) { return .success(match.0) }
        let offered = modeOne.map { H264Profile.name(fmtp: $0.1) ?? "unknown" }
        return .failure(Refusal("the door's H.264 is \(profile), and the browser offers only "
                                + offered.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(separator: ", ")))
    }

    /// `answer` with the gathered candidates in their m-sections and
    /// `a=end-of-candidates`, for a client that does not trickle.
    public static func answer(_ answer: String, with candidates: [(line: Int, candidate: String)]) -> String {
        var output: [String] = []
        var section = -1
        func close() {
            guard section >= 0 else { return }
            for candidate in candidates where candidate.line == section { output.append("a=" + candidate.candidate) }
            output.append("a=end-of-candidates")
        }
        for line in answer.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init) {
            if line.hasPrefix("m=") {
                close()
                section += 1
            }
            output.append(line)
        }
        close()
        return output.joined(separator: "\r\n") + "\r\n"
    }
}
