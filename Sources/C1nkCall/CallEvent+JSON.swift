import C1nkProtocol
import FoundationEssentials

/// The one JSON encoding of `CallEvent`: one object per line,
/// `{"event": …, "callId": …, "t": <unix ms>, …fields}`, keys sorted, slashes
/// unescaped. The events log writes it, the benchmark and tests read it back.
extension CallEvent {
    /// The event's fields on the wire, `event` and `callId` included, `t` not.
    public var wireFields: [String: JSONValue] {
        var fields: [String: JSONValue] = ["event": .string(name)]
        func set(_ key: String, _ value: String?) { if let value { fields[key] = .string(value) } }
        func set(_ key: String, _ value: Int?) { if let value { fields[key] = .int(value) } }
        set("callId", callId)
        switch self {
        case .connected(let server): set("server", server)
        case .registered(let deviceId): set("deviceId", deviceId)
        case .disconnected(let reason): set("reason", reason)
        case let .connectFailed(reason, retryIn):
            set("reason", reason)
            fields["retryIn"] = .double(retryIn)
        case let .ringing(_, doorName): set("doorName", doorName)
        case let .missed(_, doorName, reason):
            set("doorName", doorName)
            set("reason", reason)
        case .accepted, .doorOpened, .videoStalled: break
        case let .videoResumed(_, stalledMs): set("stalledMs", stalledMs)
        case let .mediaConnected(_, sinceRingMs), let .firstFrame(_, sinceRingMs): set("sinceRingMs", sinceRingMs)
        case let .doorOpenFailed(_, reason): set("reason", reason.rawValue)
        case let .ended(_, reason, doorName, serverReason, frames):
            set("reason", reason.rawValue)
            set("doorName", doorName)
            set("serverReason", serverReason)
            set("frames", frames)
        case let .recording(_, path), let .snapshot(_, path): set("path", path)
        case let .recorded(_, path, error):
            set("path", path)
            set("error", error)
        case let .decoder(_, element, hardware, failed, reason):
            set("element", element)
            fields["hardware"] = .bool(hardware)
            set("failed", failed)
            set("reason", reason)
        case let .levels(_, door, resident, muted):
            fields["door"] = .double(door)
            fields["resident"] = .double(resident)
            fields["muted"] = .bool(muted)
        case let .measurements(_, figures):
            // The figures sit beside the event's own keys, as they always have.
            fields.merge(figures) { own, _ in own }
        case let .mainLoop(_, lateMs): fields["lateMs"] = .object(lateMs)
        case let .error(_, message): set("message", message)
        case let .deleted(path, reason):
            set("path", path)
            set("reason", reason)
        case let .reloaded(applied, needsRestart):
            fields["applied"] = .array(applied.map(JSONValue.string))
            fields["needsRestart"] = .array(needsRestart.map(JSONValue.string))
        case let .sipRegistered(registrar): set("registrar", registrar)
        case let .sipRinging(_, phones): fields["phones"] = .array(phones.map(JSONValue.string))
        case let .sipAnswered(_, phone): set("phone", phone)
        }
        return fields
    }

    /// The object of the events log for this event at `t` (unix milliseconds).
    public func jsonObject(t: Int64) -> [String: Any] {
        var object = wireFields.mapValues(\.any)
        object["t"] = t
        return object
    }

    /// The line of the events log, without its newline; nil if a number
    /// cannot be written in JSON (NaN, infinity).
    public func jsonLine(t: Int64) -> Data? {
        JSONValue.text(of: jsonObject(t: t), sortedKeys: true, escapingSlashes: false)
    }

