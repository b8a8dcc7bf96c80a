/// One MQTT publication, sent or received.
public struct MQTTMessage: Equatable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    /// Sent: the broker keeps it for later subscribers. Received: it was kept, not sent just now.
    public var retain: Bool
    /// Received over `MQTTSettings.largestPayload`: its length; `payload` is then empty, never copied.
    public var uncopiedLength: Int?

    public init(topic: String, payload: [UInt8], retain: Bool = false, uncopiedLength: Int? = nil) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.uncopiedLength = uncopiedLength
    }

    public init(topic: String, text: String, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), retain: retain)
    }
}

/// What went wrong with MQTT, and what to do about it.
public struct MQTTError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
