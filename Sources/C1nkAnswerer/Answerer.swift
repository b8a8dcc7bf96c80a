import C1nkCall
import C1nkGLib
import C1nkMedia
import C1nkProtocol
import C1nkSignaling

/// Answers the door: feeds the signaller's events and the user's commands
/// into the call state machine, and performs the actions it returns with a
/// media session, a ringtone, timers and the events log (typed `CallEvent`s).
///
/// It takes any `Signaller` (the libsoup `SignalClient`, or `InMemorySignaller`
/// in tests) and any `CallMediaFactory` (`AnswerSession.factory` by default).
///
/// Everything here runs on the main context (see `MainContext`).
public final class Answerer {
    public enum AnswerMode: String, Sendable { case auto, manual }

    public struct Options {
        public var media = MediaConfiguration()
        public var answerMode = AnswerMode.manual
        /// Auto mode: seconds between the ring and the accept.
        public var answerDelay: Double = 0
        /// Seconds after the accept to open the door / hang up (scripting).
        public var openDoorAfter: Double?
        public var hangupAfter: Double?
        /// Stop after this many calls have ended.
        public var exitAfterCalls: Int?
        /// No WebRTC connection this long after a ring ends the call;
        /// media lost this long mid-call ends it `lost`.
        public var connectTimeout: Double = 10
        /// No `join-ok` this long after a rejoin ends the call `lost`.
        public var rejoinTimeout: Double = 10
        /// No `door-open-ok` this long after `open-door`: `door-open-failed`.
        public var doorOpenTimeout: Double = 5
        /// A server `error` naming our call ends it after this long unless media flows.
        public var serverErrorGrace: Double = 5
        /// The ringtone's audio source description; nil for silence.
        public var ringtone: String? = Ringtone.defaultDescription
        /// `--speaker-volume`: the master volume of everything played (1 = unchanged).
        public var speakerVolume: Double = 1
        /// Seconds between two `levels` events during a call.
        public var levelsInterval: Double = 1
        /// Asked before a call is recorded; a text refuses the recording
        /// (an `error` event) and the call goes on unrecorded.
        public var beforeRecording: (() -> String?)?
        public init() {}
    }

    /// Figures of the last call, for the demo summary and benchmarks.
    public struct CallFigures: Equatable {
        public var callId = ""
        public var ringAt: Double?
        public var mediaConnectedAt: Double?
        public var firstFrameAt: Double?
        public var acceptedAt: Double?
        public var framesRendered = 0
        public var doorOpened = false
        public var endReason: String?
        public var speakerPeakWhileGated = -Double.infinity
        public var speakerPeakWhileEnabled = -Double.infinity

        public var ringToFirstFrame: Double? { firstFrameAt.flatMap { f in ringAt.map { f - $0 } } }
        public var ringToMediaConnected: Double? { mediaConnectedAt.flatMap { m in ringAt.map { m - $0 } } }
    }

    public private(set) var endedCalls = 0
    public private(set) var lastCall = CallFigures()
    /// True once `exitAfterCalls` calls have ended.
    public private(set) var isFinished = false
    public var currentCallId: String? { machine.call?.callId }
    public var currentSession: AnswerSession? { session as? AnswerSession }
    /// The media of the call in progress, whatever made it.
    public var currentMedia: (any CallMedia)? { session }
    /// The call's timers running now (diagnostics and tests).
    public var runningTimers: Set<CallMachine.Timer> { Set(machineTimers.keys) }
    /// Sees every action of the call state machine as it is performed (the
    /// wall display follows the microphone's mute this way).
    public var onAction: ((CallMachine.Action) -> Void)?
    /// The process's one speaker: ringtone, sounds (`speaker?.play(.click)`)
    /// and every call's audio. Nil only if `--audio-sink` cannot be built.
    public let speaker: SpeakerOutput?

    private let signaller: any Signaller
    private let makeMedia: CallMediaFactory
    /// Changed by a reload (SIGHUP); a call in progress keeps what it started with.
    public var options: Options
    private let events: EventLog
    private let log = Log.call
    private var machine = CallMachine()
    private var session: (any CallMedia)?
    private var ringtone: Ringtone?
    /// The state machine's timers for the call in progress.
    private var machineTimers: [CallMachine.Timer: GLibTimer] = [:]
    /// Scripting timers (auto answer, --open-door-after, --hangup-after), per call.
    private var callTimers: [String: [GLibTimer]] = [:]
    private var hasConnectedBefore = false
    private var finishing: [ObjectIdentifier: any CallMedia] = [:]
    /// Recording files announced with a `recording` event and not yet `recorded`.
    private var recordingAnnounced: Set<String> = []
    /// The user's mute, kept across the sessions of one call (a re-offer
    /// builds a new one) and settable while ringing.
    private var microphoneMuted = false
    private var levelsTimer: GLibTimer?
    /// Returns the heap's free pages to the system after each call's teardown.
    private let heapTrim = HeapTrim()

