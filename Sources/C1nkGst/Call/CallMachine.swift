/// The call flow of seed 000 §5 mapped to Linux, as a plain value: events in,
/// actions out, no GStreamer, no sockets, no clock. The answerer performs the
/// actions; tests drive every event through every state.
///
/// Rules it keeps:
/// - a ring is signalled to the user (`ringing`, ringtone) before any network
///   or media work;
/// - no audio crosses before the user accepts (`enableAudio` only after accept);
/// - mute may be set at any time of a call, ringing included;
/// - `accept` goes out only once our answer is out (an earlier tap waits);
/// - a second `incoming` for a call already handled is ignored;
/// - every ring ends with exactly one `ended` event.
public struct CallMachine: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        case ringing
        case accepted
    }

    /// The call in progress.
    public struct Call: Equatable, Sendable {
        public let callId: String
        public let doorName: String
        public var phase = Phase.ringing
        public var joined = false
        /// Our answer to the current offer is out.
        public var answerSent = false
        /// The user accepted before our answer was out.
        public var acceptPending = false
        public var mediaConnected = false
        public var firstFrameSeen = false
        /// A media session exists (an offer was taken).
        public var hasMedia = false
    }

    public enum Event: Equatable, Sendable {
        // From the server
        case incoming(callId: String, doorName: String)
        case joinOk(callId: String)
        case offer(callId: String, sdp: String)
        case remoteCandidate(callId: String, candidate: IceCandidate)
        case doorOpenOk(callId: String)
        case callEnd(callId: String, reason: String)
        /// The signaling socket came back after a drop (hello already sent).
        case signalingReconnected
        // From the media session
        case answerCreated(callId: String, sdp: String)
        case localCandidate(callId: String, candidate: IceCandidate)
        case mediaConnected(callId: String)
        case firstFrame(callId: String)
        case mediaFailed(callId: String, reason: String)
        // From the user
        case userAccept
        case userReject
        case userHangup
        case userOpenDoor
        case userMute(Bool)
        // From timers
        case connectTimeout(callId: String)
        /// The process is stopping (SIGINT/SIGTERM).
        case shutdown
    }

    /// Why a call ended, as the `ended` event's `reason`.
    public enum EndReason: String, Equatable, Sendable {
        case hangup, rejected, remote, answeredElsewhere = "answered-elsewhere"
        case noConnection = "no-connection", mediaFailed = "media-failed", busy, shutdown
    }

    public enum Action: Equatable, Sendable {
        /// An event for the user / the events file.
        case emit(name: String, callId: String, fields: [String: String])
        case send(ClientMessage)
        case startRingtone
        case stopRingtone
        /// Start a fresh media session answering `offer` (replacing any current
        /// one: webrtcbin 1.22 has no ICE restart). Audio stays off unless
        /// `audioEnabled`.
        case startMedia(callId: String, offer: String, audioEnabled: Bool)
        case addRemoteCandidate(callId: String, candidate: IceCandidate)
        case stopMedia(callId: String)
        /// The user accepted: microphone and door audio on.
        case enableAudio(callId: String)
        case setMicrophoneMuted(Bool)
        case startConnectTimer(callId: String)
        case cancelConnectTimer
        /// Counts seconds for `--open-door-after` / `--hangup-after`.
        case callAccepted(callId: String)
    }

    public private(set) var call: Call?
    /// Every callId this process has seen ring; a repeat `incoming` is ignored.
    public private(set) var handledCallIds: Set<String> = []

    public init() {}

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case let .incoming(callId, doorName):
            guard !handledCallIds.contains(callId) else { return [] }
            handledCallIds.insert(callId)
            if call != nil {
                return [.send(.reject(callId: callId)), ended(callId, .busy, doorName: doorName)]
            }
            call = Call(callId: callId, doorName: doorName)
            // Ringing first, then the network and media work.
            return [.emit(name: "ringing", callId: callId, fields: ["doorName": doorName]), .startRingtone,
                    .send(.join(callId: callId)), .startConnectTimer(callId: callId)]

        case let .joinOk(callId):
            guard isCurrent(callId) else { return [] }
            call?.joined = true
            return []

        case let .offer(callId, sdp):
            guard let current = call, current.callId == callId else { return [] }
            call?.answerSent = false
            call?.hasMedia = true
            call?.mediaConnected = false
            var actions: [Action] = [.startMedia(callId: callId, offer: sdp, audioEnabled: current.phase == .accepted)]
            if current.mediaConnected { actions.append(.startConnectTimer(callId: callId)) }
            return actions

        case let .remoteCandidate(callId, candidate):
            guard let current = call, current.callId == callId, current.hasMedia else { return [] }
            return [.addRemoteCandidate(callId: callId, candidate: candidate)]

        case let .answerCreated(callId, sdp):
            guard let current = call, current.callId == callId else { return [] }
            call?.answerSent = true
            var actions: [Action] = [.send(.answer(callId: callId, sdp: sdp))]
            if current.phase == .ringing && current.acceptPending {
                actions += accept()
            }
            return actions

        case let .localCandidate(callId, candidate):
            guard isCurrent(callId) else { return [] }
            return [.send(.ice(callId: callId, candidate: candidate))]

        case let .mediaConnected(callId):
            guard let current = call, current.callId == callId, !current.mediaConnected else { return [] }
            call?.mediaConnected = true
            return [.cancelConnectTimer, .emit(name: "media-connected", callId: callId, fields: [:])]

        case let .firstFrame(callId):
            guard let current = call, current.callId == callId, !current.firstFrameSeen else { return [] }
            call?.firstFrameSeen = true
            return [.emit(name: "first-frame", callId: callId, fields: [:])]

        case let .mediaFailed(callId, reason):
            guard let current = call, current.callId == callId else { return [] }
            return [.send(leaveMessage(current)), .emit(name: "error", callId: callId, fields: ["message": reason])]
                + end(.mediaFailed)

        case let .doorOpenOk(callId):
            guard isCurrent(callId) else { return [] }
            return [.emit(name: "door-opened", callId: callId, fields: [:])]

        case let .callEnd(callId, reason):
            guard isCurrent(callId) else { return [] }
            let mapped: EndReason = reason == "answered-elsewhere" ? .answeredElsewhere : .remote
            return end(mapped, serverReason: reason)

        case .signalingReconnected:
            guard let current = call else { return [] }
            // Media is peer to peer and keeps flowing; rejoin the same call.
            call?.joined = false
            return [.send(.join(callId: current.callId))]

        case .userAccept:
            guard let current = call, current.phase == .ringing else { return [] }
            if current.answerSent { return accept() }
            call?.acceptPending = true
            return []

        case .userReject, .userHangup:
            guard let current = call else { return [] }
            let reason: EndReason = current.phase == .accepted ? .hangup : .rejected
            return [.send(leaveMessage(current))] + end(reason)

        case .userOpenDoor:
            guard let current = call, current.joined || current.phase == .accepted else { return [] }
            return [.send(.openDoor(callId: current.callId))]

        case .userMute(let muted):
            // Also while ringing: the user may mute before picking up.
            guard call != nil else { return [] }
            return [.setMicrophoneMuted(muted)]

        case let .connectTimeout(callId):
            guard let current = call, current.callId == callId, !current.mediaConnected else { return [] }
            return [.send(leaveMessage(current))] + end(.noConnection)

        case .shutdown:
            guard let current = call else { return [] }
            return [.send(leaveMessage(current))] + end(.shutdown)
        }
    }

    private func isCurrent(_ callId: String) -> Bool { call?.callId == callId }

    /// `reject` before the user accepted, `hangup` after.
    private func leaveMessage(_ call: Call) -> ClientMessage {
        call.phase == .accepted ? .hangup(callId: call.callId) : .reject(callId: call.callId)
    }

    private mutating func accept() -> [Action] {
        guard let current = call else { return [] }
        call?.phase = .accepted
        call?.acceptPending = false
        return [.stopRingtone, .send(.accept(callId: current.callId)), .enableAudio(callId: current.callId),
                .emit(name: "accepted", callId: current.callId, fields: [:]), .callAccepted(callId: current.callId)]
    }

    private mutating func end(_ reason: EndReason, serverReason: String? = nil) -> [Action] {
        guard let current = call else { return [] }
        call = nil
        var actions: [Action] = [.cancelConnectTimer]
        if current.phase == .ringing { actions.append(.stopRingtone) }
        if current.hasMedia { actions.append(.stopMedia(callId: current.callId)) }
        var fields = ["reason": reason.rawValue, "doorName": current.doorName]
        if let serverReason { fields["serverReason"] = serverReason }
        actions.append(.emit(name: "ended", callId: current.callId, fields: fields))
        return actions
    }

    private func ended(_ callId: String, _ reason: EndReason, doorName: String) -> Action {
        .emit(name: "ended", callId: callId, fields: ["reason": reason.rawValue, "doorName": doorName])
    }
}
