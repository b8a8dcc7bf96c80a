import C1nkGLib
import C1nkMedia
import C1nkPipeline
import C1nkProtocol
import CGStreamer

extension DoorMediaSession {
    /// Links `source`'s "src" to webrtcbin's `sink_<index>`: the m-line's order in the offer.
    func link(_ source: Element, toLine index: Int) throws {
        guard let sinkPad = webrtcElement.requestPad("sink_\(index)") else {
            throw MediaError.negotiation("webrtcbin gave no sink_\(index)")
        }
        guard let sourcePad = source.staticPad("src"), sourcePad.link(sinkPad) == GST_PAD_LINK_OK else {
            throw MediaError.negotiation("cannot link \(source.name) to webrtcbin")
        }
    }

    /// The direction of transceiver `index` (in the order its pad was
    /// requested: video, then audio). Video is send-only (a door shows
    /// itself, it watches nobody); audio both ways.
    static func direction(ofTransceiver index: Int) -> String { index == 0 ? "sendonly" : "sendrecv" }

    /// Sets each transceiver's direction, and the video's repair: NACK with
    /// RTX unless the door only resends keyframes, RED/ULPFEC with `fec`.
    func setDirections() {
        guard let transceivers = c1nk_emit_get_transceivers(webrtcElement.object) else { return }
        defer { g_array_unref(transceivers) }
        let items = transceivers.pointee.data.withMemoryRebound(to: UnsafeMutableRawPointer?.self,
                                                               capacity: Int(transceivers.pointee.len)) { pointer in
            (0..<Int(transceivers.pointee.len)).compactMap { pointer[$0] }
        }
        for (index, transceiver) in items.enumerated() {
            ObjectProperty.set(transceiver, "direction", Self.direction(ofTransceiver: index))
            if index == 0 {
                // As real doors do: answer NACK with RTX (and PLI with a
                // keyframe, which rtpsession asks of the encoder upstream).
                ObjectProperty.set(transceiver, "do-nack", nack ? "true" : "false")
                if fec { ObjectProperty.set(transceiver, "fec-type", "ulp-red") }
            }
        }
    }

    /// webrtcbin asks for negotiation once per transceiver; one offer covers them all.
    func makeOffer() {
        guard !stopped, !offered else { return }
        offered = true
        webrtc.createLocalDescription(GST_WEBRTC_SDP_TYPE_OFFER) { [weak self] result in
            guard let self, !self.stopped else { return }
            switch result {
            case .success(let sdp):
                if let summary = try? OfferSummary(sdp: sdp) { self.learn(from: summary) }
                self.onOffer?(sdp)
            case .failure(let error):
                self.onFailure?("\(error)")
            }
        }
    }

    /// What the offer decided and the door needs later: each m-line's mid
    /// (for candidates) and the video's payload types, codec and repair (for
    /// the impaired link).
    private func learn(from summary: OfferSummary) {
        for (index, line) in summary.lines.enumerated() { mids[UInt32(index)] = line.mid }
        if let video = summary.lines.first(where: { $0.kind == "video" }) {
            let repair = Set(video.encodings.filter { $0.value == "RTX" }.keys)
            impairedLink?.setPayloadTypes(video: Set(video.encodings.keys).subtracting(repair), retransmission: repair)
        }
    }

    public func applyAnswer(_ sdp: String) {
        webrtc.setRemoteDescription(GST_WEBRTC_SDP_TYPE_ANSWER, sdp: sdp) { [weak self] error in
            if let error { self?.onFailure?("the answer was refused: \(error)") }
        }
    }

    public func addRemoteCandidate(_ candidate: IceCandidate) {
        guard !stopped else { return }
        webrtc.addRemoteCandidate(mlineIndex: UInt32(max(0, candidate.sdpMLineIndex)), candidate: candidate.candidate)
    }
}