    public init(signaller: any Signaller, options: Options, events: EventLog,
                makeMedia: @escaping CallMediaFactory = AnswerSession.factory) {
        self.signaller = signaller
        self.makeMedia = makeMedia
        self.options = options
        self.events = events
        do {
            speaker = try SpeakerOutput(sink: options.media.audioSink, volume: options.speakerVolume,
                                        callLatencyMilliseconds: options.media.latencyMilliseconds)
        } catch {
            speaker = nil
            Log.media.warning("the speaker: \(error)")
        }
        WebRTCBin.warmUp()
        AnswerSession.prepareStandby(configuration: options.media)
        heapTrim.isQuiet = { [weak self] in
            guard let self else { return true }
            return self.session == nil && self.finishing.isEmpty && self.machine.call == nil
        }
        if let problem = speaker?.problem { events.emit(.error(message: problem)) }
        speaker?.onProblem = { [weak self] problem in
            self?.events.emit(.error(callId: self?.machine.call?.callId, message: problem))
        }
    }

    public func start() {
        signaller.onEvent = { [weak self] event in self?.signalEvent(event) }
        signaller.start()
    }

    /// Ends a call in progress (`hangup`, or `reject` while ringing) and stops.
    public func shutdown() {
        handle(.shutdown)
        MainContext.run(timeout: 5) { finishing.isEmpty }
        // Let the last message leave before the socket closes.
        MainContext.spin(0.2)
        signaller.stop()
        AnswerSession.discardStandby()
    }

    /// One line of manual answering: accept, reject, open, hangup, mute,
    /// unmute, or their first letters. Returns an error text for anything else.
    @discardableResult
    public func command(_ line: String) -> String? {
        let word = line.trimmingCharacters(in: .whitespaces).lowercased()
        let commands: [(String, CallMachine.Event)] = [
            ("accept", .userAccept), ("reject", .userReject), ("open", .userOpenDoor),
            ("hangup", .userHangup), ("mute", .userMute(true)), ("unmute", .userMute(false)),
        ]
        guard !word.isEmpty else { return nil }
        guard let match = commands.first(where: { $0.0 == word || String($0.0.prefix(1)) == word }) else {
            return "unknown command '\(word)'; use accept, reject, open, hangup, mute or unmute (or a, r, o, h, m, u)"
        }
        if machine.call == nil { return "no call in progress" }
        let refusals = handle(match.1)
        return refusals.isEmpty ? nil : refusals.joined(separator: "; ")
    }

    // MARK: - Inputs

    private func signalEvent(_ event: SignalEvent) {
        switch event {
        case .connected:
            events.emit(.connected(server: signaller.serverURL))
            if hasConnectedBefore { handle(.signalingReconnected) }
            hasConnectedBefore = true
        case .ready(let deviceId):
            log.info("hello-ok: registered as device \(deviceId)")
            events.emit(.registered(deviceId: deviceId))
        case .disconnected(let reason):
            events.emit(.disconnected(reason: reason))
            handle(.signalingLost)
        case let .connectFailed(reason, retryIn):
            events.emit(.connectFailed(reason: reason, retryIn: retryIn))
        case .deviceIdAssigned:
            break
        case .protocolError(let error):
            events.emit(.error(message: "server sent a frame we refused: \(error)"))
        case .message(let message):
            serverMessage(message)
        }
    }

    private func serverMessage(_ message: ServerMessage) {
        switch message {
        case let .incoming(callId, doorName): handle(.incoming(callId: callId, doorName: doorName))
        case .joinOk(let callId): handle(.joinOk(callId: callId))
        case let .offer(callId, sdp): handle(.offer(callId: callId, sdp: sdp))
        case let .ice(callId, candidate): handle(.remoteCandidate(callId: callId, candidate: candidate))
        case let .callEnd(callId, reason): handle(.callEnd(callId: callId, reason: reason))
        case .doorOpenOk(let callId): handle(.doorOpenOk(callId: callId))
        case let .error(text, callId):
            events.emit(.error(callId: callId ?? machine.call?.callId, message: "server: \(text)"))
            handle(.serverError(callId: callId, message: text))
        case .welcome, .helloOk, .tokenOk, .pong: break
        }
    }

