import C1nkProtocol

extension CallMachine {
    /// What the machine hears: the server, the media session, the user and
    /// the timers, each as one value.
    public enum Event: Equatable, Sendable {
        // From the server
        case incoming(callId: String, doorName: String)
        /// A ring that arrived when this machine already carries every call
        /// it can (the answerer found no free call slot): not answered.
        case overCapacity(callId: String, doorName: String)
        case joinOk(callId: String)
        case offer(callId: String, sdp: String)
        case remoteCandidate(callId: String, candidate: IceCandidate)
        case doorOpenOk(callId: String)
        case callEnd(callId: String, reason: String)
        /// An `error` from the server, with the call it names (if any).
        case serverError(callId: String?, message: String)
        /// The signaling socket dropped.
        case signalingLost
        /// The signaling socket came back after a drop (hello already sent).
        case signalingReconnected
        // From the media session
        case answerCreated(callId: String, sdp: String)
        case localCandidate(callId: String, candidate: IceCandidate)
        case mediaConnected(callId: String)
        /// The peer connection went to disconnected, failed or closed after it
        /// had connected.
        case mediaDisconnected(callId: String)
        case firstFrame(callId: String)
        case mediaFailed(callId: String, reason: String)
        // From the user
        case userAccept
        case userReject
        case userHangup
        case userOpenDoor
        case userMute(Bool)
        // From timers
        case timeout(Timer, callId: String)
        /// The process is stopping (SIGINT/SIGTERM).
        case shutdown
    }

    /// The timers the answerer runs for the call in progress.
    public enum Timer: String, Equatable, Sendable, CaseIterable {
        /// No WebRTC connection this long after the ring or after media was lost.
        case connect
        /// No `join-ok` this long after a rejoin.
        case rejoin
        /// No `door-open-ok` this long after `open-door`.
        case doorOpen
        /// A server `error` for our call, while media is not flowing.
        case serverErrorGrace
    }
}
