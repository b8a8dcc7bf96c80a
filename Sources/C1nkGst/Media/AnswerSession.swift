import CGStreamer
import Foundation
import Synchronization

/// One answered offer: a pipeline of its own, built from the call's pipeline
/// description with `webrtcbin` added beside its elements, and torn down
/// completely when the call ends.
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

    /// Video frames that passed `video-out` (a measurement probe counts them).
    public var framesRendered: Int { frameCounter.value.load(ordering: .relaxed) }
    /// Loudest level (dBFS RMS) the speaker played since audio was enabled,
    /// and while it was still gated.
    public private(set) var speakerPeakWhileEnabled = -Double.infinity
    public private(set) var speakerPeakWhileGated = -Double.infinity
    public private(set) var audioEnabled: Bool
    /// The file this call is recorded to, when recording.
    public private(set) var recordingPath: String?
    /// Latency figures so far, with `MediaConfiguration.measure`.
    public var measurements: MeasurementProbes.Summary? { probes?.summary() }
    private var probes: MeasurementProbes?

    private let log = Log.media
    private let offer: OfferSummary
    private let inputs = PadTable()
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let webrtc: WebRTCBin
    private var busWatch: BusWatch?
    private let frameCounter = FrameCounter()
    /// Holds the microphone back until its webrtcbin pad exists (after the
    /// remote description); pushing into an unlinked pad would stop it.
    private var microphoneHold: (pad: UnsafeMutablePointer<GstPad>, probe: gulong)?
    private var recordingFinished: (() -> Void)?
    private var recordingClosed = false
    private var stopped = false
    private var pipelineReleased = false
    private var connected = false
    private var microphoneMuted = false

    public init(callId: String, offer sdp: String, configuration: MediaConfiguration, audioEnabled: Bool) throws {
        GStreamer.initialize()
        self.callId = callId
        self.audioEnabled = audioEnabled
        offer = try OfferSummary(sdp: sdp)

        var values = configuration.userValues
        values["video-depay"] = offer.videoDepayloader
        values["video-decoder"] = offer.videoDecoder
        values["audio-depay"] = offer.audioDepayloader
        values["audio-encoder"] = offer.audioSendChain().map { "\($0.encoder) ! capsfilter caps=\"\($0.caps)\"" }
            ?? PipelineDescription.standInValues["audio-encoder"]
        if let recording = configuration.recording {
            let file = recording.file(callId: callId, videoCodec: offer.videoCodec) { [log] note in
                log.warning("call \(callId): \(note)")
            }
            values["record-location"] = file.path
            values["record-muxer"] = file.container.muxer
            if !recording.discards { recordingPath = file.path }
        }
        pipeline = try configuration.resolvedPipeline().build(values)
        gst_object_set_name(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstObject.self), "c1nk-call")

        let inputs = self.inputs
        let callLabel = callId
        do {
            webrtc = try WebRTCBin(name: "webrtc", ice: configuration.ice, latencyMilliseconds: configuration.latencyMilliseconds) { pad in
                // Streaming thread: link to what was prepared before the answer, and return.
                let media = Gst.capsField(pad, "media") ?? "?"
                guard let target = inputs.pad(for: media) else { return }
                let result = gst_pad_link(pad, target)
                if result != GST_PAD_LINK_OK {
                    MainContext.post { Log.media.warning("call \(callLabel): cannot link the door's \(media) (\(result.rawValue))") }
                }
            }
        } catch {
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
            throw error
        }
        gst_bin_add(bin, webrtc.element)
        if configuration.measure {
            probes = MeasurementProbes()
            probes?.attach(to: pipeline)
        }
        prepareInputs()
        prepareOutputs()
        if configuration.renderImmediately && !configuration.videoSink.contains("sync=") {
            renderImmediately()
        }
        applyGates()

        webrtc.onLocalCandidate = { [weak self] mline, candidate in
            guard let self, !self.stopped else { return }
            self.onLocalCandidate?(IceCandidate(candidate: candidate, sdpMid: self.offer.mid(forLine: mline), sdpMLineIndex: Int(mline)))
        }
        webrtc.onConnectionState = { [weak self] state in self?.connectionStateChanged(state) }
        busWatch = BusWatch(pipeline) { [weak self] message in self?.busMessage(message) }

        if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            stop()
            throw MediaError.pipeline("the call pipeline would not start; run with GST_DEBUG=c1nk*:5,*:2 to see why")
        }
        webrtc.setRemoteDescription(GST_WEBRTC_SDP_TYPE_OFFER, sdp: sdp) { [weak self] error in
            self?.remoteDescriptionApplied(error)
        }
    }

    private var bin: UnsafeMutablePointer<GstBin> { UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self) }

    /// The caps of the video arriving at `video-out`, once it flows
    /// ("video/x-raw, width=800, …"), for diagnostics.
    public var videoOutCaps: String? {
        guard let element = Gst.find("video-out", in: pipeline) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
        guard let pad = gst_element_get_static_pad(element, "sink") else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        guard let caps = gst_pad_get_current_caps(pad) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
        let text = gst_caps_to_string(caps)!
        defer { g_free(text) }
        return String(cString: text)
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

    /// Tears the pipeline down at once (also a recording being finalised).
    /// Safe to call twice.
    public func stop() {
        stopped = true
        stopPipeline()
    }

    /// Ends the call's media; a recording is finalised first (end of stream
    /// through the muxer, so the file gets its index and duration), for at
    /// most `timeout` seconds. `done` runs on the main context.
    public func finish(timeout: Double = 3, _ done: @escaping () -> Void) {
        guard !stopped else { return done() }
        guard recordingPath != nil, !recordingClosed else {
            stop()
            return done()
        }
        stopped = true
        var timer: GLibTimer?
        let complete = { [weak self] in
            timer?.cancel()
            timer = nil
            guard let self, !self.recordingClosed else { return }
            self.recordingClosed = true
            self.stopPipeline()
            // A call that never got media leaves no empty file behind.
            if let path = self.recordingPath, let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size == 0 {
                try? FileManager.default.removeItem(atPath: path)
                self.recordingPath = nil
            }
            done()
        }
        recordingFinished = complete
        timer = GLibTimer(after: timeout) {
            Log.media.warning("the recording did not finish in \(timeout) s; closing it as it is")
            complete()
        }
        for pad in inputs.all() {
            gst_pad_send_event(pad, gst_event_new_eos())
        }
    }

    deinit { stop() }

    // MARK: - Building

    /// Finds where the door's media enters (`video-in`, `audio-in`); a medium
    /// the description does not take goes to a discarding sink.
    private func prepareInputs() {
        for media in ["video", "audio"] {
            if let input = Gst.find("\(media)-in", in: pipeline) {
                inputs.set(media, gst_element_get_static_pad(input, "sink"))
                gst_object_unref(UnsafeMutableRawPointer(input))
            } else if media == "audio" ? offer.audioLineIndex != nil : offer.hasVideo {
                let discard = gst_element_factory_make("fakesink", "discard-\(media)")!
                ObjectProperty.set(UnsafeMutableRawPointer(discard), "sync", "false")
                gst_bin_add(bin, discard)
                inputs.set(media, gst_element_get_static_pad(discard, "sink"))
            }
        }
    }

    /// Sets `sync=false` on the video sink after `video-out` (see
    /// `MediaConfiguration.renderImmediately`).
    private func renderImmediately() {
        guard let output = Gst.find("video-out", in: pipeline) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(output)) }
        guard let source = gst_element_get_static_pad(output, "src") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(source)) }
        guard let peer = gst_pad_get_peer(source) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(peer)) }
        guard let sink = gst_pad_get_parent_element(peer) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
        if ObjectProperty.has(UnsafeMutableRawPointer(sink), "sync") {
            ObjectProperty.set(UnsafeMutableRawPointer(sink), "sync", "false")
        }
    }

    /// Counts frames at `video-out`, watches the recording's end, and holds
    /// the microphone at `audio-out` until it can be linked to webrtcbin.
    private func prepareOutputs() {
        if let output = Gst.find("video-out", in: pipeline) {
            let pad = gst_element_get_static_pad(output, "sink")!
            let counter = frameCounter
            PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { [weak self] _ in
                // Measurement probe: one atomic increment per frame.
                if counter.value.add(1, ordering: .relaxed).newValue == 1 {
                    MainContext.post { self?.firstFrame() }
                }
                return GST_PAD_PROBE_OK
            }
            gst_object_unref(UnsafeMutableRawPointer(pad))
            gst_object_unref(UnsafeMutableRawPointer(output))
        }
        if let recordingPath { watchRecordingEnd(path: recordingPath) }
        if let output = Gst.find("audio-out", in: pipeline) {
            let pad = gst_element_get_static_pad(output, "src")!
            gst_object_unref(UnsafeMutableRawPointer(output))
            let probe = PadProbe.add(pad, GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM) { _ in GST_PAD_PROBE_OK }
            microphoneHold = (pad, probe)
        }
    }

    /// Calls `recordingFinished` when end of stream reaches the file's sink.
    private func watchRecordingEnd(path: String) {
        for sink in Gst.sinks(of: pipeline) where ObjectProperty.has(UnsafeMutableRawPointer(sink), "location")
            && ObjectProperty.string(UnsafeMutableRawPointer(sink), "location") == path {
            guard let pad = gst_element_get_static_pad(sink, "sink") else { continue }
            PadProbe.add(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) { [weak self] info in
                if let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self), event.pointee.type == GST_EVENT_EOS {
                    MainContext.post { self?.recordingFinished?() }
                }
                return GST_PAD_PROBE_OK
            }
            gst_object_unref(UnsafeMutableRawPointer(pad))
        }
    }

    // MARK: - Negotiation

    private func remoteDescriptionApplied(_ error: String?) {
        guard !stopped else { return }
        if let error { return fail("the door's offer was refused: \(error)") }
        do {
            try releaseMicrophone()
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

    /// Links `audio-out` to the sink pad of the audio m-line and lets the
    /// microphone flow. The pad is requested after the remote description:
    /// that makes the answer `sendrecv` for audio (an added transceiver would
    /// become a second, unused one).
    private func releaseMicrophone() throws {
        guard let (source, probe) = microphoneHold else { return }
        microphoneHold = nil
        defer {
            gst_pad_remove_probe(source, probe)
            gst_object_unref(UnsafeMutableRawPointer(source))
        }
        if let index = offer.audioLineIndex, offer.audioSendChain() != nil {
            guard let sinkPad = gst_element_request_pad_simple(webrtc.element, "sink_\(index)") else {
                throw MediaError.negotiation("webrtcbin gave no sink pad for the audio m-line \(index)")
            }
            defer { gst_object_unref(UnsafeMutableRawPointer(sinkPad)) }
            let result = gst_pad_link(source, sinkPad)
            guard result == GST_PAD_LINK_OK else {
                throw MediaError.negotiation("cannot link audio-out to webrtcbin (\(result.rawValue))")
            }
        } else {
            log.warning("call \(callId): the door offers no audio we can send (Opus, PCMU, PCMA); receiving only")
            let discard = gst_element_factory_make("fakesink", "discard-microphone")!
            gst_bin_add(bin, discard)
            gst_element_sync_state_with_parent(discard)
            let sinkPad = gst_element_get_static_pad(discard, "sink")!
            gst_pad_link(source, sinkPad)
            gst_object_unref(UnsafeMutableRawPointer(sinkPad))
        }
    }

    private func connectionStateChanged(_ state: GstWebRTCPeerConnectionState) {
        guard !stopped else { return }
        log.debug("call \(callId): connection state \(state.rawValue)")
        switch state {
        case GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED:
            if !connected {
                connected = true
                dumpGraph("connected")
                onConnected?()
            }
        case GST_WEBRTC_PEER_CONNECTION_STATE_FAILED:
            fail("the WebRTC connection to the door failed (no ICE path: check --stun/--turn and --ice-local-ip)")
        default:
            break
        }
    }

    /// Writes the running graph as a .dot file when GST_DEBUG_DUMP_DOT_DIR is set.
    private func dumpGraph(_ moment: String) {
        gst_debug_bin_to_dot_file(bin, GST_DEBUG_GRAPH_SHOW_ALL, "c1nk-call-\(callId)-\(moment)")
    }

    private func firstFrame() {
        guard !stopped else { return }
        dumpGraph("first-frame")
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
        case GST_MESSAGE_LATENCY:
            // The door's video and audio branches link once media flows and
            // change the pipeline's latency; sinks must be told, as gst-launch does.
            gst_bin_recalculate_latency(bin)
        default:
            break
        }
    }

    /// Releases the pipeline; runs once, whoever asks first.
    private func stopPipeline() {
        guard !pipelineReleased else { return }
        pipelineReleased = true
        if let (pad, probe) = microphoneHold {
            gst_pad_remove_probe(pad, probe)
            gst_object_unref(UnsafeMutableRawPointer(pad))
            microphoneHold = nil
        }
        webrtc.disconnect()
        busWatch?.remove()
        busWatch = nil
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
}

/// The pads that receive the door's media, by medium ("video", "audio"):
/// written on the main context before the answer, read on the streaming
/// thread that announces a receiving pad.
final class PadTable: @unchecked Sendable {
    private let lock = NSLock()
    private var pads: [String: UnsafeMutablePointer<GstPad>] = [:]

    func set(_ media: String, _ pad: UnsafeMutablePointer<GstPad>?) {
        lock.lock()
        defer { lock.unlock() }
        if let old = pads[media] { gst_object_unref(UnsafeMutableRawPointer(old)) }
        pads[media] = pad
    }

    func pad(for media: String) -> UnsafeMutablePointer<GstPad>? {
        lock.lock()
        defer { lock.unlock() }
        return pads[media]
    }

    func all() -> [UnsafeMutablePointer<GstPad>] {
        lock.lock()
        defer { lock.unlock() }
        return Array(pads.values)
    }

    deinit { pads.values.forEach { gst_object_unref(UnsafeMutableRawPointer($0)) } }
}

/// Counts frames from a streaming thread.
final class FrameCounter: Sendable {
    let value = Atomic<Int>(0)
}
