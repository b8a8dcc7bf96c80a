import CGStreamer
import Synchronization

/// One answered offer: a pipeline of its own around `webrtcbin`, built from
/// the configuration's descriptions and torn down completely by `stop()`.
///
/// Receives the door's video and audio, sends the microphone. Both audio
/// directions sit behind muted `volume` gates until `setAudioEnabled(true)`.
public final class AnswerSession {
    public let callId: String

    public var onAnswer: ((String) -> Void)?
    public var onLocalCandidate: ((IceCandidate) -> Void)?
    public var onConnected: (() -> Void)?
    public var onFirstFrame: (() -> Void)?
    /// Negotiation or pipeline failure; the session is unusable.
    public var onFailure: ((String) -> Void)?

    /// Video buffers that reached the sink (a measurement probe counts them).
    public var framesRendered: Int { frameCounter.value.load(ordering: .relaxed) }
    /// Loudest level (dBFS RMS) the speaker played since audio was enabled,
    /// and while it was still gated.
    public private(set) var speakerPeakWhileEnabled = -Double.infinity
    public private(set) var speakerPeakWhileGated = -Double.infinity
    public private(set) var audioEnabled: Bool

    private let log = Log.media
    private let configuration: MediaConfiguration
    private let offer: OfferSummary
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let webrtc: WebRTCBin
    private var busWatch: BusWatch?
    private let frameCounter = FrameCounter()
    private var stopped = false
    private var connected = false
    private var microphoneMuted = false

