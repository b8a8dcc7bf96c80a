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
    /// Why a command was refused, and errors of the answerer; never retained.
    public var error: String { prefix + "/error" }

    /// Home Assistant's own status (`online` when it starts: discovery again).
    public static let homeAssistantStatus = "homeassistant/status"

    /// Whether `prefix` can carry topics: not empty, no wildcards, no NUL.
    public static func check(prefix: String) -> String? {
        if prefix.isEmpty || prefix.allSatisfy({ $0 == "/" }) { return "the MQTT topic prefix is empty; pass --mqtt-topic PREFIX, e.g. c1nk/door" }
        if prefix.contains("+") || prefix.contains("#") || prefix.contains("\u{0}") {
            return "the MQTT topic prefix \(prefix) holds a wildcard (+ or #); pass --mqtt-topic without them"
        }
        return nil
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
