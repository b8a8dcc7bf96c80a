import C1nkGLib
import C1nkPipeline
import CGStreamer

/// What the answerer needs to know of the door's offer before answering:
/// which m-lines carry what, their mids, and how to send audio back.
package struct OfferSummary: Equatable {
    package struct MediaLine: Equatable {
        package var kind: String      // "audio" or "video"
        package var mid: String?
        /// encoding name → payload type, e.g. "OPUS" → 111
        var payloadTypes: [String: Int]
        /// The encoding of the first payload type listed: the door's preference.
        var preferredCodec: String?
        /// payload type → its `a=fmtp` parameters, e.g. 111 → ["useinbandfec": "1"]
        var formatParameters: [Int: [String: String]] = [:]
        /// Encodings in the order the door lists them, repair streams (rtx, red, ulpfec) included.
        var codecs: [String] = []
        /// Every payload type → its encoding name (several RTX types may share a name).
        package var encodings: [Int: String] = [:]
        /// Whether the door asks for RTCP feedback of this kind on any payload type ("nack", "nack pli", "ccm fir").
        var feedback: Set<String> = []
        /// RTP header extensions offered: id → URI (`a=extmap`).
        var extensions: [Int: String] = [:]

        /// The id of the transport-wide congestion control extension, when
        /// the door offers it with `transport-cc` feedback: the answer must
        /// echo it for a libwebrtc door to adapt its rate to our feedback.
        var transportWideCCExtension: Int? {
            guard feedback.contains("transport-cc") else { return nil }
            return extensions.first { $0.value == OfferSummary.transportWideCCURI }?.key
        }

        /// The offered encodings that are codecs (no repair streams).
        var mediaCodecs: [String] { codecs.filter { !CodecSupport.repairEncodings.contains($0) } }

        /// An m-line from the values of its attributes, as the SDP has them:
        /// `rtpmap` ("111 OPUS/48000/2"), `fmtp` ("111 minptime=10;useinbandfec=1"),
        /// `rtcp-fb` ("96 nack pli"), `extmap` ("3 http://…" or "3/sendrecv http://…");
        /// `firstFormat`: the first payload type of the m-line, the door's preference.
        init(kind: String, mid: String?, rtpmap: [String], fmtp: [String], rtcpFeedback: [String], extmap: [String],
             firstFormat: String?) {
            self.kind = kind
            self.mid = mid
            payloadTypes = [:]
            for value in rtpmap {
                let parts = value.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, let pt = Int(parts[0]) else { continue }
                let name = parts[1].split(separator: "/").first.map { $0.uppercased() } ?? ""
                if payloadTypes[name] == nil { payloadTypes[name] = pt }
                if !codecs.contains(name) { codecs.append(name) }
                encodings[pt] = name
            }
            for value in fmtp {
                let parts = value.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, let pt = Int(parts[0]) else { continue }
                for pair in parts[1].split(separator: ";") {
                    let keyValue = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
                    if keyValue.count == 2 { formatParameters[pt, default: [:]][keyValue[0].lowercased()] = keyValue[1] }
                }
            }
            for value in rtcpFeedback {
                let parts = value.split(separator: " ", maxSplits: 1)
                if parts.count == 2 { feedback.insert(parts[1].lowercased()) }
            }
            for value in extmap {
                let parts = value.split(separator: " ")
                if parts.count >= 2, let id = parts[0].split(separator: "/", omittingEmptySubsequences: false).first.flatMap({ Int($0) }),
                   (1...14).contains(id) {
                    extensions[id] = String(parts[1])
                }
            }
            let first = firstFormat.flatMap { Int($0) }
            preferredCodec = first.flatMap { pt in payloadTypes.first { $0.value == pt }?.key }
        }
    }

    package var lines: [MediaLine]

    static let transportWideCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

    package init(sdp: String) throws {
        // The C parser asserts on an empty text (also one that starts with NUL).
        guard sdp.utf8.first.map({ $0 != 0 }) ?? false else {
            throw MediaError.negotiation("the door's offer is empty")
        }
        var message: UnsafeMutablePointer<GstSDPMessage>?
        guard gst_sdp_message_new_from_text(sdp, &message) == GST_SDP_OK, let message else {
            throw MediaError.negotiation("the door's offer is not valid SDP")
        }
        defer { gst_sdp_message_free(message) }
        lines = (0..<gst_sdp_message_medias_len(message)).compactMap { index in
            gst_sdp_message_get_media(message, index).map(Self.line)
        }
        if lines.isEmpty { throw MediaError.negotiation("the door's offer has no media") }
    }

    /// One m-line of the parsed SDP, its attributes read as text.
    private static func line(_ media: UnsafePointer<GstSDPMedia>) -> MediaLine {
        func values(_ attribute: String) -> [String] {
            var result: [String] = []
            while let value = gst_sdp_media_get_attribute_val_n(media, attribute, guint(result.count)) {
                result.append(String(cString: value))
            }
            return result
        }
        let firstFormat = gst_sdp_media_formats_len(media) > 0 ? gst_sdp_media_get_format(media, 0).map { String(cString: $0) } : nil
        return MediaLine(kind: gst_sdp_media_get_media(media).map { String(cString: $0) } ?? "",
                         mid: gst_sdp_media_get_attribute_val(media, "mid").map { String(cString: $0) },
                         rtpmap: values("rtpmap"), fmtp: values("fmtp"), rtcpFeedback: values("rtcp-fb"),
                         extmap: values("extmap"), firstFormat: firstFormat)
    }

    package var audioLineIndex: Int? { lines.firstIndex { $0.kind == "audio" } }
    /// The voice codecs of the audio m-line, sorted.
    var audioCodecs: [String] {
        guard let index = audioLineIndex else { return [] }
        return lines[index].payloadTypes.keys.filter { !AudioCodecs.auxiliary.contains($0) }.sorted()
    }
    package var hasVideo: Bool { lines.contains { $0.kind == "video" } }

    var videoLineIndex: Int? { lines.firstIndex { $0.kind == "video" } }
    /// Whether the door repairs its video by retransmission (it asks for NACK feedback).
    var videoAsksForRetransmissions: Bool { videoLineIndex.map { lines[$0].feedback.contains("nack") } ?? false }
    /// The video encodings the door offers, in its order (no repair streams).
    var offeredVideoCodecs: [String] { lines.first { $0.kind == "video" }?.mediaCodecs ?? [] }

    /// The video codec we answer: one this machine can depayload and decode
    /// (asked of the GStreamer registry), cheapest to decode first — a
    /// hardware decoder, then VP8, VP9, software H.264, anything else the
    /// registry plays. Nil when the door offers nothing we can play: the
    /// video m-line is declined and the call goes on with audio.
    var videoCodec: String? { Self.chooseVideoCodec(offeredVideoCodecs) }

    static func chooseVideoCodec(_ offered: [String], playable: (String) -> CodecSupport.Playable? = { CodecSupport.playable($0, media: "video") }) -> String? {
        let candidates = offered.compactMap(playable)
        func cost(_ codec: CodecSupport.Playable) -> Int {
            if codec.hardware { return 0 }
            return ["VP8": 1, "VP9": 2, "H264": 3][codec.encodingName] ?? 4
        }
        // Stable: among equals, the door's order.
        return candidates.enumerated().min { (cost($0.element), $0.offset) < (cost($1.element), $1.offset) }?.element.encodingName
    }
    var audioCodec: String? { lines.first { $0.kind == "audio" }?.preferredCodec }

    /// `{video-depay}`: RTP to the coded stream as received, for recording.
    /// VP8 waits for a keyframe so the muxer sees the final caps first.
    package var videoDepayloader: String {
        switch videoCodec {
        case "H264": return "rtph264depay ! h264parse"
        case "VP9": return "rtpvp9depay"
        default: return "rtpvp8depay wait-for-keyframe=true"
        }
    }

    /// `{video-decoder}`: what decodebin would take for the door's video now
    /// (`VideoDecoders`: ranks, `--decoder`, decoders given up), else the
    /// software decoder.
    package var chosenVideoDecoder: String {
        videoCodec.flatMap { VideoDecoders.choice(for: $0)?.name } ?? videoDecoder
    }

    /// The software decoder for the door's video (the visitor's snapshot:
    /// a second hardware decoder may not exist, on a Pi 4 it does not).
    package var videoDecoder: String {
        switch videoCodec {
        case "H264": return "avdec_h264"
        case "VP9": return "vp9dec"
        case "VP8", nil: return "vp8dec"
        case let other?: return CodecSupport.playable(other, media: "video")?.decoder ?? "vp8dec"
        }
    }

    /// `{audio-depay}`: RTP to the coded audio as received.
    package var audioDepayloader: String {
        switch audioCodec {
        case "PCMU": return "rtppcmudepay"
        case "PCMA": return "rtppcmadepay"
        default: return "rtpopusdepay"
        }
    }

    package func mid(forLine index: UInt32) -> String? {
        Int(index) < lines.count ? lines[Int(index)].mid : nil
    }

    /// The encoder chain and RTP caps for our audio toward the door, in the
    /// order we prefer: Opus, then G.711 µ-law, then A-law.
    package func audioSendChain() -> (encoder: String, caps: String)? {
        guard let index = audioLineIndex else { return nil }
        let types = lines[index].payloadTypes
        if let pt = types["OPUS"] {
            // The door's wishes for what it receives (RFC 7587): in-band FEC, DTX.
            let wishes = lines[index].formatParameters[pt] ?? [:]
            let fec = wishes["useinbandfec"] == "1" ? " inband-fec=true packet-loss-percentage=10" : ""
            let dtx = wishes["usedtx"] == "1" ? " dtx=true" : ""
            return ("opusenc\(fec)\(dtx) ! rtpopuspay pt=\(pt)",
                    "application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000,payload=\(pt)")
        }
        if let pt = types["PCMU"] {
            return ("mulawenc ! rtppcmupay pt=\(pt)",
                    "application/x-rtp,media=audio,encoding-name=PCMU,clock-rate=8000,payload=\(pt)")
        }
        if let pt = types["PCMA"] {
            return ("alawenc ! rtppcmapay pt=\(pt)",
                    "application/x-rtp,media=audio,encoding-name=PCMA,clock-rate=8000,payload=\(pt)")
        }
        return nil
    }
}
