import C1nkCall

/// What the home sees of one answerer, as a pure state machine: the
/// answerer's `CallEvent`s in, MQTT publications out; messages from the
/// broker in, commands (or refusals) out. It remembers the call state so a
/// reconnect or Home Assistant's restart publishes it again. No I/O.
public struct HomeLink: Sendable {
    public let topics: HomeTopics
    public let discovery: HomeAssistantDiscovery

    public enum CallState: String, Sendable { case idle, ringing, inCall = "in_call" }

    public private(set) var state = CallState.idle
    public private(set) var door: String?
    public private(set) var callId: String?
    public private(set) var muted = false
    public private(set) var serverUp = false
    /// The visitor's snapshot of the call in progress, once taken: later events of the call carry it.
    public private(set) var snapshot: String?
    /// The door was opened in the call in progress (the lock shows `OPEN`).
    public private(set) var doorOpen = false
    /// Accept and open need the code; wrong codes are counted by ring.
    public private(set) var gate: HomeCodeGate

    /// `openCode`: what accepting and opening over MQTT need; without it they are off, and discovery says so.
    public init(discovery: HomeAssistantDiscovery, openCode: HomeOpenCode? = nil) {
        var discovery = discovery
        discovery.codeFormat = openCode?.format
        self.discovery = discovery
        self.topics = discovery.topics
        gate = HomeCodeGate(code: openCode)
    }

    /// What a message from the broker asks for.
    public enum Incoming: Equatable, Sendable {
        /// Publish these (Home Assistant came online: discovery and the states again).
        case publish([HomePublication])
        /// Hand this command to the answerer; publish its refusal, if any, with `refusal(_:)`.
        case command(HomeCommand)
        /// Publish this refusal on the error topic.
        case refused(HomePublication)
        /// A wrong open code (the `count`th of this ring): publish the refusal, and log it as a warning.
        case wrongCode(HomePublication, count: Int)
        /// Nothing to do (a retained command, another topic).
        case ignore
    }

    /// The broker accepted the session: availability, discovery and every state, retained.
    public func connected() -> [HomePublication] {
        [HomePublication(topics.availability, "online", retain: true), discovery.publication] + states()
    }

    /// The last will: set before connecting.
    public var will: HomePublication { HomePublication(topics.availability, "offline", retain: true) }

    /// The retained states as they are now.
    public func states() -> [HomePublication] {
        [callPublication(), HomePublication(topics.mute, muted ? "ON" : "OFF", retain: true),
         HomePublication(topics.server, serverUp ? "ON" : "OFF", retain: true), doorPublication()]
    }

    public mutating func message(topic: String, payload: [UInt8], retained: Bool) -> Incoming {
        if topic == HomeTopics.homeAssistantStatus {
            return String(decoding: payload.prefix(16), as: UTF8.self) == "online" ? .publish([discovery.publication] + states()) : .ignore
        }
        guard topic == topics.command, !retained else { return .ignore }
        switch HomeCommand.request(payload) {
        case .failure(let refusal): return .refused(self.refusal(refusal.description))
        case .success(let request):
            switch gate.check(request, inCall: state != .idle) {
            case .allowed: return .command(request.command)
            case .refused(let reason): return .refused(self.refusal(reason, command: request.command))
            case let .wrongCode(reason, count): return .wrongCode(self.refusal(reason, command: request.command), count: count)
            }
        }
    }

    /// A message the client did not copy, being over its limit: refused by its length alone.
    public func oversized(topic: String, length: Int, retained: Bool) -> Incoming {
        guard topic == topics.command, !retained else { return .ignore }
        return .refused(refusal(HomeCommandRefusal.tooLarge(length).description))
    }

    /// A refusal or an error, on `<prefix>/error`, as JSON, never retained.
    public func refusal(_ message: String, command: HomeCommand? = nil) -> HomePublication {
        var object: [String: Any] = ["message": message]
        if let command { object["command"] = command.rawValue }
        if let callId { object["callId"] = callId }
        return HomePublication(topics.error, HomeJSON.text(object), retain: false)
    }

