/// Answers the door: feeds the signaling client's events and the user's
/// commands into the call state machine, and performs the actions it returns
/// with a media session, a ringtone, timers and the events log.
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
        /// No WebRTC connection this long after a ring ends the call (seed: 10 s).
        public var connectTimeout: Double = 10
        /// The ringtone's audio source description; nil for silence.
        public var ringtone: String? = Ringtone.defaultDescription
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
    public var currentSession: AnswerSession? { session }
    /// Sees every action of the call state machine as it is performed (the
    /// wall display follows the microphone's mute this way).
    public var onAction: ((CallMachine.Action) -> Void)?

    private let client: SignalClient
    private let options: Options
    private let events: EventLog
    private let log = Log.call
    private var machine = CallMachine()
    private var session: AnswerSession?
    private var ringtone: Ringtone?
    private var connectTimer: GLibTimer?
    private var callTimers: [GLibTimer] = []
    private var hasConnectedBefore = false
    private var finishing: [ObjectIdentifier: AnswerSession] = [:]
    /// Recording files announced with a `recording` event and not yet `recorded`.
    private var recordingAnnounced: Set<String> = []

    public init(client: SignalClient, options: Options, events: EventLog) {
        self.client = client
        self.options = options
        self.events = events
        WebRTCBin.warmUp()
    }

    public func start() {
        client.onEvent = { [weak self] event in self?.signalEvent(event) }
        client.start()
    }

    /// Ends a call in progress (`hangup`, or `reject` while ringing) and stops.
    public func shutdown() {
        handle(.shutdown)
        MainContext.run(timeout: 5) { finishing.isEmpty }
        // Let the last message leave before the socket closes.
        MainContext.spin(0.2)
        client.stop()
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
        handle(match.1)
        return nil
    }

    // MARK: - Inputs

    private func signalEvent(_ event: SignalEvent) {
        switch event {
        case .connected:
            events.emit("connected", fields: ["server": client.configuration.url])
            if hasConnectedBefore { handle(.signalingReconnected) }
            hasConnectedBefore = true
        case .ready(let deviceId):
            log.info("hello-ok: registered as device \(deviceId)")
            events.emit("registered", fields: ["deviceId": deviceId])
        case .disconnected(let reason):
            events.emit("disconnected", fields: ["reason": reason])
        case let .connectFailed(reason, retryIn):
            events.emit("connect-failed", fields: ["reason": reason, "retryIn": retryIn])
        case .deviceIdAssigned:
            break
        case .protocolError(let error):
            events.emit("error", fields: ["message": "server sent a frame we refused: \(error)"])
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
        case .error(let text): events.emit("error", callId: machine.call?.callId, fields: ["message": "server: \(text)"])
        case .welcome, .helloOk, .tokenOk, .pong: break
        }
    }

    private func handle(_ event: CallMachine.Event) {
        for action in machine.handle(event) {
            perform(action)
            onAction?(action)
        }
    }

    // MARK: - Actions

    private func perform(_ action: CallMachine.Action) {
        switch action {
        case let .emit(name, callId, fields):
            emitted(name, callId: callId, fields: fields)
        case .send(let message):
            client.send(message)
        case .startRingtone:
            guard let source = options.ringtone else { return }
            ringtone = try? Ringtone(source: source, sink: options.media.audioSink)
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
            session?.setMicrophoneMuted(muted)
        case .startConnectTimer(let callId):
            connectTimer = GLibTimer(after: options.connectTimeout) { [weak self] in self?.handle(.connectTimeout(callId: callId)) }
        case .cancelConnectTimer:
            connectTimer = nil
        case .callAccepted:
            lastCall.acceptedAt = MainContext.monotonicSeconds()
            if let seconds = options.openDoorAfter {
                callTimers.append(GLibTimer(after: seconds) { [weak self] in self?.handle(.userOpenDoor) })
            }
            if let seconds = options.hangupAfter {
                callTimers.append(GLibTimer(after: seconds) { [weak self] in self?.handle(.userHangup) })
            }
        }
    }

    private func emitted(_ name: String, callId: String, fields: [String: String]) {
        let now = MainContext.monotonicSeconds()
        var extra: [String: Any] = fields
        switch name {
        case "ringing":
            lastCall = CallFigures(callId: callId, ringAt: now)
            log.info("ringing: \(fields["doorName"] ?? "?") (call \(callId))")
            if options.answerMode == .auto {
                callTimers.append(GLibTimer(after: options.answerDelay) { [weak self] in self?.handle(.userAccept) })
            }
        case "media-connected":
            lastCall.mediaConnectedAt = now
            if let ring = lastCall.ringAt { extra["sinceRingMs"] = Int((now - ring) * 1000) }
        case "first-frame":
            lastCall.firstFrameAt = now
            if let ring = lastCall.ringAt { extra["sinceRingMs"] = Int((now - ring) * 1000) }
        case "door-opened":
            lastCall.doorOpened = true
        case "ended":
            if lastCall.callId == callId {
                lastCall.endReason = fields["reason"]
                extra["frames"] = lastCall.framesRendered
            }
            callTimers.removeAll()
            endedCalls += 1
            log.info("call \(callId) ended: \(fields["reason"] ?? "?")")
            if let limit = options.exitAfterCalls, endedCalls >= limit { isFinished = true }
        default:
            break
        }
        events.emit(name, callId: callId, fields: extra)
    }

    private func startMedia(callId: String, offer: String, audioEnabled: Bool) {
        stopMedia()
        do {
            let session = try AnswerSession(callId: callId, offer: offer, configuration: options.media, audioEnabled: audioEnabled)
            session.onAnswer = { [weak self, weak session] sdp in
                guard let self else { return }
                if let session, let path = session.recordingPath, self.recordingAnnounced.insert(path).inserted {
                    self.events.emit("recording", callId: callId, fields: ["path": path])
                }
                self.handle(.answerCreated(callId: callId, sdp: sdp))
            }
            session.onLocalCandidate = { [weak self] candidate in self?.handle(.localCandidate(callId: callId, candidate: candidate)) }
            session.onConnected = { [weak self] in self?.handle(.mediaConnected(callId: callId)) }
            session.onFirstFrame = { [weak self] in self?.handle(.firstFrame(callId: callId)) }
            session.onFailure = { [weak self] reason in self?.handle(.mediaFailed(callId: callId, reason: reason)) }
            self.session = session
        } catch {
            log.error("call \(callId): \(error)")
            handle(.mediaFailed(callId: callId, reason: "\(error)"))
        }
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
        if let summary = session.measurements {
            events.emit("measurements", callId: session.callId, fields: summary.fields)
        }
        let key = ObjectIdentifier(session)
        finishing[key] = session
        session.finish { [weak self, weak session] in
            guard let self else { return }
            self.finishing[key] = nil
            if let session, let path = session.recordingPath {
                self.recordingAnnounced.remove(path)
                self.events.emit("recorded", callId: session.callId, fields: ["path": path])
            }
        }
    }
}
