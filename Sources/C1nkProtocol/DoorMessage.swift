/// The door protocol of the local C1nk server (docs/protocol.md): what a door
/// panel sends. A door opens one WebRTC session per app that joins, so every
/// media message carries the `peerId` the server gave that app.
public enum DoorMessage: WireMessage, Equatable {
    case hello(doorId: String, doorName: String)
    /// The visitor pressed the bell; the server answers `ring-ok` with a new callId.
    case ring
    case offer(callId: String, peerId: String, sdp: String)
    case ice(callId: String, peerId: String, candidate: IceCandidate)
    /// The lock was released after an `open-door`.
    case doorOpened(callId: String)
    /// The door ends the call (visitor left, timeout at the door).
    case hangup(callId: String)
    case ping

    public var type: String {
        switch self {
        case .hello: return "hello"
        case .ring: return "ring"
        case .offer: return "offer"
        case .ice: return "ice"
        case .doorOpened: return "door-opened"
        case .hangup: return "hangup"
        case .ping: return "ping"
        }
    }

    /// The id a hello gives, when it gives one (an empty id asks the server for one).
    public var helloId: String? {
        if case let .hello(doorId, _) = self, !doorId.isEmpty { return doorId }
        return nil
    }

    public func encodePayload(to c: inout KeyedEncodingContainer<WireKey>) throws {
        switch self {
        case let .hello(doorId, doorName):
            try c.encode("door", forKey: "role")
            try c.encode(doorId, forKey: "doorId")
            try c.encode(doorName, forKey: "doorName")
        case .ring, .ping:
            break
        case let .offer(callId, peerId, sdp):
            try c.encode(callId, forKey: "callId")
            try c.encode(peerId, forKey: "peerId")
            try c.encode(sdp, forKey: "sdp")
        case let .ice(callId, peerId, candidate):
            try c.encode(callId, forKey: "callId")
            try c.encode(peerId, forKey: "peerId")
            try c.encode(candidate, forKey: "candidate")
        case let .doorOpened(callId), let .hangup(callId):
            try c.encode(callId, forKey: "callId")
        }
    }

    public static func decode(type: String, from c: KeyedDecodingContainer<WireKey>) throws -> DoorMessage? {
        switch type {
        case "hello":
            return .hello(doorId: try c.optionalString("doorId") ?? "",
                          doorName: try c.optionalString("doorName") ?? ServerMessage.defaultDoorName)
        case "ring": return .ring
        case "offer": return .offer(callId: try c.string("callId"), peerId: try c.string("peerId"), sdp: try c.string("sdp"))
        case "ice": return .ice(callId: try c.string("callId"), peerId: try c.string("peerId"), candidate: try c.candidate())
        case "door-opened": return .doorOpened(callId: try c.string("callId"))
        case "hangup": return .hangup(callId: try c.string("callId"))
        case "ping": return .ping
        default: return nil
        }
    }
}

/// What the local server sends to a door.
public enum ServerToDoorMessage: WireMessage, Equatable {
    case welcome
    case helloOk(doorId: String)
    case ringOk(callId: String)
    /// An app joined: make an offer for this peer.
    case join(callId: String, peerId: String)
    case answer(callId: String, peerId: String, sdp: String)
    case ice(callId: String, peerId: String, candidate: IceCandidate)
    /// The resident picked up on this peer.
    case accept(callId: String, peerId: String)
    /// This peer is gone from the call (rejected, answered elsewhere, left).
    case leave(callId: String, peerId: String, reason: String)
    case openDoor(callId: String, peerId: String)
    case callEnd(callId: String, reason: String)
    case error(message: String)
    case pong

    public var type: String {
        switch self {
        case .welcome: return "welcome"
        case .helloOk: return "hello-ok"
        case .ringOk: return "ring-ok"
        case .join: return "join"
        case .answer: return "answer"
        case .ice: return "ice"
        case .accept: return "accept"
        case .leave: return "leave"
        case .openDoor: return "open-door"
        case .callEnd: return "call-end"
        case .error: return "error"
        case .pong: return "pong"
        }
    }

    public func encodePayload(to c: inout KeyedEncodingContainer<WireKey>) throws {
        switch self {
        case .welcome, .pong:
            break
        case let .helloOk(doorId):
            try c.encode(doorId, forKey: "doorId")
        case let .ringOk(callId):
            try c.encode(callId, forKey: "callId")
        case let .join(callId, peerId), let .accept(callId, peerId), let .openDoor(callId, peerId):
            try c.encode(callId, forKey: "callId")
            try c.encode(peerId, forKey: "peerId")
        case let .answer(callId, peerId, sdp):
            try c.encode(callId, forKey: "callId")
            try c.encode(peerId, forKey: "peerId")
            try c.encode(sdp, forKey: "sdp")
        case let .ice(callId, peerId, candidate):
            try c.encode(callId, forKey: "callId")
            try c.encode(peerId, forKey: "peerId")
            try c.encode(candidate, forKey: "candidate")
        case let .leave(callId, peerId, reason):
            try c.encode(callId, forKey: "callId")
            try c.encode(peerId, forKey: "peerId")
            try c.encode(reason, forKey: "reason")
        case let .callEnd(callId, reason):
            try c.encode(callId, forKey: "callId")
            try c.encode(reason, forKey: "reason")
        case let .error(message):
            try c.encode(message, forKey: "message")
        }
    }

    public static func decode(type: String, from c: KeyedDecodingContainer<WireKey>) throws -> ServerToDoorMessage? {
        switch type {
        case "welcome": return .welcome
        case "hello-ok": return .helloOk(doorId: try c.string("doorId"))
        case "ring-ok": return .ringOk(callId: try c.string("callId"))
        case "join": return .join(callId: try c.string("callId"), peerId: try c.string("peerId"))
        case "answer": return .answer(callId: try c.string("callId"), peerId: try c.string("peerId"), sdp: try c.string("sdp"))
        case "ice": return .ice(callId: try c.string("callId"), peerId: try c.string("peerId"), candidate: try c.candidate())
        case "accept": return .accept(callId: try c.string("callId"), peerId: try c.string("peerId"))
        case "leave": return .leave(callId: try c.string("callId"), peerId: try c.string("peerId"),
                                    reason: try c.optionalString("reason") ?? "left")
        case "open-door": return .openDoor(callId: try c.string("callId"), peerId: try c.string("peerId"))
        case "call-end": return .callEnd(callId: try c.string("callId"), reason: try c.optionalString("reason") ?? "unknown")
        case "error": return .error(message: try c.optionalString("message") ?? "")
        case "pong": return .pong
        default: return nil
        }
    }
}
