/// The shared media a call's restream serves, as a gst-rtsp-server launch
/// line: each of the door's streams, as received (RTP), depayloaded and
/// payloaded again, never decoded. Pure: from the codecs of the offer.
///
/// The sources are leaky `appsrc`s fed by the call (`c1nk_restream_start`):
/// they never block the call, drop their oldest packets when the media
/// falls behind, and stamp each packet on arrival (the media's clock).
public struct RestreamMedia: Equatable, Sendable {
    /// The launch line (`( … )`), with `pay0` the video and `pay1` the audio when both are there.
    public let launch: String
    /// The audio's silence while the door's voice is held back ("opus", "pcmu", "pcma"), or nil without audio.
    public let silence: String?
    public let hasVideo: Bool

    /// Nil when nothing of the call can be restreamed (no video or audio this serves).
    public init?(videoCodec: String?, audioCodec: String?) {
        let video = videoCodec.flatMap(Self.videoChain)
        let audio = audioCodec.flatMap(Self.audioChain)
        var branches: [String] = []
        if let video { branches.append(Self.source("video") + " ! " + video + " name=pay0 pt=\(Self.videoPayloadType)") }
        if let audio {
            branches.append(Self.source("audio") + " ! " + audio.chain + " name=pay\(branches.count) pt=\(Self.audioPayloadType)")
        }
        guard !branches.isEmpty else { return nil }
        launch = "( " + branches.joined(separator: "  ") + " )"
        silence = audio?.silence
        hasVideo = video != nil
    }

    /// The payload types of the door's video and audio in the restream's SDP.
    public static let videoPayloadType = 96
    public static let audioPayloadType = 97

    /// Whether a pad an `rtspsrc` client adds (`recv_rtp_src_<stream>_<ssrc>_<type>`) carries the
    /// video (true) or the audio (false), from its payload type; nil for another pad. A client links
    /// its branches by this, not by caps: rtspsrc adds both pads at once from two streaming threads,
    /// and links by caps tried from both together (a launch line's `s. ! application/x-rtp,media=video`)
    /// can both fail for one branch.
    public static func carriesVideo(rtspsrcPad name: String) -> Bool? {
        guard name.hasPrefix("recv_rtp_src_"), let type = name.split(separator: "_").last.flatMap({ Int($0) }) else { return nil }
        return type == videoPayloadType ? true : type == audioPayloadType ? false : nil
    }

    /// A leaky live source: 64 packets (some two seconds of video) wait at most.
    static func source(_ name: String) -> String {
        "appsrc name=\(name) is-live=true format=time do-timestamp=true block=false max-bytes=0 max-buffers=64 leaky-type=downstream"
    }

    static func videoChain(_ codec: String) -> String? {
        switch codec.uppercased() {
        // Parameter sets before each keyframe, so that a client joining mid-call decodes at the next one.
        case "H264": return "rtph264depay ! rtph264pay config-interval=-1 aggregate-mode=zero-latency"
        case "VP8": return "rtpvp8depay ! rtpvp8pay"
        case "VP9": return "rtpvp9depay ! rtpvp9pay"
        default: return nil
        }
    }

    static func audioChain(_ codec: String) -> (chain: String, silence: String)? {
        switch codec.uppercased() {
        case "OPUS": return ("rtpopusdepay ! rtpopuspay", "opus")
        case "PCMU": return ("rtppcmudepay ! rtppcmupay", "pcmu")
        case "PCMA": return ("rtppcmadepay ! rtppcmapay", "pcma")
        default: return nil
        }
    }
}