    /// Reads an event back from its wire fields (`t` is ignored).
    public init(wireFields fields: [String: JSONValue]) throws {
        func string(_ key: String) throws -> String {
            guard let value = fields[key]?.stringValue else { throw CallEventDecodingError(key: key, fields: fields) }
            return value
        }
        func double(_ key: String) throws -> Double {
            guard let value = fields[key]?.doubleValue else { throw CallEventDecodingError(key: key, fields: fields) }
            return value
        }
        func strings(_ key: String) throws -> [String] {
            guard let values = fields[key]?.arrayValue?.compactMap(\.stringValue) else {
                throw CallEventDecodingError(key: key, fields: fields)
            }
            return values
        }
        guard let kind = Kind(rawValue: try string("event")) else { throw CallEventDecodingError(key: "event", fields: fields) }
        switch kind {
        case .connected: self = .connected(server: try string("server"))
        case .registered: self = .registered(deviceId: try string("deviceId"))
        case .disconnected: self = .disconnected(reason: try string("reason"))
        case .connectFailed: self = .connectFailed(reason: try string("reason"), retryIn: try double("retryIn"))
        case .ringing: self = .ringing(callId: try string("callId"), doorName: try string("doorName"))
        case .missed: self = .missed(callId: try string("callId"), doorName: try string("doorName"), reason: try string("reason"))
        case .accepted: self = .accepted(callId: try string("callId"))
        case .mediaConnected: self = .mediaConnected(callId: try string("callId"), sinceRingMs: fields["sinceRingMs"]?.intValue)
        case .firstFrame: self = .firstFrame(callId: try string("callId"), sinceRingMs: fields["sinceRingMs"]?.intValue)
        case .videoStalled: self = .videoStalled(callId: try string("callId"))
        case .videoResumed:
            guard let stalledMs = fields["stalledMs"]?.intValue else { throw CallEventDecodingError(key: "stalledMs", fields: fields) }
            self = .videoResumed(callId: try string("callId"), stalledMs: stalledMs)
        case .doorOpened: self = .doorOpened(callId: try string("callId"))
        case .doorOpenFailed:
            guard let reason = DoorOpenFailure(rawValue: try string("reason")) else {
                throw CallEventDecodingError(key: "reason", fields: fields)
            }
            self = .doorOpenFailed(callId: try string("callId"), reason: reason)
        case .ended:
            guard let reason = CallMachine.EndReason(rawValue: try string("reason")) else {
                throw CallEventDecodingError(key: "reason", fields: fields)
            }
            self = .ended(callId: try string("callId"), reason: reason, doorName: try string("doorName"),
                          serverReason: fields["serverReason"]?.stringValue, frames: fields["frames"]?.intValue)
        case .recording: self = .recording(callId: try string("callId"), path: try string("path"))
        case .snapshot: self = .snapshot(callId: try string("callId"), path: try string("path"))
        case .decoder:
            guard let hardware = fields["hardware"]?.boolValue else { throw CallEventDecodingError(key: "hardware", fields: fields) }
            self = .decoder(callId: try string("callId"), element: try string("element"), hardware: hardware,
                            failed: fields["failed"]?.stringValue, reason: fields["reason"]?.stringValue)
        case .recorded: self = .recorded(callId: try string("callId"), path: try string("path"), error: fields["error"]?.stringValue)
        case .levels:
            guard let muted = fields["muted"]?.boolValue else { throw CallEventDecodingError(key: "muted", fields: fields) }
            self = .levels(callId: try string("callId"), door: try double("door"), resident: try double("resident"), muted: muted)
        case .measurements:
            var figures = fields
            for key in ["event", "callId", "t"] { figures[key] = nil }
            self = .measurements(callId: try string("callId"), figures: figures)
        case .mainLoop:
            guard let lateMs = fields["lateMs"]?.objectValue else { throw CallEventDecodingError(key: "lateMs", fields: fields) }
            self = .mainLoop(callId: try string("callId"), lateMs: lateMs)
        case .error: self = .error(callId: fields["callId"]?.stringValue, message: try string("message"))
        case .deleted: self = .deleted(path: try string("path"), reason: try string("reason"))
        case .reloaded: self = .reloaded(applied: try strings("applied"), needsRestart: try strings("needsRestart"))
        case .sipRegistered: self = .sipRegistered(registrar: try string("registrar"))
        case .sipRinging: self = .sipRinging(callId: try string("callId"), phones: try strings("phones"))
        case .sipAnswered: self = .sipAnswered(callId: try string("callId"), phone: try string("phone"))
        }
    }
}

/// One line of the events log read back: the event and its time.
public struct TimedCallEvent: Equatable, Sendable {
    public var event: CallEvent
    /// Unix milliseconds.
    public var t: Int64

    public init(event: CallEvent, t: Int64) {
        self.event = event
        self.t = t
    }

    /// Reads one line of the events log.
    public init(line: Data) throws {
        let fields = try JSONDecoder().decode([String: JSONValue].self, from: line)
        guard let t = fields["t"]?.intValue else { throw CallEventDecodingError(key: "t", fields: fields) }
        self.init(event: try CallEvent(wireFields: fields), t: Int64(t))
    }

    /// Every event of an events log's text; lines that are not events are skipped.
    public static func read(_ text: String) -> [TimedCallEvent] {
        text.split(separator: "\n").compactMap { try? TimedCallEvent(line: Data($0.utf8)) }
    }
}

/// A line of the events log that is not an event of this version.
public struct CallEventDecodingError: Error, CustomStringConvertible {
    public let key: String
    public let fields: [String: JSONValue]
    public var description: String {
        "not a c1nk-gst event: field \"\(key)\" is missing or not understood in \(fields.keys.sorted())"
    }
}
