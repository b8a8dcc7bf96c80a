import C1nkProtocol

/// The app's side of a door call: a ring (`incoming`) rings the user and
/// joins the call, the door's offer gets our answer and candidates, the user
/// accepts or rejects, may open the door once accepted, and the call ends on
/// either side's hangup. A plain value: events in, actions out (signaling
/// intents among them, in no server's dialect), no GStreamer, no sockets, no
/// clock. The answerer performs the actions; tests drive every event through
/// every state.
///
/// Rules it keeps:
/// - a ring is signalled to the user (`ringing`, ringtone) before any network
///   or media work;
/// - no audio crosses before the user accepts (`enableAudio` only after accept);
/// - mute may be set at any time of a call, ringing included;
/// - `accept` goes out only once our answer is out (an earlier tap waits);
/// - a second `incoming` for a call already handled is ignored;
/// - a ring while a call is in progress touches nothing of that call: it is
///   reported `missed` (reason `busy`) and nothing is sent for it (a `reject`
///   from a device that never joined could end the ring for everyone);
/// - a ring the machine has no room for (`overCapacity`) is reported
///   `missed` (reason `over-capacity`) the same way: no ringtone, nothing sent;
/// - a ring whose callId is not a valid id (`ServerIdentifier`) is reported
///   `missed` (reason `invalid-call-id`, the id shown escaped) and touches
///   nothing else;
/// - every other ring ends with exactly one `ended` event;
/// - the door opens only after accept, and only while the signaling socket is
///   up: a request is never queued to leave minutes later;
/// - no call stays up without a way back: a rejoin that fails or gets no
///   `join-ok`, or media lost for the no-connection timeout, ends it `lost`.
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
        /// Media was connected at least once (a later loss ends the call `lost`).
        public var everConnected = false
        public var firstFrameSeen = false
        /// A media session exists (an offer was taken).
        public var hasMedia = false
        /// A `join` went out after a reconnect; `join-ok` has not come back.
        public var rejoinPending = false
        /// `open-door` went out; `door-open-ok` has not come back.
        public var doorOpenPending = false
        /// The server reported an error for this call; the grace timer runs.
        public var serverErrorPending = false
    }

    public private(set) var call: Call?
    /// The callIds this process has seen ring, the last `rememberedCallIds`
    /// of them; a repeat `incoming` is ignored. Bounded: an answerer runs
    /// for months.
    public private(set) var handledCallIds: Set<String> = []
    /// `handledCallIds` oldest first, to forget the oldest.
    private var handledOrder: [String] = []
    /// How many callIds are remembered: a server repeats a ring within
    /// seconds, never after a thousand others.
    public static let rememberedCallIds = 1000
    /// The signaling socket is down (between `signalingLost` and `signalingReconnected`).
    public private(set) var signalingDown = false

    public init() {}

    private mutating func remember(_ callId: String) {
        handledCallIds.insert(callId)
        handledOrder.append(callId)
        if handledOrder.count > Self.rememberedCallIds {
            handledCallIds.remove(handledOrder.removeFirst())
        }
    }

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case let .incoming(callId, doorName):
            guard ServerIdentifier.isValid(callId) else {
                // Data, never a name to build with: nothing rings, nothing is sent, nothing remembered.
                return [.emit(.missed(callId: ServerIdentifier.printable(callId), doorName: doorName,
                                      reason: MissedReason.invalidCallId.rawValue))]
            }
            guard !handledCallIds.contains(callId) else { return [] }
            remember(callId)
            if call != nil {
                // Not ours to answer: nothing goes to the server, the call in progress is untouched.
                return [.emit(.missed(callId: callId, doorName: doorName, reason: MissedReason.busy.rawValue))]
            }
            call = Call(callId: callId, doorName: doorName)
            // Ringing first, then the network and media work.
            return [.emit(.ringing(callId: callId, doorName: doorName)), .startRingtone,
                    .signal(.join(callId: callId)), .startTimer(.connect, callId: callId)]

        case let .overCapacity(callId, doorName):
            guard ServerIdentifier.isValid(callId) else { return handle(.incoming(callId: callId, doorName: doorName)) }
            guard !handledCallIds.contains(callId) else { return [] }
            remember(callId)
            // Nothing rings, nothing goes to the server: another device may answer it.
            let reason: MissedReason = call == nil ? .overCapacity : .busy
            return [.emit(.missed(callId: callId, doorName: doorName, reason: reason.rawValue))]

        case let .joinOk(callId):
            guard let current = call, current.callId == callId else { return [] }
            call?.joined = true
            guard current.rejoinPending else { return [] }
            call?.rejoinPending = false
            return [.cancelTimer(.rejoin)]

        case let .offer(callId, sdp):
            guard let current = call, current.callId == callId else { return [] }
            call?.answerSent = false
            call?.hasMedia = true
            call?.mediaConnected = false
            var actions: [Action] = [.startMedia(callId: callId, offer: sdp, audioEnabled: current.phase == .accepted)]
            if current.mediaConnected { actions.append(.startTimer(.connect, callId: callId)) }
            return actions

        case let .remoteCandidate(callId, candidate):
            guard let current = call, current.callId == callId, current.hasMedia else { return [] }
            return [.addRemoteCandidate(callId: callId, candidate: candidate)]

        case let .answerCreated(callId, sdp):
            guard let current = call, current.callId == callId else { return [] }
            call?.answerSent = true
            var actions: [Action] = [.signal(.sendAnswer(callId: callId, sdp: sdp))]
            if current.phase == .ringing && current.acceptPending {
                actions += accept()
            }
            return actions

        case let .localCandidate(callId, candidate):
            guard isCurrent(callId) else { return [] }
            return [.signal(.sendCandidate(callId: callId, candidate: candidate))]

        case let .mediaConnected(callId):
            guard let current = call, current.callId == callId, !current.mediaConnected else { return [] }
            call?.mediaConnected = true
            call?.everConnected = true
            var actions: [Action] = [.cancelTimer(.connect)]
            if current.serverErrorPending {
                call?.serverErrorPending = false
                actions.append(.cancelTimer(.serverErrorGrace))
            }
            return actions + [.emit(.mediaConnected(callId: callId))]

        case let .mediaDisconnected(callId):
            guard let current = call, current.callId == callId, current.mediaConnected else { return [] }
            // It may come back (ICE) or the door may offer afresh; if not, the timer ends the call `lost`.
            call?.mediaConnected = false
            return [.startTimer(.connect, callId: callId)]

        case let .firstFrame(callId):
            guard let current = call, current.callId == callId, !current.firstFrameSeen else { return [] }
            call?.firstFrameSeen = true
            return [.emit(.firstFrame(callId: callId))]

        case let .mediaFailed(callId, reason):
            guard let current = call, current.callId == callId else { return [] }
            return [.signal(leaving(current)), .emit(.error(callId: callId, message: reason))]
                + end(.mediaFailed)

        case let .doorOpenOk(callId):
            guard let current = call, current.callId == callId else { return [] }
            var actions: [Action] = []
            if current.doorOpenPending {
                call?.doorOpenPending = false
                actions.append(.cancelTimer(.doorOpen))
            }
            return actions + [.emit(.doorOpened(callId: callId))]

        case let .callEnd(callId, reason):
            guard isCurrent(callId) else { return [] }
            let mapped: EndReason = reason == "answered-elsewhere" ? .answeredElsewhere : .remote
            return end(mapped, serverReason: reason)

        case let .serverError(callId, _):
            guard let current = call else { return [] }
            // An error that names no call, right after our rejoin, is taken as the answer to it.
            let ours = callId == current.callId || (callId == nil && current.rejoinPending)
            guard ours else { return [] }
            if current.rejoinPending {
                return [.signal(leaving(current))] + end(.lost)
            }
            // Media flowing peer to peer is the call: it goes on. Otherwise give
            // the server a grace period to recover (an offer, a connection).
            guard !current.mediaConnected, !current.serverErrorPending else { return [] }
            call?.serverErrorPending = true
            return [.startTimer(.serverErrorGrace, callId: callId ?? current.callId)]

        case .signalingLost:
            signalingDown = true
            return []

        case .signalingReconnected:
            signalingDown = false
            guard let current = call else { return [] }
            // Media is peer to peer and keeps flowing; rejoin the same call
            // first, then repeat an open-door that may have died with the socket.
            call?.joined = false
            call?.rejoinPending = true
            var actions: [Action] = [.signal(.join(callId: current.callId)), .startTimer(.rejoin, callId: current.callId)]
            if current.doorOpenPending { actions.append(.signal(.openDoor(callId: current.callId))) }
            return actions

        case .userAccept:
            guard let current = call, current.phase == .ringing else { return [] }
            if current.answerSent { return accept() }
            call?.acceptPending = true
            return []

        case .userReject, .userHangup:
            guard let current = call else { return [] }
            let reason: EndReason = current.phase == .accepted ? .hangup : .rejected
            return [.signal(leaving(current))] + end(reason)

        case .userOpenDoor:
            guard let current = call else { return [] }
            guard current.phase == .accepted else {
                return [.refuse("the door opens only once you have accepted the call: accept first, then open")]
            }
            guard !signalingDown else {
                return [.emit(.doorOpenFailed(callId: current.callId, reason: .notConnected)),
                        .refuse("not connected to the signaling server: the door was not opened; try again once reconnected")]
            }
            guard !current.doorOpenPending else { return [] }
            call?.doorOpenPending = true
            return [.signal(.openDoor(callId: current.callId)), .startTimer(.doorOpen, callId: current.callId)]

        case .userMute(let muted):
            // Also while ringing: the user may mute before picking up.
            guard call != nil else { return [] }
            return [.setMicrophoneMuted(muted)]

        case let .timeout(timer, callId):
            guard let current = call, current.callId == callId else { return [] }
            return timedOut(timer, current)

        case .shutdown:
            guard let current = call else { return [] }
            return [.signal(leaving(current))] + end(.shutdown)
        }
    }

    private mutating func timedOut(_ timer: Timer, _ current: Call) -> [Action] {
        switch timer {
        case .connect:
            guard !current.mediaConnected else { return [] }
            return [.signal(leaving(current))] + end(current.everConnected ? .lost : .noConnection)
        case .rejoin:
            guard current.rejoinPending else { return [] }
            return [.signal(leaving(current))] + end(.lost)
        case .doorOpen:
            guard current.doorOpenPending else { return [] }
            call?.doorOpenPending = false
            return [.emit(.doorOpenFailed(callId: current.callId, reason: .noReply))]
        case .serverErrorGrace:
            guard current.serverErrorPending, !current.mediaConnected else { return [] }
            return [.signal(leaving(current))] + end(.serverError)
        }
    }

    private func isCurrent(_ callId: String) -> Bool { call?.callId == callId }

    /// `reject` before the user accepted, `hangup` after.
    private func leaving(_ call: Call) -> SignalIntent {
        call.phase == .accepted ? .hangup(callId: call.callId) : .reject(callId: call.callId)
    }

    private mutating func accept() -> [Action] {
        guard let current = call else { return [] }
        call?.phase = .accepted
        call?.acceptPending = false
        return [.stopRingtone, .signal(.accept(callId: current.callId)), .enableAudio(callId: current.callId),
                .emit(.accepted(callId: current.callId)), .callAccepted(callId: current.callId)]
    }

    private mutating func end(_ reason: EndReason, serverReason: String? = nil) -> [Action] {
        guard let current = call else { return [] }
        call = nil
        var actions: [Action] = [.cancelTimers]
        if current.phase == .ringing { actions.append(.stopRingtone) }
        if current.hasMedia { actions.append(.stopMedia(callId: current.callId)) }
        actions.append(.emit(.ended(callId: current.callId, reason: reason, doorName: current.doorName, serverReason: serverReason)))
        return actions
    }
}
