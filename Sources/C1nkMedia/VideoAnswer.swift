/// What the answer says about the door's video: the one codec we play best
/// (see `OfferSummary.videoCodec`) with the loss repair the door offers
/// (NACK with RTX, RED/ULPFEC); or, when this machine plays none of the
/// offered codecs, a declined (inactive) m-line, and the call goes on with
/// audio. Wired in `AnswerSession.negotiateVideo`.
///
/// webrtcbin 1.22 makes no transceiver for a received-only m-line until it
/// answers, and then answers with every offered codec: our own transceiver,
/// with the one codec as its preference, narrows it.
struct VideoAnswer: Equatable {
    /// The codec answered; nil: the video is declined.
    var codec: String?
    /// The caps of our receive-only transceiver (its codec preference).
    var preferences: String
    /// `do-nack` on the transceiver: the door repairs by retransmission.
    var retransmissions: Bool
    /// `fec-type=ulp-red` on the transceiver: the door sends RED with ULPFEC.
    var forwardErrorCorrection: Bool

    var accepted: Bool { codec != nil }

    init(line: OfferSummary.MediaLine, chosen: String?) {
        codec = chosen
        // A declined video still gets a transceiver (answered inactive, see
        // `WebRTCBin.createLocalDescription`): any codec of the door's names it.
        let named = chosen ?? line.mediaCodecs.first ?? "VP8"
        var caps = "application/x-rtp,media=video,encoding-name=\(named),payload=\(line.payloadTypes[named] ?? 96),clock-rate=90000"
        // webrtcbin 1.22 answers only the header extensions its preferences
        // name; without this one a browser door gets no congestion feedback
        // it can use, and its estimate stays at its start value.
        if chosen != nil, let id = line.transportWideCCExtension {
            caps += ",extmap-\(id)=(string)\"\(OfferSummary.transportWideCCURI)\""
        }
        preferences = caps
        retransmissions = chosen != nil && line.feedback.contains("nack")
        forwardErrorCorrection = chosen != nil && line.payloadTypes["RED"] != nil && line.payloadTypes["ULPFEC"] != nil
    }
}
