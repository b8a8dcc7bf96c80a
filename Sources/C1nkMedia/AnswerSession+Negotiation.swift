import C1nkGLib
import C1nkPipeline
import C1nkProtocol
import CGStreamer
import Foundation

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
        if videoAccepted, let index = offer.videoLineIndex, offer.lines[index].feedback.contains("nack") {
            // webrtcbin 1.22 sets each jitterbuffer of a bundle to the NACK
            // setting of every transceiver in turn, the last one winning: all
            // must agree. (The voice's jitterbuffer is set back when its
            // first packet comes: `VoiceRetransmissions`.)
            webrtc.withTransceivers { all in all.forEach { ObjectProperty.set($0, "do-nack", "true") } }
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

    /// Chooses what the answer says about the door's video: the one codec we
    /// play best (see `OfferSummary.videoCodec`), loss repair the door
    /// offers (NACK with RTX, RED/ULPFEC); or a declined (inactive) m-line
    /// when this machine can play none of the offered codecs, and the call
    /// goes on with audio.
    func negotiateVideo() {
        guard let index = offer.videoLineIndex else { return }
        let line = offer.lines[index]
        let chosen = offer.videoCodec
        // webrtcbin 1.22 makes no transceiver for a received-only m-line
        // until it answers, and then answers with every offered codec. Our
        // own transceiver, with the one codec as its preference, narrows it.
        // An unplayable video is answered `inactive` (see
        // `WebRTCBin.createLocalDescription`), and whatever the door still
        // sends goes to a discarding sink.
        let codec = chosen ?? line.mediaCodecs.first ?? "VP8"
        var caps = "application/x-rtp,media=video,encoding-name=\(codec),payload=\(line.payloadTypes[codec] ?? 96),clock-rate=90000"
        // webrtcbin 1.22 answers only the header extensions its preferences
        // name; without this one a browser door gets no congestion feedback
        // it can use, and its estimate stays at its start value.
        if chosen != nil, let id = line.transportWideCCExtension {
            caps += ",extmap-\(id)=(string)\"\(OfferSummary.transportWideCCURI)\""
        }
        guard let preferences = gst_caps_from_string(caps) else { return }
        defer { gst_caps_unref(preferences) }
        if let transceiver = c1nk_emit_add_transceiver(UnsafeMutableRawPointer(webrtc.element), GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_RECVONLY, preferences) {
            if chosen != nil {
                if line.feedback.contains("nack") { ObjectProperty.set(transceiver, "do-nack", "true") }
                if line.payloadTypes["RED"] != nil, line.payloadTypes["ULPFEC"] != nil {
                    ObjectProperty.set(transceiver, "fec-type", "ulp-red")
                }
            }
            gst_object_unref(transceiver)
        }
        videoAccepted = chosen != nil
        if chosen == nil {
            let discard = gst_element_factory_make("fakesink", "declined-video")!
            ObjectProperty.set(UnsafeMutableRawPointer(discard), "sync", "false")
            // Added while playing: a sink that must preroll would hold the whole pipeline back.
            ObjectProperty.set(UnsafeMutableRawPointer(discard), "async", "false")
            gst_bin_add(bin, discard)
            gst_element_sync_state_with_parent(discard)
            inputs.set("video", gst_element_get_static_pad(discard, "sink"))
            let offered = line.mediaCodecs.isEmpty ? "none" : line.mediaCodecs.joined(separator: ", ")
            onWarning?("the door's video cannot be played here: it offers \(offered), and this machine has no "
                       + "GStreamer depayloader and decoder for any of them (gst-inspect-1.0 lists what is installed); "
                       + "the call goes on with audio only")
        }
    }

    /// Links `audio-out` to the sink pad of the audio m-line and lets the
    /// microphone flow. The pad is requested after the remote description:
    /// that makes the answer `sendrecv` for audio (an added transceiver would
    /// become a second, unused one).
    func releaseMicrophone() throws {
        guard let (source, probe) = microphoneHold else { return }
        microphoneHold = nil
        defer {
            gst_pad_remove_probe(source, probe)
            gst_object_unref(UnsafeMutableRawPointer(source))
        }
        if audioDecodable, let index = offer.audioLineIndex, offer.audioSendChain() != nil {
            guard let sinkPad = gst_element_request_pad_simple(webrtc.element, "sink_\(index)") else {
                throw MediaError.negotiation("webrtcbin gave no sink pad for the audio m-line \(index)")
            }
            defer { gst_object_unref(UnsafeMutableRawPointer(sinkPad)) }
            let result = gst_pad_link(source, sinkPad)
            guard result == GST_PAD_LINK_OK else {
                throw MediaError.negotiation("cannot link audio-out to webrtcbin (\(result.rawValue))")
            }
        } else {
            if audioDecodable && offer.audioLineIndex != nil {
                log.warning("call \(callId): the door offers no audio we can send (Opus, PCMU, PCMA); receiving only")
            }
            let discard = gst_element_factory_make("fakesink", "discard-microphone")!
            // No preroll: the microphone may be closed, and a sink waiting for
            // its first buffer would hold the whole call in PAUSED.
            ObjectProperty.set(UnsafeMutableRawPointer(discard), "async", "false")
            ObjectProperty.set(UnsafeMutableRawPointer(discard), "sync", "false")
            gst_bin_add(bin, discard)
            gst_element_sync_state_with_parent(discard)
            let sinkPad = gst_element_get_static_pad(discard, "sink")!
            gst_pad_link(source, sinkPad)
            gst_object_unref(UnsafeMutableRawPointer(sinkPad))
        }
    }
}
