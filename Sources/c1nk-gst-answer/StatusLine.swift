import C1nkCall

/// What a person at the terminal reads about the events (standard error;
/// `--events` has them all as JSON).
enum StatusLine {
    static func text(_ event: CallEvent, manual: Bool) -> String? {
        switch event {
        case .connected(let server): return "connected to \(server)"
        case .registered(let deviceId): return "hello-ok: registered as device \(deviceId); waiting for rings"
        case .disconnected(let reason): return "disconnected (\(reason)); reconnecting"
        case let .connectFailed(reason, retryIn): return "cannot reach the server (\(reason)); retrying in \(retryIn) s"
        case .ringing(_, let doorName):
            return "RING: \(doorName)" + (manual ? " — type accept (a) or reject (r), then Enter" : "")
        case .accepted: return "accepted: talk" + (manual ? "; open (o), mute (m), unmute (u), hangup (h)" : "")
        case .firstFrame: return "the door's video is showing"
        case .videoStalled: return "the door's video has stopped (no frame for a second); the call goes on"
        case .videoResumed(_, let stalledMs): return "the door's video is back after \(stalledMs) ms"
        case .doorOpened: return "ODOMKNUTÉ: the door is open"
        case .ended(_, let reason, _, _, _): return "call ended: \(reason.rawValue)"
        case .recording(_, let path): return "recording to \(path)"
        case .snapshot(_, let path): return "the visitor's snapshot: \(path)"
        case let .decoder(_, element, hardware, failed, reason):
            guard let failed else { return "the door's video is decoded by \(element)\(hardware ? " (hardware)" : "")" }
            return "the video decoder \(failed) failed (\(reason ?? "an error")); the call goes on with \(element)"
        case let .recorded(_, path, error):
            guard let error else { return "recorded \(path)" }
            return "recording stopped (\(error)); the call goes on; kept \(path)"
        case let .missed(_, doorName, reason):
            guard reason == CallMachine.MissedReason.overCapacity.rawValue else {
                return "missed a ring from \(doorName) (\(reason): already in a call)"
            }
            return "missed a ring from \(doorName) (over-capacity: this machine already carries its --max-calls calls; "
                + "raise --max-calls or run fewer answerers on this machine)"
        case .doorOpenFailed(_, let reason):
            switch reason {
            case .notConnected: return "the door was NOT opened: not connected to the server; try again once reconnected"
            case .noReply: return "the door was NOT opened: no reply from the door; try again"
            }
        case .error(_, let message): return "error: \(message)"
        case let .deleted(path, reason): return "deleted the old recording \(path) (\(reason))"
        case let .reloaded(applied, restart):
            return "reloaded the config: " + (applied.isEmpty ? "nothing changed" : "applied " + applied.joined(separator: ", "))
                + (restart.isEmpty ? "" : "; restart to apply " + restart.joined(separator: ", "))
        case let .sipRegistered(registrar): return "registered at \(registrar) (SIP)"
        case let .sipRinging(_, phones): return "ringing \(phones.joined(separator: ", ")) (SIP)"
        case let .sipAnswered(_, phone): return "answered on \(phone) (SIP)"
        case .mediaConnected, .levels, .measurements, .mainLoop: return nil
        }
    }
}
