import C1nkCall
import C1nkProtocol

/// The C1nk server's dialect: each call intent as the one app message that
/// says it on the wire. Another server's dialect is another such file.
extension ClientMessage {
    public init(_ intent: SignalIntent) {
        switch intent {
        case let .join(callId): self = .join(callId: callId)
        case let .sendAnswer(callId, sdp): self = .answer(callId: callId, sdp: sdp)
        case let .sendCandidate(callId, candidate): self = .ice(callId: callId, candidate: candidate)
        case let .accept(callId): self = .accept(callId: callId)
        case let .reject(callId): self = .reject(callId: callId)
        case let .hangup(callId): self = .hangup(callId: callId)
        case let .openDoor(callId): self = .openDoor(callId: callId)
        }
    }
}
