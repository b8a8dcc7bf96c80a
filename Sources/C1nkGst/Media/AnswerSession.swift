import CGStreamer
import Foundation
import Synchronization

/// One answered offer: a pipeline of its own, built from the call's pipeline
/// description with `webrtcbin` added beside its elements, and torn down
/// completely when the call ends.
///
/// Receives the door's video and audio, sends the microphone. Both audio
/// directions sit behind muted `volume` gates until `setAudioEnabled(true)`,
/// and the microphone's source is not even opened before then. The door's
/// audio plays through the process's `SpeakerOutput` (`{audio-sink}` is a
/// `proxysink` into its mixer); a failing microphone or speaker is reported
/// with `onAudioProblem` and the call goes on without it.
public final class AnswerSession {
    public let callId: String

    public var onAnswer: ((String) -> Void)?
    public var onLocalCandidate: ((IceCandidate) -> Void)?
    public var onConnected: (() -> Void)?
    /// The connection went to disconnected, failed or closed after it had
    /// connected; `onConnected` follows if it comes back.
    public var onDisconnected: (() -> Void)?
    public var onFirstFrame: (() -> Void)?
    /// Negotiation or pipeline failure; the session is unusable.
    public var onFailure: ((String) -> Void)?
    /// Audio that cannot work (a device that cannot open, a codec we cannot
    /// decode): the call goes on without it.
    public var onAudioProblem: ((String) -> Void)?
    /// Something the user should know while the call goes on (e.g. the
    /// door's video cannot be played here and was declined).
    public var onWarning: ((String) -> Void)?
    /// Whether the answer carries the door's video (false: declined, audio only).
    public private(set) var videoAccepted = false
    /// The recording branch failed (disk full, a write error): the recording
    /// ended with what was written, the call goes on.
    public var onRecordingFailed: ((String) -> Void)?

    /// Video frames that passed `video-out` (a measurement probe counts them).
    public var framesRendered: Int { frameCounter.value.load(ordering: .relaxed) }
    /// Loudest level (dBFS RMS) the speaker played since audio was enabled,
    /// and while it was still gated.
    public private(set) var speakerPeakWhileEnabled = -Double.infinity
    public private(set) var speakerPeakWhileGated = -Double.infinity
    public private(set) var audioEnabled: Bool
    /// The file this call is recorded to, when recording.
    public private(set) var recordingPath: String?
    /// Why the recording stopped early, if it did.
    public private(set) var recordingError: String?
    private var recordingBranch: RecordingBranch?
    /// Latency figures so far, with `MediaConfiguration.measure`.
    public var measurements: MeasurementProbes.Summary? {
        guard var summary = probes?.summary() else { return nil }
        func span(_ from: Double?, _ to: Double?) -> Double? { from.flatMap { a in to.map { ($0 - a) * 1000 } } }
        summary.setupMs = ["offerToAnswer": span(offerAt, answerAt), "answerToConnected": span(answerAt, connectedAt),
                           "connectedToFirstFrame": span(connectedAt, firstFrameAt)].compactMapValues { $0 }
        return summary
    }
    /// Monotonic seconds of the set-up steps, for `measurements`.
    private let offerAt = MainContext.monotonicSeconds()
    private var answerAt: Double?
    private var connectedAt: Double?
    private var firstFrameAt: Double?
    private var probes: MeasurementProbes?