    /// Performs what the machine answers; returns the refusals to tell the user.
    @discardableResult
    private func handle(_ event: CallMachine.Event) -> [String] {
        var refusals: [String] = []
        for action in machine.handle(event) {
            if case .refuse(let text) = action { refusals.append(text) } else {
                perform(action)
                onAction?(action)
            }
        }
        return refusals
    }

    /// A scripting timer that acts only on the call it was started for.
    private func callTimer(_ callId: String, after seconds: Double, _ event: CallMachine.Event) {
        callTimers[callId, default: []].append(GLibTimer(after: seconds) { [weak self] in
            guard let self, self.machine.call?.callId == callId else { return }
            for refusal in self.handle(event) { self.log.warning("call \(callId): \(refusal)") }
        })
    }

    // MARK: - Actions

    private func perform(_ action: CallMachine.Action) {
        switch action {
        case .emit(let event):
            emitted(event)
        case .signal(let intent):
            signaller.send(intent)
        case .startRingtone:
            guard let source = options.ringtone, let speaker else { return }
            do {
                ringtone = try Ringtone(source: source, speaker: speaker)
            } catch {
                log.warning("ringtone: \(error); ringing silently")
            }
        case .stopRingtone:
            ringtone?.stop()
            ringtone = nil
        case let .startMedia(callId, offer, audioEnabled):
            startMedia(callId: callId, offer: offer, audioEnabled: audioEnabled)
        case let .addRemoteCandidate(_, candidate):
            session?.addRemoteCandidate(candidate)
        case .stopMedia:
            stopMedia()
        case .enableAudio:
            session?.setAudioEnabled(true)
        case .setMicrophoneMuted(let muted):
            microphoneMuted = muted
            session?.setMicrophoneMuted(muted)
        case let .startTimer(timer, callId):
            let seconds: Double
            switch timer {
            case .connect: seconds = options.connectTimeout
            case .rejoin: seconds = options.rejoinTimeout
            case .doorOpen: seconds = options.doorOpenTimeout
            case .serverErrorGrace: seconds = options.serverErrorGrace
            }
            machineTimers[timer] = GLibTimer(after: seconds) { [weak self] in self?.handle(.timeout(timer, callId: callId)) }
        case .cancelTimer(let timer):
            machineTimers[timer] = nil
        case .cancelTimers:
            machineTimers.removeAll()
        case .callAccepted(let callId):
            lastCall.acceptedAt = MainContext.monotonicSeconds()
            if let seconds = options.openDoorAfter { callTimer(callId, after: seconds, .userOpenDoor) }
            if let seconds = options.hangupAfter { callTimer(callId, after: seconds, .userHangup) }
        case .refuse(let text):
            log.warning(text)
        }
    }

    /// Keeps the call's figures and timers in step with what the machine
    /// reports, adds the answerer's own fields, and writes the event.
    private func emitted(_ event: CallEvent) {
        let now = MainContext.monotonicSeconds()
        var event = event
        func sinceRing() -> Int? { lastCall.ringAt.map { Int((now - $0) * 1000) } }
        switch event {
        case let .ringing(callId, doorName):
            lastCall = CallFigures(callId: callId, ringAt: now)
            microphoneMuted = false
            log.info("ringing: \(doorName) (call \(callId))")
            if options.answerMode == .auto { answerAutomatically(callId) }
        case let .missed(callId, doorName, reason):
            // Another ring while busy: the call in progress, its timers and counts stay as they are.
            log.info("missed a ring from \(doorName) (call \(callId)): \(reason)")
        case let .doorOpenFailed(callId, reason):
            log.warning("call \(callId): the door did not open (\(reason.rawValue))")
        case .mediaConnected(let callId, _):
            lastCall.mediaConnectedAt = now
            event = .mediaConnected(callId: callId, sinceRingMs: sinceRing())
        case .firstFrame(let callId, _):
            lastCall.firstFrameAt = now
            event = .firstFrame(callId: callId, sinceRingMs: sinceRing())
        case .doorOpened:
            lastCall.doorOpened = true
        case .accepted(let callId):
            levelsTimer = GLibTimer(after: options.levelsInterval, repeats: true) { [weak self] in self?.emitLevels(callId: callId) }
        case let .ended(callId, reason, doorName, serverReason, _):
            if lastCall.callId == callId {
                lastCall.endReason = reason.rawValue
                event = .ended(callId: callId, reason: reason, doorName: doorName, serverReason: serverReason,
                               frames: lastCall.framesRendered)
            }
            // Only this call's timers: nothing else may be running, but nothing else is ours to stop.
            callTimers[callId] = nil
            levelsTimer = nil
            endedCalls += 1
            log.info("call \(callId) ended: \(reason.rawValue)")
            if let limit = options.exitAfterCalls, endedCalls >= limit { isFinished = true }
        default:
            break
        }
        events.emit(event)
    }

