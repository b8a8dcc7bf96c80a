/// Messages the C1nk signaling server sends to the app: the app protocol,
/// one JSON object per text frame, its `type` naming it (docs/protocol.md).
///
/// Fields the app needs to act on (`callId`, `sdp`, `candidate`) are required;
/// descriptive ones (`doorName`, `reason`, `message`) fall back to a default
/// so that a terse server still rings the user, and are made one capped line
/// (`ServerText`). Ids are decoded as sent and checked by `ServerIdentifier`
/// where a call is made of them.
public enum ServerMessage: WireMessage, Equatable {
    case welcome
    /// `deviceId` is set when the server generated or confirmed one; store it.
    case helloOk(deviceId: String?)
    case tokenOk
    case incoming(callId: String, doorName: String)
    case joinOk(callId: String)
    case offer(callId: String, sdp: String)
    case ice(callId: String, candidate: IceCandidate)
    case callEnd(callId: String, reason: String)
    case doorOpenOk(callId: String)
    /// `callId` names the call the error is about, when the server says so
    /// (our local server always does for a call's messages).
    case error(message: String, callId: String? = nil)
    case pong

    /// The name a door that did not say its name goes by ("Vchod", the entrance).
    public static let defaultDoorName = "Vchod"

    public var type: String {
        switch self {
        case .welcome: return "welcome"
        case .helloOk: return "hello-ok"
        case .tokenOk: return "token-ok"
        case .incoming: return "incoming"
        case .joinOk: return "join-ok"
        case .offer: return "offer"
        case .ice: return "ice"
        case .callEnd: return "call-end"
        case .doorOpenOk: return "door-open-ok"
        case .error: return "error"
        case .pong: return "pong"
        }
    }

    /// The call this message is about, if it names one.
    public var callId: String? {
        switch self {
        case let .incoming(id, _), let .joinOk(id), let .offer(id, _), let .ice(id, _), let .callEnd(id, _), let .doorOpenOk(id):
            return id
        case .error(_, let id):
            return id
        case .welcome, .helloOk, .tokenOk, .pong:
            return nil
        }
    }

    public func encodePayload(to c: inout KeyedEncodingContainer<WireKey>) throws {
        switch self {
        case .welcome, .tokenOk, .pong:
            break
        case .helloOk(let deviceId):
            try c.encodeIfPresent(deviceId, forKey: "deviceId")
        case let .incoming(callId, doorName):
            try c.encode(callId, forKey: "callId")
            try c.encode(doorName, forKey: "doorName")
        case let .joinOk(callId), let .doorOpenOk(callId):
            try c.encode(callId, forKey: "callId")
        case let .offer(callId, sdp):
            try c.encode(callId, forKey: "callId")
            try c.encode(sdp, forKey: "sdp")
        case let .ice(callId, candidate):
            try c.encode(callId, forKey: "callId")
            try c.encode(candidate, forKey: "candidate")
        case let .callEnd(callId, reason):
            try c.encode(callId, forKey: "callId")
            try c.encode(reason, forKey: "reason")
        case let .error(message, callId):
            try c.encode(message, forKey: "message")
            try c.encodeIfPresent(callId, forKey: "callId")
        }
    }

    public static func decode(type: String, from c: KeyedDecodingContainer<WireKey>) throws -> ServerMessage? {
        switch type {
        case "welcome": return .welcome
        case "hello-ok": return .helloOk(deviceId: try c.optionalString("deviceId"))
        case "token-ok": return .tokenOk
        case "incoming":
            return .incoming(callId: try c.string("callId"), doorName: ServerText.doorName(try c.optionalString("doorName")))
        case "join-ok": return .joinOk(callId: try c.string("callId"))
        case "offer": return .offer(callId: try c.string("callId"), sdp: try c.string("sdp"))
        case "ice": return .ice(callId: try c.string("callId"), candidate: try c.candidate())
        case "call-end":
            return .callEnd(callId: try c.string("callId"), reason: ServerText.line(try c.optionalString("reason") ?? "unknown", limit: 64))
        case "door-open-ok": return .doorOpenOk(callId: try c.string("callId"))
        case "error": return .error(message: ServerText.message(try c.optionalString("message") ?? ""), callId: try c.optionalString("callId"))
        case "pong": return .pong
        default: return nil
        }
    }
}
