import C1nkProtocol

extension CallMachine {
    /// What the machine asks of the answerer, in order.
    public enum Action: Equatable, Sendable {
        /// An event for the user / the events file.
        case emit(CallEvent)
        /// Something for the signaling server to hear (the `Signaller` puts it in its dialect).
        case signal(SignalIntent)
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
        /// (Re)starts one timer; it comes back as `.timeout(timer, callId)`.
        case startTimer(Timer, callId: String)
        case cancelTimer(Timer)
        /// The call is over: every timer of `startTimer` goes.
        case cancelTimers
        /// Counts seconds for `--open-door-after` / `--hangup-after`.
        case callAccepted(callId: String)
        /// The user's command was refused; tell them why.
        case refuse(String)
    }

    /// Why a call ended, as the `ended` event's `reason`.
    public enum EndReason: String, Equatable, Sendable {
        case hangup, rejected, remote, answeredElsewhere = "answered-elsewhere"
        case noConnection = "no-connection", mediaFailed = "media-failed", lost
        case serverError = "server-error", shutdown
    }

    /// Why a ring was `missed`, as the event's `reason`.
    public enum MissedReason: String, Equatable, Sendable {
        /// This answerer is in another call.
        case busy
        /// Every call slot of the machine is taken (`--max-calls`).
        case overCapacity = "over-capacity"
        /// The server's callId is not an id this answerer builds anything from.
        case invalidCallId = "invalid-call-id"
    }
}
