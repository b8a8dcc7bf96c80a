import C1nkGLib
import C1nkPipeline
import C1nkProbes
import C1nkProtocol
import CGStreamer
import FoundationEssentials
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
///
/// Its concepts, one file each: negotiation (`+Negotiation`), the door's
/// streams as they arrive (`+Receiving`), the pipeline's parts
/// (`+PipelineBuilder`), the audio gates (`+AudioGates`), what the
/// connection and the bus report (`+Reports`), the recording's end
/// (`+RecordingFinish`), the set-up figures (`+Measurements`).
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
    /// The visitor's snapshot is on disk (its path), or could not be taken
    /// (why, on `onWarning`): said by the copy that takes it (`attach`).
    public var onSnapshot: ((String) -> Void)?
    /// What copies the call's media elsewhere, stopped with the call (`AnswerSession+Copies`).
    var copies: [CallMediaCopy] = []
    /// Which element decodes the door's video (at the first frame: its name,
    /// whether it is hardware), or which took over from a failed one (then
    /// with the failed one's name and why): see `AnswerSession+DecoderFallback`.
    public var onDecoder: ((_ element: String, _ hardware: Bool, _ failed: String?, _ reason: String?) -> Void)?
    /// Each decodebin or decoder of the door's video, with the errorignore before it.
    var decoderGuards: [DecoderGuard] = []
    /// Decoders replaced during the call: their late errors are not the call's.
    var retiredDecoders: [Element] = []

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
    /// Monotonic seconds of the set-up steps, for `measurements`.
    let offerAt = MainContext.monotonicSeconds()
    var answerAt: Double?
    var marks: [Mark: Double] = [:]
    var connectedAt: Double?
    var firstFrameAt: Double?
    var probes: MeasurementProbes?

    let log = Log.callMedia
    let offer: OfferSummary
    package let inputs = PadTable()
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
    var microphoneHold: (pad: Pad, probe: gulong)?
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
    var microphoneSources: [Element] = []
    var microphoneOpen = false
    var microphoneFailed = false
    /// Elements of the two audio branches: their errors are audio problems.
    var microphoneElements: [Element] = []
    var speakerElements: [Element] = []
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
        if let codec = offer.videoCodec { configuration.videoCodecMemory?.remember(codec) }
        self.speaker = try speaker ?? SpeakerOutput(sink: configuration.audioSink, callLatencyMilliseconds: configuration.latencyMilliseconds)
        voice = configuration.voice
        // Read once: the description may be read from its file.
        let rendersAtOnce = configuration.renderImmediately && !Self.setsSync(configuration)
        videoRepairWindow = RepairWindow.initial(rendersAtOnce: rendersAtOnce, doorRepairs: offer.videoAsksForRetransmissions,
                                                 configured: configuration.videoRepairWindowMilliseconds,
                                                 latency: configuration.latencyMilliseconds)

        let values = Self.pipelineValues(callId: callId, offer: offer, configuration: configuration, log: log)
        recordingPath = values.recordingPath
        let description = try configuration.resolvedPipeline()
        standbyRecipe = (description, values.values)
        if let ready = CallPipelineStandby.take(description, values: values.values) {
            pipeline = ready
            builtFromStandby = true
            ready.pipeline.name = "c1nk-call"
        } else {
            pipeline = try OwnedPipeline(description, values: values.values, name: "c1nk-call")
            builtFromStandby = false
        }
        do {
            webrtc = try Self.makeWebRTC(configuration, streams: DoorStreams(offer: offer), inputs: inputs, callId: callId,
                                         keyframeCounter: keyframeCounter, earlyKeyframe: earlyKeyframe)
        } catch {
            pipeline.release()
            throw error
        }
        bin.add(webrtc.webrtcbin)
        mark(.built)
        self.speaker.align(pipeline.element)
        prepareAudio()
        if configuration.measure {
            probes = MeasurementProbes()
            probes?.attach(to: pipeline.element)
            probes?.keyframeRequests = { [keyframeCounter] in keyframeCounter.value.load(ordering: .relaxed) }
        }
        repairWatch = VideoRepair.watch(bin)
        prepareInputs()
        guardVideoDecoders()
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
            for sink in bin.sinks where sink.has(property: "async") { sink.set("async", fromString: "false") }
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

    /// The call's pipeline (a reference of its own); not after `stopPipeline`.
    var bin: Bin { pipeline.pipeline }
    static let speakerFeedName = "c1nk-speaker-feed"

    /// The call's pipeline, for tests that inspect its elements.
    var pipelineForTests: Bin { bin }

    /// Tears the pipeline down at once (also a recording being finalised).
    /// Safe to call twice.
    public func stop() {
        stopped = true
        repairWindowFollower = nil
        stopPipeline()
    }

    deinit { stop() }

    /// Releases the pipeline; runs once, whoever asks first. The next
    /// call's pipeline is built ahead once this teardown is done.
    func stopPipeline() {
        if !pipeline.isReleased {
            CallPipelineStandby.prepare(standbyRecipe.description, values: standbyRecipe.values, after: 0.05)
        }
        pipeline.release(detach: {
            if let (pad, probe) = microphoneHold {
                pad.removeProbe(probe)
                microphoneHold = nil
            }
            webrtc.disconnect()
            repairWatch?.disconnect()
        }, afterNull: {
            speakerInput?.remove()
            speakerInput = nil
            microphoneSources = []
            microphoneElements = []
            speakerElements = []
            recordingBranch = nil
        })
        stopCopies()
    }
}
