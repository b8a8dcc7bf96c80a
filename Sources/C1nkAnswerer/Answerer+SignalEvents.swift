import C1nkCall
import C1nkGLib
import C1nkProtocol
import C1nkSignaling

/// What the signaller hears becomes the call state machine's events.
extension Answerer {
    func signalEvent(_ event: SignalEvent) {
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
        // No call is ever made of an invalid id, so a message naming one is about no call of ours.
        if case .incoming = message {} else if let callId = message.callId, let refusal = ServerIdentifier.refusal(callId) {
            log.warning("ignored the server's \(message.type) for callId \"\(ServerIdentifier.printable(callId))\": not a valid id (\(refusal))")
            return
        }
        switch message {
        case let .incoming(callId, doorName): incoming(callId: callId, doorName: doorName)
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
}
