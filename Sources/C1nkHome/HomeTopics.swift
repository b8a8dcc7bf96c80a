/// The MQTT topics of one answerer, under its prefix (`--mqtt-topic`, default `c1nk/<device id>`).
public struct HomeTopics: Equatable, Sendable {
    public let prefix: String

    public init(prefix: String) {
        var trimmed = Substring(prefix)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        self.prefix = String(trimmed)
    }

    /// `online` while connected, `offline` (the last will) otherwise; retained.
    public var availability: String { prefix + "/availability" }
    /// The doorbell's events (`ring`, `answered`, …); never retained.
    public var event: String { prefix + "/event" }
    /// The call state as JSON (`{"state":"ringing","door":…}`); retained.
    public var call: String { prefix + "/call" }
    /// `ON` while the microphone is muted; retained.
    public var mute: String { prefix + "/mute" }
    /// `ON` while the C1nk server link is up; retained.
    public var server: String { prefix + "/server" }
    /// The last visitor's snapshot, the JPEG's bytes (the `image` entity); retained.
    public var snapshot: String { prefix + "/snapshot" }
    /// Commands in; only what arrives live and unretained is obeyed.
    public var command: String { prefix + "/command" }
    /// The door's lock for Home Assistant (`LOCKED`, `OPEN` once opened in the call), or `disabled`
    /// when no open code was given; retained.
    public var door: String { prefix + "/door" }
    /// Why a command was refused, and errors of the answerer; never retained.
    public var error: String { prefix + "/error" }

    /// Home Assistant's own status (`online` when it starts: discovery again).
    public static let homeAssistantStatus = "homeassistant/status"

    /// The longest prefix taken, in bytes: room for the levels after it, far under MQTT's 65535.
    public static let maximumPrefixBytes = 200

    /// Whether `prefix` can carry topics: not empty, no wildcards, no NUL or
    /// other control character, not a broker's `$` topic, at most `maximumPrefixBytes`.
    public static func check(prefix: String) -> String? {
        let fix = "pass --mqtt-topic PREFIX, e.g. c1nk/door"
        if prefix.isEmpty || prefix.allSatisfy({ $0 == "/" }) { return "the MQTT topic prefix is empty; \(fix)" }
        if prefix.utf8.count > maximumPrefixBytes {
            return "the MQTT topic prefix is \(prefix.utf8.count) bytes, over the limit of \(maximumPrefixBytes); \(fix)"
        }
        let shown = String(prefix.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        if prefix.contains("+") || prefix.contains("#") {
            return "the MQTT topic prefix \(shown) holds a wildcard (+ or #); pass --mqtt-topic without them"
        }
        if prefix.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the MQTT topic prefix \(shown) holds a NUL or another control character; \(fix)"
        }
        if prefix.hasPrefix("$") { return "the MQTT topic prefix \(shown) starts with $, which brokers keep for themselves; \(fix)" }
        return nil
    }

    /// `c1nk/<device id>`, with anything of the id a topic level cannot hold
    /// (`/`, `+`, `#`, control characters) as `_`, so that the id can never
    /// widen a subscription, cut to `maximumPrefixBytes`; `changed` when it is not the id as given.
    public static func defaultPrefix(deviceId: String) -> (prefix: String, changed: Bool) {
        let level = String(deviceId.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar == "+" || scalar == "#" || scalar == "$" || scalar.properties.generalCategory == .control
                ? "_" : Character(scalar)
        })
        var prefix = "c1nk/" + (level.isEmpty ? "_" : level)
        while prefix.utf8.count > maximumPrefixBytes { prefix.removeLast() }
        return (prefix, prefix != "c1nk/" + deviceId)
    }
}

/// One message to publish: its topic, its text and whether the broker keeps it.
public struct HomePublication: Equatable, Sendable {
    public var topic: String
    public var payload: String
    public var retain: Bool

    public init(_ topic: String, _ payload: String, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }
}
