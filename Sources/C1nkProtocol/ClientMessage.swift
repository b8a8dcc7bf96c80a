/// Messages the app sends to the C1nk signaling server: the app protocol,
/// one JSON object per text frame, its `type` naming it (docs/protocol.md).
public enum ClientMessage: WireMessage, Equatable {
    /// After every (re)connect. `role` is "app" for us.
    case hello(role: String = "app", deviceId: String, voipToken: String, bundleId: String)
    /// The push token changed (rare on Linux, which has no push token).
    case registerToken(deviceId: String, voipToken: String, bundleId: String)
    case join(callId: String)
    case answer(callId: String, sdp: String)
    case ice(callId: String, candidate: IceCandidate)
    case accept(callId: String)
    case reject(callId: String)
    case hangup(callId: String)
    case openDoor(callId: String)
    case ping

    public var type: String {
        switch self {
        case .hello: return "hello"
        case .registerToken: return "register-token"
        case .join: return "join"
        case .answer: return "answer"
        case .ice: return "ice"
        case .accept: return "accept"
        case .reject: return "reject"
        case .hangup: return "hangup"
        case .openDoor: return "open-door"
        case .ping: return "ping"
        }
    }

    /// The id a hello gives, when it gives one (an empty id asks the server for one).
    public var helloId: String? {
        if case let .hello(_, deviceId, _, _) = self, !deviceId.isEmpty { return deviceId }
        return nil
    }

    /// The call this message is about, if any.
    public var callId: String? {
        switch self {
        case .join(let id), .answer(let id, _), .ice(let id, _), .accept(let id),
             .reject(let id), .hangup(let id), .openDoor(let id):
            return id
        case .hello, .registerToken, .ping:
            return nil
        }
    }

    public func encodePayload(to c: inout KeyedEncodingContainer<WireKey>) throws {
        switch self {
        case let .hello(role, deviceId, voipToken, bundleId):
            try c.encode(role, forKey: "role")
            try c.encode(deviceId, forKey: "deviceId")
            try c.encode(voipToken, forKey: "voipToken")
            try c.encode(bundleId, forKey: "bundleId")
        case let .registerToken(deviceId, voipToken, bundleId):
            try c.encode(deviceId, forKey: "deviceId")
            try c.encode(voipToken, forKey: "voipToken")
            try c.encode(bundleId, forKey: "bundleId")
        case let .answer(callId, sdp):
            try c.encode(callId, forKey: "callId")
            try c.encode(sdp, forKey: "sdp")
        case let .ice(callId, candidate):
            try c.encode(callId, forKey: "callId")
            try c.encode(candidate, forKey: "candidate")
        case let .join(callId), let .accept(callId), let .reject(callId),
             let .hangup(callId), let .openDoor(callId):
            try c.encode(callId, forKey: "callId")
        case .ping:
            break
        }
    }

    public static func decode(type: String, from c: KeyedDecodingContainer<WireKey>) throws -> ClientMessage? {
        switch type {
        case "hello":
            return .hello(role: try c.string("role"), deviceId: try c.optionalString("deviceId") ?? "",
                          voipToken: try c.optionalString("voipToken") ?? "",
                          bundleId: try c.optionalString("bundleId") ?? "")
        case "register-token":
            return .registerToken(deviceId: try c.string("deviceId"), voipToken: try c.string("voipToken"),
                                  bundleId: try c.optionalString("bundleId") ?? "")
        case "join": return .join(callId: try c.string("callId"))
        case "answer": return .answer(callId: try c.string("callId"), sdp: try c.string("sdp"))
        case "ice": return .ice(callId: try c.string("callId"), candidate: try c.candidate())
        case "accept": return .accept(callId: try c.string("callId"))
        case "reject": return .reject(callId: try c.string("callId"))
        case "hangup": return .hangup(callId: try c.string("callId"))
        case "open-door": return .openDoor(callId: try c.string("callId"))
        case "ping": return .ping
        default: return nil
        }
    }
}
