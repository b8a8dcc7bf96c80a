/// The door's streams as its offer names them, and what the call does as each
/// appears: decided here, wired in `AnswerSession+Receiving`.
///
/// rtpbin names a new stream by its SSRC only; the payload type of its first
/// packet says whether it is the door's voice or its video (with the video's
/// repair streams).
struct DoorStreams: Equatable, Sendable {
    var videoPayloadTypes: Set<Int>
    var voicePayloadTypes: Set<Int>
    /// Whether the answer takes the door's video (a codec this machine plays).
    var playsVideo: Bool

    init(videoPayloadTypes: Set<Int>, voicePayloadTypes: Set<Int>, playsVideo: Bool) {
        self.videoPayloadTypes = videoPayloadTypes
        self.voicePayloadTypes = voicePayloadTypes
        self.playsVideo = playsVideo
    }

    init(offer: OfferSummary) {
        func payloadTypes(_ index: Int?) -> Set<Int> { Set(index.map { offer.lines[$0].encodings.keys.map { $0 } } ?? []) }
        self.init(videoPayloadTypes: payloadTypes(offer.videoLineIndex), voicePayloadTypes: payloadTypes(offer.audioLineIndex),
                  playsVideo: offer.videoCodec != nil)
    }

    /// What the first packet of a new stream calls for.
    enum FirstPacket: Equatable {
        /// The door's voice: its jitterbuffer stops asking for retransmissions
        /// (`VoiceRetransmissions`).
        case voice
        /// The door's video: its first keyframe may have gone before the
        /// connection was up, so a keyframe is asked for now rather than at
        /// the door's next scheduled one (or after the jitterbuffer's latency).
        case video
        /// Anything else (a declined video, a stream the offer does not name).
        case other
    }

    func firstPacket(payloadType: Int) -> FirstPacket {
        if voicePayloadTypes.contains(payloadType) { return .voice }
        if playsVideo, videoPayloadTypes.contains(payloadType) { return .video }
        return .other
    }
}

/// What webrtcbin's receiving pad calls for once it is linked: for the
/// video, the keyframe requests are counted from then on, and one is asked
/// for unless the request at the first packet already went out.
enum KeyframeAtLink: Equatable {
    /// Not the video, or it did not link.
    case nothing
    /// The request at the first packet went out (`DoorStreams.FirstPacket.video`): count, ask no more.
    case askedAtFirstPacket
    /// No request yet: count, and ask now.
    case askNow

    /// `requestsSent`: keyframe requests sent so far (before this pad was counted).
    init(media: String, linked: Bool, requestsSent: Int) {
        guard linked, media == "video" else { self = .nothing; return }
        self = requestsSent > 0 ? .askedAtFirstPacket : .askNow
    }
}