    private let log = Log.media
    private let offer: OfferSummary
    private let inputs = PadTable()
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let webrtc: WebRTCBin
    private var busWatch: BusWatch?
    private let frameCounter = FrameCounter()
    private let keyframeCounter = FrameCounter()
    private var repairWatch: SignalConnection?
    /// Keyframe requests (PLI/FIR) sent to the door: ours at link and those
    /// of the depayloader and decoder after loss.
    public var keyframeRequests: Int { keyframeCounter.value.load(ordering: .relaxed) }
    /// Holds the microphone back until its webrtcbin pad exists (after the
    /// remote description); pushing into an unlinked pad would stop it.
    private var microphoneHold: (pad: UnsafeMutablePointer<GstPad>, probe: gulong)?
    private var recordingFinished: (() -> Void)?
    private var recordingClosed = false
    private var stopped = false
    private var pipelineReleased = false
    private var connected = false
    private var microphoneMuted = false
    private var gatheredRelay = false
    let speaker: SpeakerOutput
    private var speakerInput: SpeakerInput?
    private let voice: VoiceProcessing
    /// The microphone's sources, held in NULL until audio is enabled.
    private var microphoneSources: [UnsafeMutablePointer<GstElement>] = []
    private var microphoneOpen = false
    private var microphoneFailed = false
    /// Elements of the two audio branches: their errors are audio problems.
    private var microphoneElements: [UnsafeMutablePointer<GstElement>] = []
    private var speakerElements: [UnsafeMutablePointer<GstElement>] = []
    private var audioElements: [UnsafeMutablePointer<GstElement>] { microphoneElements + speakerElements }
    private var audioProblemsReported: Set<String> = []
    /// Loudest door (speaker gate) and resident (microphone gate) levels since the last `takeLevels()`.
    private var doorLevel = -Double.infinity
    private var residentLevel = -Double.infinity
    /// Whether the door's audio can be decoded here; false: answered inactive.
    public private(set) var audioDecodable = true

