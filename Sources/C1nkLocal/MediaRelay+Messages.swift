import C1nkProtocol

/// The signaling messages that carry addresses, rewritten so that media
/// crosses the relay (`SignalServer.relay`).
extension MediaRelay {
    /// A door's message as the app must see it; nil withholds a candidate.
    package func rewrite(_ message: DoorMessage) -> DoorMessage? {
        switch message {
        case let .offer(callId, peerId, sdp):
            return .offer(callId: callId, peerId: peerId, sdp: rewrite(sdp: sdp, from: .door))
        case let .ice(callId, peerId, candidate):
            return rewrite(candidate, from: .door).map { .ice(callId: callId, peerId: peerId, candidate: $0) }
        default:
            return message
        }
    }

    /// An app's message as the door must see it; nil withholds a candidate.
    func rewrite(_ message: ClientMessage) -> ClientMessage? {
        switch message {
        case let .answer(callId, sdp):
            return .answer(callId: callId, sdp: rewrite(sdp: sdp, from: .app))
        case let .ice(callId, candidate):
            return rewrite(candidate, from: .app).map { .ice(callId: callId, candidate: $0) }
        default:
            return message
        }
    }

    /// What the server passes on from an app, as a door behind this relay must see it.
    package func rewrite(_ message: ServerToDoorMessage) -> ServerToDoorMessage? {
        switch message {
        case let .answer(callId, peerId, sdp):
            return .answer(callId: callId, peerId: peerId, sdp: rewrite(sdp: sdp, from: .app))
        case let .ice(callId, peerId, candidate):
            return rewrite(candidate, from: .app).map { .ice(callId: callId, peerId: peerId, candidate: $0) }
        default:
            return message
        }
    }

    private func rewrite(_ candidate: IceCandidate, from side: Side) -> IceCandidate? {
        // "candidate:…" as browsers send it, or the bare attribute value.
        let text = candidate.candidate.hasPrefix("a=") ? String(candidate.candidate.dropFirst(2)) : candidate.candidate
        guard let rewritten = rewrite(candidate: text, from: side) else { return nil }
        var result = candidate
        result.candidate = rewritten
        return result
    }
}
