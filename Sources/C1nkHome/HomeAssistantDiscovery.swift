import C1nkProtocol
import FoundationEssentials

/// Home Assistant's MQTT discovery for one answerer: one device-based
/// document (`homeassistant/device/<id>/config`, retained) declaring the
/// doorbell event, the call state, the buttons, the mute switch, the last
/// visitor's snapshot and the server link; with an open code, two locks
/// that ask for it (answer the call, open the door), without one a sensor
/// saying that opening over MQTT is off. Pure: the text is built here, published by the link.
public struct HomeAssistantDiscovery: Sendable {
    public let deviceId: String
    public let deviceName: String
    public let topics: HomeTopics
    public var softwareVersion: String?
    /// The open code's `code_format`; nil without a code (no entity accepts or opens then).
    public var codeFormat: String?

    /// The event types, in the order Home Assistant lists them; `ring` is required for a doorbell.
    public static let eventTypes = ["ring", "answered", "missed", "answered_elsewhere", "door_opened", "sip_ringing", "sip_answered"]
    public static let callStates = ["idle", "ringing", "in_call"]

    public init(deviceId: String, deviceName: String, topics: HomeTopics, softwareVersion: String? = nil) {
        self.deviceId = deviceId
        self.deviceName = deviceName
        self.topics = topics
        self.softwareVersion = softwareVersion
    }

    /// `C1nk <hostname>`.
    public static func deviceName(hostname: String) -> String { "C1nk " + hostname }

    /// The node id in the discovery topic: letters, digits, `_` and `-` only.
    public var nodeId: String {
        let allowed = deviceId.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" }
        return allowed.isEmpty ? "c1nk" : String(allowed)
    }

    public var topic: String { "homeassistant/device/\(nodeId)/config" }

    /// The entities, by their id inside the device (`cmps`).
    public var components: [String: [String: Any]] {
        let id = nodeId
        func entity(_ key: String, _ platform: String, _ name: String, _ fields: [String: Any]) -> (String, [String: Any]) {
            (key, fields.merging(["p": platform, "name": name, "unique_id": "\(id)_\(key)"]) { a, _ in a })
        }
        func button(_ key: String, _ name: String, _ word: String, _ icon: String) -> (String, [String: Any]) {
            entity(key, "button", name, ["command_topic": topics.command, "payload_press": word, "retain": false, "icon": icon])
        }
        let list: [(String, [String: Any])] = [
            entity("doorbell", "event", "Doorbell", [
                "device_class": "doorbell", "event_types": Self.eventTypes, "state_topic": topics.event,
            ]),
            entity("call", "sensor", "Call", [
                "device_class": "enum", "options": Self.callStates, "state_topic": topics.call,
                "value_template": "{{ value_json.state }}", "json_attributes_topic": topics.call, "icon": "mdi:phone",
            ]),
            button("reject", "Reject", "reject", "mdi:phone-hangup"),
            button("hangup", "Hang up", "hangup", "mdi:phone-off"),
            entity("mute", "switch", "Mute", [
                "command_topic": topics.command, "payload_on": "mute", "payload_off": "unmute", "retain": false,
                "state_topic": topics.mute, "state_on": "ON", "state_off": "OFF", "icon": "mdi:microphone-off",
            ]),
            entity("snapshot", "image", "Last visitor", [
                "image_topic": topics.snapshot, "content_type": "image/jpeg", "icon": "mdi:doorbell-video",
            ]),
            entity("server", "binary_sensor", "Server link", [
                "device_class": "connectivity", "state_topic": topics.server, "payload_on": "ON", "payload_off": "OFF",
                "entity_category": "diagnostic",
            ]),
        ] + codeEntities(entity)
        return Dictionary(uniqueKeysWithValues: list)
    }

    /// The code goes in the payload, as JSON (`tojson` quotes whatever the code holds).
    public static let commandTemplate = #"{"command":"{{ value }}","code":{{ code | tojson }}}"#

    /// With a code: the door as a `lock` whose unlock and open open it, and
    /// the call as a `lock` whose unlock accepts and lock hangs up, both asking
    /// for the code (a button cannot). Without: a diagnostic sensor, `disabled`.
    /// What the other mode (or an earlier version: the accept and open
    /// buttons) declared is removed, as Home Assistant asks: the platform alone.
    private func codeEntities(_ entity: (String, String, String, [String: Any]) -> (String, [String: Any])) -> [(String, [String: Any])] {
        let removed: [(String, [String: Any])] = [("accept", ["p": "button"]), ("open", ["p": "button"])]
        guard let codeFormat else {
            return removed + [("door", ["p": "lock"]), ("answer", ["p": "lock"]), entity("mqtt_open", "sensor", "Open over MQTT", [
                "state_topic": topics.door, "entity_category": "diagnostic", "icon": "mdi:lock-off",
            ])]
        }
        let asksForCode: [String: Any] = ["command_topic": topics.command, "command_template": Self.commandTemplate,
                                          "code_format": codeFormat, "retain": false]
        return removed + [("mqtt_open", ["p": "sensor"]),
            entity("door", "lock", "Door", asksForCode.merging([
                "payload_unlock": "open", "payload_open": "open", "payload_lock": "lock",
                "state_topic": topics.door, "state_locked": "LOCKED", "state_open": "OPEN", "icon": "mdi:door",
            ]) { a, _ in a }),
            entity("answer", "lock", "Answer", asksForCode.merging([
                "payload_unlock": "accept", "payload_lock": "hangup", "state_topic": topics.call,
                "value_template": "{{ 'UNLOCKED' if value_json.state == 'in_call' else 'LOCKED' }}", "icon": "mdi:phone",
            ]) { a, _ in a }),
        ]
    }

    /// The whole document.
    public var document: [String: Any] {
        var device: [String: Any] = ["ids": [nodeId], "name": deviceName, "mf": "C1nk", "mdl": "c1nk-gst-answer"]
        if let softwareVersion { device["sw"] = softwareVersion }
        return [
            "dev": device,
            "o": ["name": "c1nk-gst"],
            "cmps": components,
            "availability_topic": topics.availability,
            "payload_available": "online",
            "payload_not_available": "offline",
            "qos": 1,
        ]
    }

    public var publication: HomePublication {
        HomePublication(topic, HomeJSON.text(document), retain: true)
    }
}

/// Compact JSON with sorted keys, the same text every time.
enum HomeJSON {
    static func text(_ object: [String: Any]) -> String {
        guard let data = JSONValue.text(of: object, sortedKeys: true, escapingSlashes: false) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