    /// `speaker`: the process's speaker; nil gives the session one of its own
    /// on `configuration.audioSink`.
    public init(callId: String, offer sdp: String, configuration: MediaConfiguration, audioEnabled: Bool,
                speaker: SpeakerOutput? = nil) throws {
        GStreamer.initialize()
        self.callId = callId
        self.audioEnabled = audioEnabled
        offer = try OfferSummary(sdp: sdp)
        self.speaker = try speaker ?? SpeakerOutput(sink: configuration.audioSink)
        voice = configuration.voice

        var values = configuration.userValues
        values["audio-sink"] = "proxysink name=\(Self.speakerFeedName)"
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
        let keyframeCounter = self.keyframeCounter
        do {
            webrtc = try WebRTCBin(name: "webrtc", ice: configuration.ice, latencyMilliseconds: configuration.latencyMilliseconds) { pad in
                // Streaming thread: link to what was prepared before the answer, and return.
                let media = Gst.capsField(pad, "media") ?? "?"
                guard let target = inputs.pad(for: media) else { return }
                let result = gst_pad_link(pad, target)
                if result != GST_PAD_LINK_OK {
                    MainContext.post { Log.media.warning("call \(callLabel): cannot link the door's \(media) (\(result.rawValue))") }
                } else if media == "video" {
                    KeyframeRequests.count(on: pad, into: keyframeCounter)
                    // The door's first keyframe may have gone before the
                    // connection was up: ask for one now rather than wait
                    // for its next scheduled one.
                    gst_pad_send_event(pad, gst_video_event_new_upstream_force_key_unit(GstClockTime.max, 1, 0))
                }
            }
        } catch {
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
            throw error
        }
        gst_bin_add(bin, webrtc.element)
        self.speaker.align(pipeline)
        prepareAudio()
        if configuration.measure {
            probes = MeasurementProbes()
            probes?.attach(to: pipeline)
            probes?.keyframeRequests = { [keyframeCounter] in keyframeCounter.value.load(ordering: .relaxed) }
        }
        repairWatch = VideoRepair.watch(pipeline)
        prepareInputs()
        prepareOutputs()
        if configuration.renderImmediately && !Self.setsSync(configuration) {
            renderImmediately()
        }
        applyGates()
        if offer.hasVideo && offer.videoCodec == nil {
            // The video will be declined: the sinks of the description's
            // video branch will never see a buffer, and sinks waiting to
            // preroll would hold the whole pipeline (audio too) in PAUSED.
            for sink in Gst.sinks(of: pipeline) where ObjectProperty.has(UnsafeMutableRawPointer(sink), "async") {
                ObjectProperty.set(UnsafeMutableRawPointer(sink), "async", "false")
            }
        }

        let turnServers = configuration.ice.turnServers
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
    static let speakerFeedName = "c1nk-speaker-feed"
    /// Measurement: onsets of tone bursts at the src pad of the element
    /// `name` (e.g. an `identity` after a test microphone), as captured.
    public func onsetProbe(at name: String) -> AudioOnsetProbe? {
        AudioOnsetProbe.attach(to: name, in: pipeline, timing: .capture)
    }

    /// The call's pipeline, for tests that inspect its elements.
    var pipelineForTests: UnsafeMutablePointer<GstElement> { pipeline }

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

    public var isMicrophoneMuted: Bool { microphoneMuted }
    /// Whether the microphone's source is open (only after audio is enabled).
    public var isMicrophoneOpen: Bool { microphoneOpen }

    /// The loudest door and resident levels (dBFS RMS) since the last call.
    public func takeLevels() -> (door: Double, resident: Double) {
        defer { doorLevel = -.infinity; residentLevel = -.infinity }
        return (doorLevel, residentLevel)
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
        guard recordingPath != nil, !recordingClosed, recordingError == nil else {
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
            let undecodable = media == "audio" && !audioDecodable
            if !undecodable, let input = Gst.find("\(media)-in", in: pipeline) {
                inputs.set(media, gst_element_get_static_pad(input, "sink"))
                gst_object_unref(UnsafeMutableRawPointer(input))
            } else if media == "audio" ? offer.audioLineIndex != nil : offer.hasVideo {
                let discard = gst_element_factory_make("fakesink", "discard-\(media)")!
                ObjectProperty.set(UnsafeMutableRawPointer(discard), "sync", "false")
                ObjectProperty.set(UnsafeMutableRawPointer(discard), "async", "false")
                gst_bin_add(bin, discard)
                inputs.set(media, gst_element_get_static_pad(discard, "sink"))
            }
        }
    }

    /// Sets `sync=false` on every sink fed from `video-out` — also the
    /// real sinks inside a `--sink` bin and behind a tee (see
    /// `MediaConfiguration.renderImmediately`).
    private func renderImmediately() {
        guard let output = Gst.find("video-out", in: pipeline) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(output)) }
        guard let source = gst_element_get_static_pad(output, "src") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(source)) }
        for sink in DownstreamSinks.from(source) where ObjectProperty.has(UnsafeMutableRawPointer(sink), "sync") {
            ObjectProperty.set(UnsafeMutableRawPointer(sink), "sync", "false")
        }
    }

    /// Whether the user's description of the video branch says `sync=`
    /// itself: the `--sink` value, or the pipeline's lines from `video-out` on.
    static func setsSync(_ configuration: MediaConfiguration) -> Bool {
        if configuration.videoSink.contains("sync=") { return true }
        guard let lines = (try? configuration.resolvedPipeline())?.lines,
              let start = lines.firstIndex(where: { $0.contains("video-out") }) else { return false }
        var branch = [lines[start]]
        for line in lines[(start + 1)...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("!") else { break }
            branch.append(trimmed)
        }
        let text = branch.joined(separator: " ")
        return text.components(separatedBy: "video-out").dropFirst().joined().contains("sync=")
    }

    /// An element of the call's pipeline by name (a new reference), for
    /// diagnostics and tests.
    func element(named name: String) -> UnsafeMutablePointer<GstElement>? { Gst.find(name, in: pipeline) }

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
        if let recordingPath {
            watchRecordingEnd(path: recordingPath)
            recordingBranch = RecordingBranch(pipeline: pipeline, path: recordingPath)
            if let muxer = recordingBranch?.muxer { UntimedBufferStamp.install(on: muxer) }
        }
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
        negotiateVideo()
        do {
            try releaseMicrophone()
        } catch {
            return fail("\(error)")
        }
        if videoAccepted, let index = offer.videoLineIndex, offer.lines[index].feedback.contains("nack") {
            // webrtcbin 1.22 sets each jitterbuffer of a bundle to the NACK
            // setting of every transceiver in turn, the last one winning: all
            // must agree. (Audio offers no RTX; its NACKs go unanswered.)
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
    private func negotiateVideo() {
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
        let caps = "application/x-rtp,media=video,encoding-name=\(codec),payload=\(line.payloadTypes[codec] ?? 96),clock-rate=90000"
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
    private func releaseMicrophone() throws {
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

    private func connectionStateChanged(_ state: GstWebRTCPeerConnectionState) {
        guard !stopped else { return }
        log.debug("call \(callId): connection state \(state.rawValue)")
        switch state {
        case GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED:
            if !connected {
                connected = true
                connectedAt = MainContext.monotonicSeconds()
                dumpGraph("connected")
                onConnected?()
            }
        case GST_WEBRTC_PEER_CONNECTION_STATE_DISCONNECTED, GST_WEBRTC_PEER_CONNECTION_STATE_FAILED,
             GST_WEBRTC_PEER_CONNECTION_STATE_CLOSED:
            if connected {
                // Lost mid-call: the call decides how long to wait for it (or a fresh offer).
                connected = false
                onDisconnected?()
            } else if state == GST_WEBRTC_PEER_CONNECTION_STATE_FAILED {
                fail("the WebRTC connection to the door failed (no ICE path: check --stun/--turn and --ice-local-ip)")
            }
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
        firstFrameAt = MainContext.monotonicSeconds()
        dumpGraph("first-frame")
        onFirstFrame?()
    }

    /// Only the recording ends: its file is closed as it is, the call goes on.
    private func recordingFailed(_ reason: String) {
        guard recordingError == nil, !stopped else { return }
        recordingError = reason
        recordingBranch?.close()
        log.warning("call \(callId): the recording stopped: \(reason)")
        onRecordingFailed?(reason)
    }

    private func fail(_ reason: String) {
        guard !stopped else { return }
        log.warning("call \(callId): \(reason)")
        onFailure?(reason)
    }

    // MARK: - Audio gates and levels

    /// Before the pipeline starts: the door's codec, the DSP, the microphone
    /// held closed, the speaker's feed connected.
    private func prepareAudio() {
        let offered = offer.audioCodecs
        if offer.audioLineIndex != nil, !offered.contains(where: AudioCodecs.canDecode) {
            audioDecodable = false
            let text = "the door offers audio only as \(offered.isEmpty ? "nothing known" : offered.joined(separator: ", ")), "
                + "which cannot be decoded here (\(AudioCodecs.decodable().joined(separator: ", "))): the call goes on with video only"
            MainContext.post { [weak self] in self?.reportAudioProblem(text) }
        }
        if offer.audioLineIndex == nil || !audioDecodable, let input = Gst.find("audio-in", in: pipeline) {
            // No door audio will ever come: keep its branch out of the
            // pipeline's state changes (a decodebin waiting for its first
            // buffer would hold the whole call, video included, in PAUSED).
            for element in [input] + PipelineLinks.downstream(of: input, ownOnly: true) {
                gst_element_set_locked_state(element, 1)
            }
            gst_object_unref(UnsafeMutableRawPointer(input))
        }
        for dsp in PipelineLinks.elements(of: pipeline, factory: "webrtcdsp") {
            voice.configure(dsp, probe: speaker.probeName)
        }
        if let gate = Gst.find("microphone", in: pipeline) {
            defer { gst_object_unref(UnsafeMutableRawPointer(gate)) }
            ObjectProperty.set(UnsafeMutableRawPointer(gate), "volume", String(voice.microphoneGain))
            let upstream = PipelineLinks.upstream(of: gate)
            microphoneElements = upstream + [gate] + PipelineLinks.downstream(of: gate, stoppingAt: ["audio-out"])
            // Seed 002: one owner of a device at a time, and the microphone
            // only while talking: its sources stay in NULL until audio is enabled.
            for source in PipelineLinks.sources(upstream) {
                gst_object_ref(UnsafeMutableRawPointer(source))
                gst_element_set_locked_state(source, 1)
                microphoneSources.append(source)
            }
        }
        if let feed = Gst.find(Self.speakerFeedName, in: pipeline) {
            defer { gst_object_unref(UnsafeMutableRawPointer(feed)) }
            speakerElements = PipelineLinks.upstream(of: feed, stoppingAt: ["audio-in"]) + [feed]
            do {
                speakerInput = try speaker.attach(proxySink: feed, name: "call")
            } catch {
                log.warning("call \(callId): \(error)")
            }
        }
    }

    /// Starts the microphone's sources (at accept). A device that cannot
    /// open is reported and the call goes on without it.
    private func openMicrophone() {
        microphoneOpen = true
        for source in microphoneSources {
            gst_element_set_locked_state(source, 0)
            if gst_element_sync_state_with_parent(source) == 0 {
                microphoneBroken("\(Gst.name(source)) would not start")
                return
            }
        }
    }

    private func microphoneBroken(_ reason: String) {
        guard !microphoneFailed else { return }
        microphoneFailed = true
        for source in microphoneSources {
            gst_element_set_locked_state(source, 1)
            gst_element_set_state(source, GST_STATE_NULL)
        }
        reportAudioProblem("the microphone cannot open (\(reason)): the call goes on without it; check --audio-source")
    }

    private func audioBranchFailed(_ message: UnsafeMutablePointer<GstMessage>) {
        let reason = PipelineMessage.describeError(message)
        if microphoneElements.contains(where: { PipelineLinks.isInside(message.pointee.src, $0) }) {
            microphoneBroken(reason)
        } else {
            reportAudioProblem("the door's audio cannot play (\(reason)): the call goes on without it")
        }
    }

    private func reportAudioProblem(_ text: String) {
        guard !stopped, audioProblemsReported.insert(text).inserted else { return }
        log.warning("call \(callId): \(text)")
        onAudioProblem?(text)
    }


    private func applyGates() {
        if audioEnabled && !microphoneOpen && !microphoneFailed { openMicrophone() }
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
            guard let level = AudioLevel.rms(from: message) else { break }
            switch Gst.name(message.pointee.src) {
            case "speaker-level":
                if audioEnabled { speakerPeakWhileEnabled = max(speakerPeakWhileEnabled, level) }
                else { speakerPeakWhileGated = max(speakerPeakWhileGated, level) }
                doorLevel = max(doorLevel, level)
            case "microphone-level":
                residentLevel = max(residentLevel, level)
            default:
                break
            }
        case GST_MESSAGE_ERROR:
            if let branch = recordingBranch, branch.contains(message.pointee.src) {
                recordingFailed(PipelineMessage.describeError(message))
            } else if audioElements.contains(where: { PipelineLinks.isInside(message.pointee.src, $0) }) {
                audioBranchFailed(message)
            } else {
                fail(PipelineMessage.describeError(message))
            }
        case GST_MESSAGE_WARNING:
            log.debug("call \(callId): \(PipelineMessage.describeError(message))")
        case GST_MESSAGE_LATENCY:
            // The door's video and audio branches link once media flows and
            // change the pipeline's latency; sinks must be told, as gst-launch does.
            gst_bin_recalculate_latency(bin)
            speaker.recalculateLatency()
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
        repairWatch?.disconnect()
        busWatch?.remove()
        busWatch = nil
        gst_element_set_state(pipeline, GST_STATE_NULL)
        speakerInput?.remove()
        speakerInput = nil
        for source in microphoneSources { gst_object_unref(UnsafeMutableRawPointer(source)) }
        microphoneSources = []
        microphoneElements = []
        speakerElements = []
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

/// What to say when TURN servers were given but none gave a relay candidate.
enum TurnCheck {
    static func noRelayMessage(_ servers: [String]) -> String {
        let named = servers.map(withoutPassword).joined(separator: ", ")
        return "no TURN server gave a relay candidate (\(named)): wrong user or password, or the server is unreachable; "
            + "the call goes on with the other candidates"
    }

    /// `turn://user:secret@host:port` → `turn://user@host:port`.
    static func withoutPassword(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://") else { return url }
        let credentials = url[scheme.upperBound..<at]
        let user = credentials.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        return url[..<scheme.upperBound] + user + url[at...]
    }
}

/// Counts the keyframe requests that leave toward webrtcbin on its video pad.
enum KeyframeRequests {
    static func count(on pad: UnsafeMutablePointer<GstPad>, into counter: FrameCounter) {
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
            if let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
               gst_video_event_is_force_key_unit(event) != 0 {
                counter.value.add(1, ordering: .relaxed)
            }
            return GST_PAD_PROBE_OK
        }
    }
}

/// Counts frames from a streaming thread.
final class FrameCounter: Sendable {
    let value = Atomic<Int>(0)
}