    public init(callId: String, offer sdp: String, configuration: MediaConfiguration, audioEnabled: Bool) throws {
        GStreamer.initialize()
        self.callId = callId
        self.configuration = configuration
        self.audioEnabled = audioEnabled
        offer = try OfferSummary(sdp: sdp)
        pipeline = gst_pipeline_new("c1nk-call")
        gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))

        // Receive bins are built before negotiation so that the streaming
        // thread that announces a receiving pad only has to link it.
        var receivers: [String: UnsafeMutablePointer<GstElement>] = [:]
        do {
            if offer.hasVideo {
                receivers["video"] = try PipelineBin.make(
                    MediaConfiguration.fill(configuration.videoReceive, ["sink": configuration.videoSink]), name: "video-receive", input: true)
            }
            if offer.audioLineIndex != nil {
                let audio = try PipelineBin.make(
                    MediaConfiguration.fill(configuration.audioReceive, ["audio-sink": configuration.audioSink]), name: "audio-receive", input: true)
                receivers["audio"] = audio
                guard let gate = Gst.find("speaker", in: audio) else {
                    gst_object_unref(UnsafeMutableRawPointer(audio))
                    throw MediaError.badConfiguration("the audio receive pipeline has no volume element named 'speaker' (the gate that keeps the door silent until you accept)")
                }
                gst_object_unref(UnsafeMutableRawPointer(gate))
            }
        } catch {
            receivers.values.forEach { gst_object_unref(UnsafeMutableRawPointer($0)) }
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
            throw error
        }
        let sinkPads = receivers.mapValues { gst_element_get_static_pad($0, "sink")! }
        let callLabel = callId
        webrtc = try WebRTCBin(name: "webrtc", ice: configuration.ice, latencyMilliseconds: configuration.latencyMilliseconds) { pad in
            // Streaming thread: link and return.
            let media = Gst.capsField(pad, "media") ?? "?"
            guard let target = sinkPads[media] else { return }
            let result = gst_pad_link(pad, target)
            if result != GST_PAD_LINK_OK {
                MainContext.post { Log.media.warning("call \(callLabel): cannot link the door's \(media) (\(result.rawValue))") }
            }
        }
        for (_, pad) in sinkPads { gst_object_unref(UnsafeMutableRawPointer(pad)) }

        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        gst_bin_add(bin, webrtc.element)
        for (_, receiver) in receivers {
            gst_bin_add(bin, receiver)
            gst_object_unref(UnsafeMutableRawPointer(receiver)) // the pipeline holds it now
        }
        if let videoBin = receivers["video"], let sink = Gst.sinks(of: videoBin).first,
           let sinkPad = gst_element_get_static_pad(sink, "sink") {
            let counter = frameCounter
            PadProbe.add(sinkPad, GST_PAD_PROBE_TYPE_BUFFER) { [weak self] _ in
                // Measurement probe: one atomic increment per frame.
                if counter.value.add(1, ordering: .relaxed).newValue == 1 {
                    MainContext.post { self?.firstFrame() }
                }
                return GST_PAD_PROBE_OK
            }
            gst_object_unref(UnsafeMutableRawPointer(sinkPad))
        }

        webrtc.onLocalCandidate = { [weak self] mline, candidate in
            guard let self, !self.stopped else { return }
            self.onLocalCandidate?(IceCandidate(candidate: candidate, sdpMid: self.offer.mid(forLine: mline), sdpMLineIndex: Int(mline)))
        }
        webrtc.onConnectionState = { [weak self] state in self?.connectionStateChanged(state) }
        busWatch = BusWatch(pipeline) { [weak self] message in self?.busMessage(message) }

        if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            stopPipeline()
            throw MediaError.pipeline("the call pipeline would not start; run with GST_DEBUG=c1nk*:5,*:2 to see why")
        }
        webrtc.setRemoteDescription(GST_WEBRTC_SDP_TYPE_OFFER, sdp: sdp) { [weak self] error in
            self?.remoteDescriptionApplied(error)
        }
    }

    /// Adds a candidate from the door.
    public func addRemoteCandidate(_ candidate: IceCandidate) {
        guard !stopped else { return }
        webrtc.addRemoteCandidate(mlineIndex: UInt32(max(0, candidate.sdpMLineIndex)), candidate: candidate.candidate)
    }

    /// Opens (or closes) both audio gates: microphone to the door, door to the speaker.
    public func setAudioEnabled(_ enabled: Bool) {
        audioEnabled = enabled
        applyGates()
    }

    /// Mutes the microphone alone (the door stays audible).
    public func setMicrophoneMuted(_ muted: Bool) {
        microphoneMuted = muted
        applyGates()
    }

    /// Tears the pipeline down. Safe to call twice.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        stopPipeline()
    }

    deinit { stop() }

    // MARK: - Negotiation

    private func remoteDescriptionApplied(_ error: String?) {
        guard !stopped else { return }
        if let error { return fail("the door's offer was refused: \(error)") }
        do {
            try attachMicrophone()
        } catch {
            return fail("\(error)")
        }
        webrtc.createLocalDescription(GST_WEBRTC_SDP_TYPE_ANSWER) { [weak self] result in
            guard let self, !self.stopped else { return }
            switch result {
            case .success(let sdp): self.onAnswer?(sdp)
            case .failure(let error): self.fail("\(error)")
            }
        }
    }

    /// Requests the sink pad of the audio m-line after the remote description:
    /// that makes the answer `sendrecv` for audio (an added transceiver would
    /// become a second, unused one).
    private func attachMicrophone() throws {
        guard let index = offer.audioLineIndex else { return }
        guard let chain = offer.audioSendChain() else {
            log.warning("call \(callId): the door offers no audio codec we can send (Opus, PCMU, PCMA); receiving only")
            return
        }
        let description = MediaConfiguration.fill(configuration.audioSend, ["audio-source": configuration.audioSource,
                                                                         "encoder": chain.encoder])
            + " ! capsfilter name=\(PipelineBin.outputName) caps=\"\(chain.caps)\""
        let bin = try PipelineBin.make(description, name: "audio-send", output: true)
        guard let gate = Gst.find("microphone", in: bin) else {
            gst_object_unref(UnsafeMutableRawPointer(bin))
            throw MediaError.badConfiguration("the audio send pipeline has no volume element named 'microphone' (the gate that keeps the microphone off until you accept)")
        }
        gst_object_unref(UnsafeMutableRawPointer(gate))
        guard let sinkPad = gst_element_request_pad_simple(webrtc.element, "sink_\(index)") else {
            gst_object_unref(UnsafeMutableRawPointer(bin))
            throw MediaError.negotiation("webrtcbin gave no sink pad for the audio m-line \(index)")
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(sinkPad)) }
        gst_bin_add(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), bin)
        gst_object_unref(UnsafeMutableRawPointer(bin)) // the pipeline holds it now
        applyGates()
        let source = gst_element_get_static_pad(bin, "src")!
        defer { gst_object_unref(UnsafeMutableRawPointer(source)) }
        let result = gst_pad_link(source, sinkPad)
        guard result == GST_PAD_LINK_OK else {
            throw MediaError.negotiation("cannot link the microphone to webrtcbin (\(result.rawValue))")
        }
        gst_element_sync_state_with_parent(bin)
    }

    private func connectionStateChanged(_ state: GstWebRTCPeerConnectionState) {
        guard !stopped else { return }
        log.debug("call \(callId): connection state \(state.rawValue)")
        switch state {
        case GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED:
            if !connected { connected = true; onConnected?() }
        case GST_WEBRTC_PEER_CONNECTION_STATE_FAILED:
            fail("the WebRTC connection to the door failed (no ICE path: check --stun/--turn and --ice-local-ip)")
        default:
            break
        }
    }

    private func firstFrame() {
        guard !stopped else { return }
        onFirstFrame?()
    }

    private func fail(_ reason: String) {
        guard !stopped else { return }
        log.warning("call \(callId): \(reason)")
        onFailure?(reason)
    }

    // MARK: - Audio gates and levels

    private func applyGates() {
        setMute("microphone", !audioEnabled || microphoneMuted)
        setMute("speaker", !audioEnabled)
    }

    private func setMute(_ name: String, _ muted: Bool) {
        guard let element = Gst.find(name, in: pipeline) else { return }
        ObjectProperty.set(UnsafeMutableRawPointer(element), "mute", muted ? "true" : "false")
        gst_object_unref(UnsafeMutableRawPointer(element))
    }

    private func busMessage(_ message: UnsafeMutablePointer<GstMessage>) {
        switch message.pointee.type {
        case GST_MESSAGE_ELEMENT:
            if let level = AudioLevel.rms(from: message), Gst.name(message.pointee.src) == "speaker-level" {
                if audioEnabled { speakerPeakWhileEnabled = max(speakerPeakWhileEnabled, level) }
                else { speakerPeakWhileGated = max(speakerPeakWhileGated, level) }
            }
        case GST_MESSAGE_ERROR:
            fail(PipelineMessage.describeError(message))
        case GST_MESSAGE_WARNING:
            log.debug("call \(callId): \(PipelineMessage.describeError(message))")
        default:
            break
        }
    }

    private func stopPipeline() {
        webrtc.disconnect()
        busWatch?.remove()
        busWatch = nil
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
}

/// Counts frames from a streaming thread.
final class FrameCounter: Sendable {
    let value = Atomic<Int>(0)
}