    /// `--answer auto`: accept `answerDelay` seconds after the ring.
    private func answerAutomatically(_ callId: String) {
        callTimer(callId, after: options.answerDelay, .userAccept)
    }

    private func startMedia(callId: String, offer: String, audioEnabled: Bool) {
        stopMedia()
        var media = options.media
        if media.recording != nil, let refusal = options.beforeRecording?() {
            events.emit(.error(callId: callId, message: refusal))
            media.recording = .discard
        }
        do {
            let session = try makeMedia(callId, offer, media, audioEnabled, speaker)
            session.setMicrophoneMuted(microphoneMuted)
            session.onAudioProblem = { [weak self] text in self?.events.emit(.error(callId: callId, message: text)) }
            session.onAnswer = { [weak self, weak session] sdp in
                guard let self else { return }
                if let session, let path = session.recordingPath, self.recordingAnnounced.insert(path).inserted {
                    self.events.emit(.recording(callId: callId, path: path))
                }
                self.handle(.answerCreated(callId: callId, sdp: sdp))
            }
            session.onLocalCandidate = { [weak self] candidate in self?.handle(.localCandidate(callId: callId, candidate: candidate)) }
            session.onConnected = { [weak self] in self?.handle(.mediaConnected(callId: callId)) }
            session.onDisconnected = { [weak self] in self?.handle(.mediaDisconnected(callId: callId)) }
            session.onFirstFrame = { [weak self] in self?.handle(.firstFrame(callId: callId)) }
            session.onFailure = { [weak self] reason in self?.handle(.mediaFailed(callId: callId, reason: reason)) }
            session.onWarning = { [weak self] text in self?.events.emit(.error(callId: callId, message: text)) }
            session.onRecordingFailed = { [weak self, weak session] reason in
                guard let self, let path = session?.recordingPath else { return }
                // The recording ends here; the call goes on.
                self.recordingAnnounced.remove(path)
                self.events.emit(.recorded(callId: callId, path: path, error: reason))
            }
            self.session = session
        } catch {
            log.error("call \(callId): \(error)")
            handle(.mediaFailed(callId: callId, reason: "\(error)"))
        }
    }

    /// The `levels` event: the loudest door and resident levels of the last
    /// interval, dBFS RMS (-100 for silence or a closed gate).
    private func emitLevels(callId: String) {
        guard let session, session.callId == callId else { return }
        let levels = session.takeLevels()
        func dB(_ value: Double) -> Double { value.isFinite ? max(-100, (value * 10).rounded() / 10) : -100 }
        events.emit(.levels(callId: callId, door: dB(levels.door), resident: dB(levels.resident),
                            muted: session.isMicrophoneMuted))
    }

    /// Ends the current media session; a recording is finalised in the
    /// background and reported with a `recorded` event.
    private func stopMedia() {
        guard let session else { return }
        if lastCall.callId == session.callId {
            lastCall.framesRendered += session.framesRendered
            lastCall.speakerPeakWhileGated = max(lastCall.speakerPeakWhileGated, session.speakerPeakWhileGated)
            lastCall.speakerPeakWhileEnabled = max(lastCall.speakerPeakWhileEnabled, session.speakerPeakWhileEnabled)
        }
        self.session = nil
        if let figures = session.measurementFigures {
            events.emit(.measurements(callId: session.callId, figures: figures))
        }
        let key = ObjectIdentifier(session)
        finishing[key] = session
        session.finish(timeout: 3) { [weak self, weak session] in
            guard let self else { return }
            self.finishing[key] = nil
            self.heapTrim.schedule()
            if let session, let path = session.recordingPath, session.recordingError == nil {
                self.recordingAnnounced.remove(path)
                self.events.emit(.recorded(callId: session.callId, path: path))
            }
        }
    }
}
