import C1nkProtocol
import FoundationEssentials

/// The router's door side, its timers, and how a call is left and ended.
extension CallRouter {
    // MARK: - Doors

    mutating func fromDoor(_ doorId: String, _ message: DoorMessage) {
        switch message {
        case .hello:
            actions.append(.errorToDoor(doorId: doorId, .error(message: "already said hello")))
        case .ping:
            break
        case .ring:
            var call = Call(id: ids.callId(), doorId: doorId, doorName: doors[doorId]?.name ?? "")
            toDoor(doorId, .ringOk(callId: call.id))
            actions.append(.log("door \(doorId) rings: call \(call.id) to \(apps.count) app(s)"))
            for app in apps { call.members[app] = Member(peerId: ids.peerId()) }
            calls[call.id] = call
            for app in apps { toApp(app, .incoming(callId: call.id, doorName: call.doorName)) }
            startTimer(.ring(callId: call.id), options.ringTimeout)
        case let .offer(callId, peerId, sdp):
            guard let call = calls[callId], call.doorId == doorId, let device = call.device(forPeer: peerId) else {
                return actions.append(.errorToDoor(doorId: doorId, .error(message: "unknown call or peer \(callId)/\(peerId)",
                                                                           callId: callId)))
            }
            calls[callId]?.members[device]?.offerForRejoin = apps.contains(device) ? nil : sdp
            toApp(device, .offer(callId: callId, sdp: sdp))
        case let .ice(callId, peerId, candidate):
            guard let call = calls[callId], let device = call.device(forPeer: peerId) else { return }
            toApp(device, .ice(callId: callId, candidate: candidate))
        case let .doorOpened(callId):
            guard let call = calls[callId] else { return }
            if let device = call.openRequestedBy ?? call.acceptedBy { toApp(device, .doorOpenOk(callId: callId)) }
        case let .hangup(callId):
            guard let call = calls[callId], call.doorId == doorId else { return }
            endCall(call.id, reason: "door-hangup", notifyDoor: false)
        }
    }

    // MARK: - Timers

    mutating func timedOut(_ timer: Timer) {
        guard timers.remove(timer) != nil else { return }
        switch timer {
        case .ring(let callId):
            guard let call = calls[callId], call.acceptedBy == nil else { return }
            endCall(callId, reason: "no-answer")
        case let .rejoin(callId, device):
            guard let call = calls[callId] else { return }
            actions.append(.log("app \(device) did not come back to call \(callId)"))
            if call.acceptedBy == device { endCall(callId, reason: "app-left") } else { leave(callId, device, reason: "app-left") }
        }
    }

    mutating func startTimer(_ timer: Timer, _ seconds: Double) {
        timers.insert(timer)
        actions.append(.startTimer(timer, seconds: seconds))
    }

    mutating func cancelTimer(_ timer: Timer) {
        guard timers.remove(timer) != nil else { return }
        actions.append(.cancelTimer(timer))
    }

    mutating func cancelTimers(of callId: String) {
        let theirs = timers.filter {
            switch $0 {
            case .ring(let id), .rejoin(let id, _): return id == callId
            }
        }
        for timer in theirs.sorted(by: { "\($0)" < "\($1)" }) { cancelTimer(timer) }
    }

    // MARK: - Leaving and ending

    /// One app leaves the call; the call ends when nobody is left.
    mutating func leave(_ callId: String, _ device: String, reason: String, notifyApp: Bool = true) {
        guard let call = calls[callId], let member = call.members[device], member.state != .left else { return }
        calls[callId]?.members[device]?.state = .left
        cancelTimer(.rejoin(callId: callId, deviceId: device))
        if notifyApp { toApp(device, .callEnd(callId: callId, reason: reason)) }
        toDoor(call.doorId, .leave(callId: callId, peerId: member.peerId, reason: reason))
        if calls[callId]?.members.values.allSatisfy({ $0.state == .left }) == true {
            endCall(callId, reason: reason)
        }
    }

    mutating func endCall(_ callId: String, reason: String, except: String? = nil, notifyDoor: Bool = true) {
        guard let call = calls.removeValue(forKey: callId) else { return }
        actions.append(.log("call \(callId) ended: \(reason)"))
        cancelTimers(of: callId)
        for device in call.members.keys.sorted() where call.members[device]?.state != .left && device != except {
            toApp(device, .callEnd(callId: callId, reason: reason))
        }
        if notifyDoor { toDoor(call.doorId, .callEnd(callId: callId, reason: reason)) }
    }

    // MARK: - Out

    /// Only to an app connected now (a message to a dropped app is lost, as on a socket).
    mutating func toApp(_ device: String, _ message: ServerMessage) {
        if apps.contains(device) { actions.append(.toApp(deviceId: device, message)) }
    }

    mutating func toDoor(_ doorId: String, _ message: ServerToDoorMessage) {
        if doors[doorId] != nil { actions.append(.toDoor(doorId: doorId, message)) }
    }
}
