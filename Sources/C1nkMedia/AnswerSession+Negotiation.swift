import C1nkGLib
import C1nkPipeline
import C1nkProtocol
import CGStreamer
import FoundationEssentials

/// Negotiation of a call's session: the door's offer applied as the remote
/// description, the video codec chosen (or the video declined), the answer
/// created, the microphone linked to its m-line, and candidates both ways.
extension AnswerSession {
    /// Adds a candidate from the door.
    public func addRemoteCandidate(_ candidate: IceCandidate) {
        guard !stopped else { return }
        webrtc.addRemoteCandidate(mlineIndex: UInt32(max(0, candidate.sdpMLineIndex)), candidate: candidate.candidate)
    }

    /// Reports our candidates (with the offer's mid for their m-line), and
    /// warns when TURN servers were given but none gave a relay candidate.
    func watchCandidates(turnServers: [String]) {
        webrtc.onGatheringState = { [weak self] state in
            guard let self, !self.stopped, state == GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE,
                  !turnServers.isEmpty, !self.gatheredRelay else { return }
            self.onWarning?(TurnCheck.noRelayMessage(turnServers))
        }
        webrtc.onLocalCandidate = { [weak self] mline, candidate in
            guard let self, !self.stopped else { return }
            if candidate.contains(" typ relay") { self.gatheredRelay = true }
            self.onLocalCandidate?(IceCandidate(candidate: candidate, sdpMid: self.offer.mid(forLine: mline), sdpMLineIndex: Int(mline)))
        }
    }

    func remoteDescriptionApplied(_ error: String?) {
        guard !stopped else { return }
        mark(.remoteDescription)
        if let error { return fail("the door's offer was refused: \(error)") }
        negotiateVideo()
        do {
            try releaseMicrophone()
        } catch {
            return fail("\(error)")
        }
        if videoAccepted, offer.videoAsksForRetransmissions {
            // webrtcbin 1.22 sets each jitterbuffer of a bundle to the NACK
            // setting of every transceiver in turn, the last one winning: all
            // must agree. (The voice's jitterbuffer is set back when its
            // first packet comes: `VoiceRetransmissions`.)
            for transceiver in webrtc.transceivers { transceiver.set("do-nack", fromString: "true") }
        }
        var declined: Set<Int> = videoAccepted ? [] : Set([offer.videoLineIndex].compactMap { $0 })
        if !audioDecodable, let index = offer.audioLineIndex { declined.insert(index) }
        webrtc.createLocalDescription(GST_WEBRTC_SDP_TYPE_ANSWER, inactiveLines: declined) { [weak self] result in
            guard let self, !self.stopped else { return }
            switch result {
            case .success(let sdp):
                self.answerAt = MainContext.monotonicSeconds()
                self.onAnswer?(sdp)
            case .failure(let error): self.fail("\(error)")
            }
        }
    }

    /// Answers the door's video as `VideoAnswer` decides: our receive-only
    /// transceiver with the codec and its repairs, or a declined video whose
    /// packets, if the door still sends them, go to a discarding sink.
    func negotiateVideo() {
        guard let index = offer.videoLineIndex else { return }
        let line = offer.lines[index]
        let answer = VideoAnswer(line: line, chosen: offer.videoCodec)
        guard let preferences = Caps(answer.preferences) else { return }
        let made = withExtendedLifetime(preferences) {
            c1nk_emit_add_transceiver(webrtc.webrtcbin.object, GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_RECVONLY, preferences.pointer)
        }
        if let made {
            let transceiver = GObjectReference(adopting: made)
            if answer.retransmissions { transceiver.set("do-nack", fromString: "true") }
            if answer.forwardErrorCorrection { transceiver.set("fec-type", fromString: "ulp-red") }
        }
        videoAccepted = answer.accepted
        if !answer.accepted {
            let discard = Self.discardingSink("declined-video")
            // Added while playing: a sink that must preroll would hold the whole pipeline back.
            bin.add(discard)
            discard.syncStateWithParent()
            inputs.set("video", discard.staticPad("sink"))
            let offered = line.mediaCodecs.isEmpty ? "none" : line.mediaCodecs.joined(separator: ", ")
            onWarning?("the door's video cannot be played here: it offers \(offered), and this machine has no "
                       + "GStreamer depayloader and decoder for any of them (gst-inspect-1.0 lists what is installed); "
                       + "the call goes on with audio only")
        }
    }

    /// A `fakesink` that drops what it gets at once: no clock wait, and no
    /// preroll (a sink waiting for its first buffer would hold the whole call
    /// in PAUSED).
    package static func discardingSink(_ name: String) -> Element {
        let discard = Element.make("fakesink", name: name)!
        discard.set("sync", fromString: "false")
        discard.set("async", fromString: "false")
        return discard
    }

    /// Links `audio-out` to the sink pad of the audio m-line and lets the
    /// microphone flow (`MicrophoneRoute`). The pad is requested after the
    /// remote description: that makes the answer `sendrecv` for audio (an
    /// added transceiver would become a second, unused one).
    func releaseMicrophone() throws {
        guard let (source, probe) = microphoneHold else { return }
        microphoneHold = nil
        defer { source.removeProbe(probe) }
        switch MicrophoneRoute(audioLine: offer.audioLineIndex, decodable: audioDecodable, canEncode: offer.audioSendChain() != nil) {
        case .door(let index):
            guard let sinkPad = webrtc.webrtcbin.requestPad("sink_\(index)") else {
                throw MediaError.negotiation("webrtcbin gave no sink pad for the audio m-line \(index)")
            }
            let result = source.link(sinkPad)
            guard result == GST_PAD_LINK_OK else {
                throw MediaError.negotiation("cannot link audio-out to webrtcbin (\(result.rawValue))")
            }
        case .discard(let noSendCodec):
            if noSendCodec {
                log.warning("call \(callId): the door offers no audio we can send (Opus, PCMU, PCMA); receiving only")
            }
            // The microphone may be closed: the sink must not wait for its first buffer.
            let discard = Self.discardingSink("discard-microphone")
            bin.add(discard)
            discard.syncStateWithParent()
            if let sinkPad = discard.staticPad("sink") { source.link(sinkPad) }
        }
    }
}
