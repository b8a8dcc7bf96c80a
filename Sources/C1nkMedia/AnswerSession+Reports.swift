import C1nkGLib
import C1nkPipeline
import CGStreamer

/// What the connection and the pipeline report during a call: the
/// connection's changes (`ConnectionChange`), the first frame, and the bus's
/// messages, errors sent to whichever part of the call they belong to.
extension AnswerSession {
    /// Where an error on the bus comes from: only the recording, only one
    /// of the audio directions (the call goes on without them), or the call.
    enum ErrorOrigin: Equatable { case recording, microphone, speaker, call }

    func connectionStateChanged(_ state: GstWebRTCPeerConnectionState) {
        guard !stopped else { return }
        log.debug("call \(callId): connection state \(state.rawValue)")
        switch ConnectionChange(state, wasConnected: connected) {
        case .connected:
            connected = true
            connectedAt = MainContext.monotonicSeconds()
            dumpGraph("connected")
            onConnected?()
        case .lost:
            connected = false
            onDisconnected?()
        case .failedToConnect:
            fail("the WebRTC connection to the door failed (no ICE path: check --stun/--turn and --ice-local-ip)")
        case .nothing:
            break
        }
    }

    /// Writes the running graph as a .dot file when GST_DEBUG_DUMP_DOT_DIR is set.
    func dumpGraph(_ moment: String) {
        gst_debug_bin_to_dot_file(bin.binPointer, GST_DEBUG_GRAPH_SHOW_ALL, "c1nk-call-\(callId)-\(moment)")
    }

    func firstFrame() {
        guard !stopped else { return }
        firstFrameAt = MainContext.monotonicSeconds()
        dumpGraph("first-frame")
        onFirstFrame?()
        if let decoder = currentVideoDecoder() { onDecoder?(decoder.name, decoder.hardware, nil, nil) }
    }

    func fail(_ reason: String) {
        guard !stopped else { return }
        log.warning("call \(callId): \(reason)")
        onFailure?(reason)
    }

    func busMessage(_ message: UnsafeMutablePointer<GstMessage>) {
        switch message.pointee.type {
        case GST_MESSAGE_ELEMENT:
            levelMessage(message)
        case GST_MESSAGE_ERROR:
            let reason = PipelineMessage.describeError(message)
            if retiredDecoders.contains(where: { PipelineLinks.isInside(message.pointee.src, $0.pointer) }) { return }
            if let failed = failedVideoDecoder(message.pointee.src) {
                replaceVideoDecoder(at: failed.index, failed: failed.decoder, reason: reason)
                return
            }
            switch errorOrigin(message.pointee.src) {
            case .recording: recordingFailed(reason)
            case .microphone: microphoneBroken(reason)
            case .speaker: reportAudioProblem("the door's audio cannot play (\(reason)): the call goes on without it")
            case .call: fail(reason)
            }
        case GST_MESSAGE_WARNING:
            log.debug("call \(callId): \(PipelineMessage.describeError(message))")
        case GST_MESSAGE_LATENCY:
            // The door's video and audio branches link once media flows and
            // change the pipeline's latency; sinks must be told, as gst-launch does.
            pipeline.recalculateLatency()
            speaker.recalculateLatency()
        default:
            break
        }
    }

    /// The part of the call an error's source lies in: the recording's
    /// branch, then the microphone's, then the speaker's, else the call.
    func errorOrigin(_ source: UnsafeMutablePointer<GstObject>?) -> ErrorOrigin {
        func inside(_ elements: [Element]) -> Bool { elements.contains { PipelineLinks.isInside(source, $0.pointer) } }
        if let branch = recordingBranch, branch.contains(source) { return .recording }
        if inside(microphoneElements) { return .microphone }
        if inside(speakerElements) { return .speaker }
        return .call
    }
}