    /// The publications for one of the answerer's events, and the new state.
    public mutating func handle(_ event: CallEvent) -> [HomePublication] {
        switch event {
        case let .ringing(callId, doorName):
            state = .ringing; door = doorName; self.callId = callId; muted = false; snapshot = nil; doorOpen = false
            gate.newRing()
            return [doorbell("ring", callId: callId, door: doorName), callPublication(), mutePublication()]
        case let .missed(callId, doorName, reason):
            return [doorbell("missed", callId: callId, door: doorName, extra: ["reason": reason])]
        case let .accepted(callId):
            state = .inCall
            return [doorbell("answered", callId: callId, door: door), callPublication()]
        case let .doorOpened(callId):
            doorOpen = true
            return [doorbell("door_opened", callId: callId, door: door), doorPublication()]
        case let .ended(callId, reason, doorName, _, _):
            let wasRinging = state == .ringing
            var out: [HomePublication] = []
            if reason == .answeredElsewhere {
                out.append(doorbell("answered_elsewhere", callId: callId, door: doorName))
            } else if wasRinging, reason != .rejected, reason != .shutdown {
                out.append(doorbell("missed", callId: callId, door: doorName, extra: ["reason": reason.rawValue]))
            }
            let wasOpen = doorOpen
            state = .idle; door = nil; self.callId = nil; muted = false; snapshot = nil; doorOpen = false
            return out + [callPublication(), mutePublication()] + (wasOpen ? [doorPublication()] : [])
        case let .levels(_, _, _, isMuted):
            guard isMuted != muted else { return [] }
            muted = isMuted
            return [mutePublication()]
        case .registered:
            guard !serverUp else { return [] }
            serverUp = true
            return [HomePublication(topics.server, "ON", retain: true)]
        case .disconnected, .connectFailed:
            guard serverUp else { return [] }
            serverUp = false
            return [HomePublication(topics.server, "OFF", retain: true)]
        case let .error(callId, message):
            var object: [String: Any] = ["message": message]
            if let callId { object["callId"] = callId }
            return [HomePublication(topics.error, HomeJSON.text(object), retain: false)]
        case let .snapshot(callId, path):
            // The picture's bytes go out from the client, which reads the file (`HomeMQTT`).
            if callId == self.callId { snapshot = path }
            return []
        case .connected, .mediaConnected, .firstFrame, .videoStalled, .videoResumed, .doorOpenFailed, .recording, .recorded, .measurements, .mainLoop, .decoder,
             .deleted, .reloaded, .sipRegistered:
            return []
        case let .sipRinging(callId, phones):
            return [doorbell("sip_ringing", callId: callId, door: door, extra: ["phones": phones])]
        case let .sipAnswered(callId, phone):
            return [doorbell("sip_answered", callId: callId, door: door, extra: ["phone": phone])]
        }
    }

    /// A command the answerer took: mute and unmute show at once.
    public mutating func obeyed(_ command: HomeCommand) -> [HomePublication] {
        guard command == .mute || command == .unmute, state == .inCall else { return [] }
        muted = command == .mute
        return [mutePublication()]
    }

    private func doorbell(_ type: String, callId: String, door: String?, extra: [String: Any] = [:]) -> HomePublication {
        var object: [String: Any] = ["event_type": type, "callId": callId]
        if let door { object["door"] = door }
        if let snapshot, callId == self.callId { object["snapshot"] = snapshot }
        return HomePublication(topics.event, HomeJSON.text(object.merging(extra) { a, _ in a }), retain: false)
    }

    private func callPublication() -> HomePublication {
        var object: [String: Any] = ["state": state.rawValue]
        if let door { object["door"] = door }
        if let callId { object["callId"] = callId }
        return HomePublication(topics.call, HomeJSON.text(object), retain: true)
    }

    /// The lock's state; `disabled` without a code (the diagnostic sensor discovery declares instead).
    private func doorPublication() -> HomePublication {
        HomePublication(topics.door, gate.code == nil ? "disabled" : doorOpen ? "OPEN" : "LOCKED", retain: true)
    }

    private func mutePublication() -> HomePublication { HomePublication(topics.mute, muted ? "ON" : "OFF", retain: true) }
}
