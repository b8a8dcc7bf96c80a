import C1nkGLib
import C1nkPipeline
import C1nkProbes
import C1nkProtocol
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
    public internal(set) var videoAccepted = false
    /// The recording branch failed (disk full, a write error): the recording
    /// ended with what was written, the call goes on.
    public var onRecordingFailed: ((String) -> Void)?

    /// Video frames that passed `video-out` (a measurement probe counts them).
    public var framesRendered: Int { frameCounter.value.load(ordering: .relaxed) }
    /// Loudest level (dBFS RMS) the speaker played since audio was enabled,
    /// and while it was still gated.
    public internal(set) var speakerPeakWhileEnabled = -Double.infinity
    public internal(set) var speakerPeakWhileGated = -Double.infinity
    public internal(set) var audioEnabled: Bool
    /// The file this call is recorded to, when recording.
    public internal(set) var recordingPath: String?
    /// Why the recording stopped early, if it did.
    public internal(set) var recordingError: String?
    var recordingBranch: RecordingBranch?
    /// Latency figures so far, with `MediaConfiguration.measure`.
    public var measurements: MeasurementProbes.Summary? {
        guard var summary = probes?.summary() else { return nil }
        func span(_ from: Double?, _ to: Double?) -> Double? { from.flatMap { a in to.map { ($0 - a) * 1000 } } }
        summary.setupMs = ["offerToAnswer": span(offerAt, answerAt), "answerToConnected": span(answerAt, connectedAt),
                           "connectedToFirstFrame": span(connectedAt, firstFrameAt),
                           // offerToAnswer's steps (see `Mark`).
                           "answerBuild": span(offerAt, marks[.built]), "answerPrepare": span(marks[.built], marks[.prepared]),
                           "answerStart": span(marks[.prepared], marks[.started]),
                           "answerRemoteDescription": span(marks[.started], marks[.remoteDescription]),
                           "answerCreate": span(marks[.remoteDescription], answerAt)].compactMapValues { $0 }
        return summary
    }
    /// Monotonic seconds of the set-up steps, for `measurements`.
    let offerAt = MainContext.monotonicSeconds()
    var answerAt: Double?
    /// The steps between offer and answer: the pipeline built from its text
    /// (and webrtcbin made), prepared (pads, probes, gates), started
    /// (PLAYING), the remote description applied (back on the main
    /// context); the answer created is `answerAt`.
    enum Mark { case built, prepared, started, remoteDescription }
    var marks: [Mark: Double] = [:]
    func mark(_ step: Mark) { marks[step] = MainContext.monotonicSeconds() }
    var connectedAt: Double?
    var firstFrameAt: Double?
    var probes: MeasurementProbes?

    let log = Log.media
    let offer: OfferSummary
    let inputs = PadTable()
    let pipeline: OwnedPipeline
    /// What the next call's standby pipeline is built from (see `CallPipelineStandby`).
    let standbyRecipe: (description: PipelineDescription, values: [String: String])
    /// Whether this call took the standby pipeline (built before the offer).
    let builtFromStandby: Bool
    let webrtc: WebRTCBin
    let frameCounter = FrameCounter()
    let keyframeCounter = FrameCounter()
    let earlyKeyframe = FrameCounter()
    /// Whether the first keyframe request left at the door's first video
    /// packet, before webrtcbin's video pad appeared (1) or only then (0).
    var keyframeAskedAtFirstPacket: Bool { earlyKeyframe.value.load(ordering: .relaxed) == 1 }
    var repairWatch: SignalConnection?
    /// The video jitterbuffers' latency once the door's video flows (see
    /// `MediaConfiguration.videoRepairWindowMilliseconds`); nil: the call's.
    let videoRepairWindow: UInt?
    /// The window in force, and what widens it as repairs take longer (`RepairWindow`).
    var currentRepairWindow: UInt = 0
    var repairWindowFollower: GLibTimer?
    /// Keyframe requests (PLI/FIR) sent to the door: ours at link and those
    /// of the depayloader and decoder after loss.
    public var keyframeRequests: Int { keyframeCounter.value.load(ordering: .relaxed) }
    /// Holds the microphone back until its webrtcbin pad exists (after the
    /// remote description); pushing into an unlinked pad would stop it.
    var microphoneHold: (pad: UnsafeMutablePointer<GstPad>, probe: gulong)?
    var recordingFinished: (() -> Void)?
    var recordingClosed = false
    var stopped = false
    var connected = false
    var microphoneMuted = false
    var gatheredRelay = false
    let speaker: SpeakerOutput
    var speakerInput: SpeakerInput?
    let voice: VoiceProcessing
    /// The microphone's sources, held in NULL until audio is enabled.
    var microphoneSources: [UnsafeMutablePointer<GstElement>] = []
    var microphoneOpen = false
    var microphoneFailed = false
    /// Elements of the two audio branches: their errors are audio problems.
    var microphoneElements: [UnsafeMutablePointer<GstElement>] = []
    var speakerElements: [UnsafeMutablePointer<GstElement>] = []
    var audioElements: [UnsafeMutablePointer<GstElement>] { microphoneElements + speakerElements }
    var audioProblemsReported: Set<String> = []
    /// Loudest door (speaker gate) and resident (microphone gate) levels since the last `takeLevels()`.
    var doorLevel = -Double.infinity
    var residentLevel = -Double.infinity
    /// Whether the door's audio can be decoded here; false: answered inactive.
    public internal(set) var audioDecodable = true

    /// `speaker`: the process's speaker; nil gives the session one of its own
    /// on `configuration.audioSink`.
    public init(callId: String, offer sdp: String, configuration: MediaConfiguration, audioEnabled: Bool,
                speaker: SpeakerOutput? = nil) throws {
        GStreamer.initialize()
        self.callId = callId
        self.audioEnabled = audioEnabled
        offer = try OfferSummary(sdp: sdp)
        self.speaker = try speaker ?? SpeakerOutput(sink: configuration.audioSink, callLatencyMilliseconds: configuration.latencyMilliseconds)
        voice = configuration.voice
        // Read once: the description may be read from its file.
        let rendersAtOnce = configuration.renderImmediately && !Self.setsSync(configuration)
        if rendersAtOnce, let index = offer.videoLineIndex, offer.lines[index].feedback.contains("nack"),
           configuration.videoRepairWindowMilliseconds > configuration.latencyMilliseconds {
            videoRepairWindow = configuration.videoRepairWindowMilliseconds
        } else {
            videoRepairWindow = nil
        }

        let values = Self.pipelineValues(callId: callId, offer: offer, configuration: configuration, log: log)
        recordingPath = values.recordingPath
        let description = try configuration.resolvedPipeline()
        standbyRecipe = (description, values.values)
        let ready = CallPipelineStandby.take(description, values: values.values)
        builtFromStandby = ready != nil
        if let ready {
            pipeline = OwnedPipeline(adopting: ready)
            gst_object_set_name(UnsafeMutableRawPointer(ready).assumingMemoryBound(to: GstObject.self), "c1nk-call")
        } else {
            pipeline = try OwnedPipeline(description, values: values.values, name: "c1nk-call")
        }

        let inputs = self.inputs
        let callLabel = callId
        let keyframeCounter = self.keyframeCounter
        let earlyKeyframe = self.earlyKeyframe
        // The payload types of the door's video (its codec and repair streams).
        let summary = offer
        let videoTypes = Set(summary.videoLineIndex.map { summary.lines[$0].encodings.keys.map { $0 } } ?? [])
        let voiceTypes = Set(summary.audioLineIndex.map { summary.lines[$0].encodings.keys.map { $0 } } ?? [])
        let playsVideo = summary.videoCodec != nil
        do {
            webrtc = try WebRTCBin(name: "webrtc", ice: configuration.ice, latencyMilliseconds: configuration.latencyMilliseconds,
                                   onNewStream: { jitterbuffer, _ in
                // Streaming thread: a new stream of the door; its first
                // packet's payload type says which.
                RTPFirstPacket.onPayloadType(of: jitterbuffer) { payloadType, sink in
                    if voiceTypes.contains(payloadType) {
                        VoiceRetransmissions.turnOff(at: sink)
                    } else if playsVideo, videoTypes.contains(payloadType) {
                        // The door's first keyframe may have gone before the
                        // connection was up: ask for one now rather than wait
                        // for its next scheduled one (or the jitterbuffer's latency).
                        KeyframeRequests.requestEarly(at: sink, counter: keyframeCounter)
                    }
                }
            }) { pad in
                // Streaming thread: link to what was prepared before the answer, and return.
                let media = Gst.capsField(pad, "media") ?? "?"
                guard let target = inputs.pad(for: media) else { return }
                let result = gst_pad_link(pad, target)
                if result != GST_PAD_LINK_OK {
                    MainContext.post { Log.media.warning("call \(callLabel): cannot link the door's \(media) (\(result.rawValue))") }
                } else if media == "video" {
                    let early = keyframeCounter.value.load(ordering: .relaxed) > 0
                    KeyframeRequests.count(on: pad, into: keyframeCounter)
                    // Unless the request at the first packet went out (see onNewStream).
                    if early {
                        earlyKeyframe.value.store(1, ordering: .relaxed)
                    } else {
                        gst_pad_send_event(pad, gst_video_event_new_upstream_force_key_unit(GstClockTime.max, 1, 0))
                    }
                }
            }
        } catch {
            pipeline.release()
            throw error
        }
        gst_bin_add(bin, webrtc.element)
        mark(.built)
        self.speaker.align(pipeline.element)
        prepareAudio()
        if configuration.measure {
            probes = MeasurementProbes()
            probes?.attach(to: pipeline.element)
            probes?.keyframeRequests = { [keyframeCounter] in keyframeCounter.value.load(ordering: .relaxed) }
        }
        repairWatch = VideoRepair.watch(pipeline.element)
        prepareInputs()
        watchVideoForRepairWindow()
        prepareOutputs()
        if rendersAtOnce {
            renderImmediately()
            playAudioOnArrival()
        }
        applyGates()
        if offer.hasVideo && offer.videoCodec == nil {
            // The video will be declined: the sinks of the description's
            // video branch will never see a buffer, and sinks waiting to
            // preroll would hold the whole pipeline (audio too) in PAUSED.
            for sink in Gst.sinks(of: pipeline.element) where ObjectProperty.has(UnsafeMutableRawPointer(sink), "async") {
                ObjectProperty.set(UnsafeMutableRawPointer(sink), "async", "false")
            }
        }

        watchCandidates(turnServers: configuration.ice.turnServers)
        webrtc.onConnectionState = { [weak self] state in self?.connectionStateChanged(state) }
        pipeline.watchBus { [weak self] message in self?.busMessage(message) }

        mark(.prepared)
        if !pipeline.start() {
            stop()
            throw MediaError.pipeline("the call pipeline would not start; run with GST_DEBUG=c1nk*:5,*:2 to see why")
        }
        mark(.started)
        webrtc.setRemoteDescription(GST_WEBRTC_SDP_TYPE_OFFER, sdp: sdp) { [weak self] error in
            self?.remoteDescriptionApplied(error)
        }
    }

    var bin: UnsafeMutablePointer<GstBin> { pipeline.bin }
    static let speakerFeedName = "c1nk-speaker-feed"
    /// Measurement: onsets of tone bursts at the src pad of the element
    /// `name` (e.g. an `identity` after a test microphone), as captured.
    public func onsetProbe(at name: String) -> AudioOnsetProbe? {
        AudioOnsetProbe.attach(to: name, in: pipeline.element, timing: .capture)
    }

    /// The call's pipeline, for tests that inspect its elements.
    var pipelineForTests: UnsafeMutablePointer<GstElement> { pipeline.element }

    /// The caps of the video arriving at `video-out`, once it flows
    /// ("video/x-raw, width=800, …"), for diagnostics.
    public var videoOutCaps: String? {
        guard let element = Gst.find("video-out", in: pipeline.element) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
        guard let pad = gst_element_get_static_pad(element, "sink") else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        guard let caps = gst_pad_get_current_caps(pad) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
        let text = gst_caps_to_string(caps)!
        defer { g_free(text) }
        return String(cString: text)
    }

    /// Tears the pipeline down at once (also a recording being finalised).
    /// Safe to call twice.
    public func stop() {
        stopped = true
        repairWindowFollower = nil
        stopPipeline()
    }

    deinit { stop() }

    func connectionStateChanged(_ state: GstWebRTCPeerConnectionState) {
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
    func dumpGraph(_ moment: String) {
        gst_debug_bin_to_dot_file(bin, GST_DEBUG_GRAPH_SHOW_ALL, "c1nk-call-\(callId)-\(moment)")
    }

    func firstFrame() {
        guard !stopped else { return }
        firstFrameAt = MainContext.monotonicSeconds()
        dumpGraph("first-frame")
        onFirstFrame?()
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
            pipeline.recalculateLatency()
            speaker.recalculateLatency()
        default:
            break
        }
    }

    /// Releases the pipeline; runs once, whoever asks first. The next
    /// call's pipeline is built ahead once this teardown is done.
    func stopPipeline() {
        if !pipeline.isReleased {
            CallPipelineStandby.prepare(standbyRecipe.description, values: standbyRecipe.values, after: 0.05)
        }
        pipeline.release(detach: {
            if let (pad, probe) = microphoneHold {
                gst_pad_remove_probe(pad, probe)
                gst_object_unref(UnsafeMutableRawPointer(pad))
                microphoneHold = nil
            }
            webrtc.disconnect()
            repairWatch?.disconnect()
        }, afterNull: {
            speakerInput?.remove()
            speakerInput = nil
            for source in microphoneSources { gst_object_unref(UnsafeMutableRawPointer(source)) }
            microphoneSources = []
            microphoneElements = []
            speakerElements = []
        })
    }
}
