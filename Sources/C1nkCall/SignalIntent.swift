import C1nkProtocol

/// What the call wants the signaling server to hear, in the call's own
/// terms and in no server's dialect. `CallMachine` emits these; a
/// `Signaller` puts each into its wire format (for the C1nk server,
/// `C1nkDialect.swift` in C1nkSignaling).
public enum SignalIntent: Equatable, Sendable {
    /// Take part in the call that rings: the door then sends its offer.
    case join(callId: String)
    /// Our SDP answer to the door's offer.
    case sendAnswer(callId: String, sdp: String)
    /// One of our ICE candidates.
    case sendCandidate(callId: String, candidate: IceCandidate)
    /// The user picked up.
    case accept(callId: String)
    /// We leave the call before picking up.
    case reject(callId: String)
    /// We leave the call after picking up.
    case hangup(callId: String)
    /// Ask the door to open.
    case openDoor(callId: String)

    /// The call this intent is about.
    public var callId: String {
        switch self {
        case let .join(id), let .sendAnswer(id, _), let .sendCandidate(id, _), let .accept(id),
             let .reject(id), let .hangup(id), let .openDoor(id):
            return id
        }
    }
}
