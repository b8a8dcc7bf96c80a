import C1nkCommandLine
import C1nkGLib
import C1nkHome
import C1nkMQTT
import Glibc

/// The MQTT settings of the command line and config file (docs/home-assistant.md).
struct MQTTCommandOptions {
    var url: String?
    var user: String?
    var passwordFile: String?
    var topic: String?
    var trustCA: String?
    var openCodeFile: String?
    var retainSnapshot = false
}

extension AnswerOption {
    static let mqtt = AnswerOptionSection(title: "Home automation (MQTT, with Home Assistant discovery; docs/home-assistant.md)", options: [
        AnswerOption(name: "mqtt", kind: .value("URL"),
                     help: ["publish the doorbell to this MQTT broker and take commands from it:",
                            "mqtt://host:1883 or mqtts://host:8883 (TLS)"],
                     apply: { c, v in
                         do { _ = try MQTTSettings(url: v, clientId: "check") } catch { throw ArgumentReader.UsageError("\(error)") }
                         c.mqtt.url = v
                     }, show: { $0.mqtt.url ?? "" }),
        AnswerOption(name: "mqtt-user", kind: .value("NAME"),
                     help: ["the broker login's user name"],
                     apply: { c, v in c.mqtt.user = try nonEmpty(v, "--mqtt-user", what: "a user name") },
                     show: { $0.mqtt.user ?? "" }),
        AnswerOption(name: "mqtt-password-file", kind: .value("PATH"),
                     help: ["a file holding the broker password on its first line; owner-only (chmod 600)"],
                     apply: { c, v in
                         do { _ = try MQTTPasswordFile.read(v) } catch { throw ArgumentReader.UsageError("\(error)") }
                         c.mqtt.passwordFile = v
                     }, show: { $0.mqtt.passwordFile ?? "" }),
        AnswerOption(name: "mqtt-topic", kind: .value("PREFIX"),
                     help: ["the topics' prefix (default c1nk/<device id>); no + or #, at most 200 bytes"],
                     apply: { c, v in
                         if let problem = HomeTopics.check(prefix: v) { throw ArgumentReader.UsageError(problem) }
                         c.mqtt.topic = v
                     }, show: { $0.mqtt.topic ?? "" }),
        AnswerOption(name: "mqtt-trust-ca", kind: .value("FILE"),
                     help: ["trust this PEM certificate authority for mqtts:// (default the system's)"],
                     apply: { c, v in
                         guard access(v, R_OK) == 0 else {
                             throw ArgumentReader.UsageError("--mqtt-trust-ca: cannot read \(v); give a readable PEM file")
                         }
                         c.mqtt.trustCA = v
                     }, show: { $0.mqtt.trustCA ?? "" }),
        AnswerOption(name: "mqtt-open-code-file", kind: .value("PATH"),
                     help: ["a file holding the code that accept and open over MQTT need; owner-only (chmod 600);",
                            "without it MQTT cannot accept a call nor open the door"],
                     apply: { c, v in
                         do { _ = try MQTTOpenCodeFile.read(v) } catch { throw ArgumentReader.UsageError("\(error)") }
                         c.mqtt.openCodeFile = v
                     }, show: { $0.mqtt.openCodeFile ?? "" }),
        AnswerOption(name: "mqtt-retain-snapshot", kind: .flag,
                     help: ["keep the last visitor's picture retained on the broker (off: only sent live)"],
                     apply: { c, v in c.mqtt.retainSnapshot = try bool(v, "--mqtt-retain-snapshot") },
                     show: { $0.mqtt.retainSnapshot ? "true" : "false" }),
    ])
}

extension MQTTCommandOptions {
    /// The link to the broker, or nil without `--mqtt`.
    func makeHome(deviceId: String) throws -> HomeMQTT? {
        guard let settings = try settings(clientId: "c1nk-" + deviceId) else { return nil }
        let prefix: String
        if let topic {
            // Checked when the option was read; again here, whatever set it.
            if let problem = HomeTopics.check(prefix: topic) { throw MQTTError(problem) }
            prefix = topic
        } else {
            // The id comes from a file or the server: it must not widen the subscription (an id of +).
            let fallback = HomeTopics.defaultPrefix(deviceId: deviceId)
            if fallback.changed {
                Log.app.warning("the device id cannot be an MQTT topic level as it is; the topics are under \(fallback.prefix) (or pass --mqtt-topic)")
            }
            prefix = fallback.prefix
        }
        let discovery = HomeAssistantDiscovery(deviceId: deviceId, deviceName: HomeAssistantDiscovery.deviceName(hostname: Self.hostname()),
                                               topics: HomeTopics(prefix: prefix))
        let openCode = try openCodeFile.map(MQTTOpenCodeFile.read)
        return try HomeMQTT(settings: settings, discovery: discovery, openCode: openCode, retainSnapshot: retainSnapshot)
    }

    /// Options that do not go together (a usage error, exit 2), or nil.
    var usageProblem: String? {
        guard let url else {
            if user != nil || passwordFile != nil || topic != nil || trustCA != nil || openCodeFile != nil || retainSnapshot {
                return "--mqtt-user, --mqtt-password-file, --mqtt-topic, --mqtt-trust-ca, --mqtt-open-code-file and --mqtt-retain-snapshot need --mqtt URL too"
            }
            return nil
        }
        if passwordFile != nil, user == nil { return "--mqtt-password-file needs --mqtt-user NAME too" }
        if trustCA != nil, !url.hasPrefix("mqtts://") { return "--mqtt-trust-ca is for mqtts://; use mqtts://host:8883" }
        return nil
    }

    /// Where the broker is and the login, or nil without `--mqtt`.
    func settings(clientId: String) throws -> MQTTSettings? {
        if let usageProblem { throw MQTTError(usageProblem) }
        guard let url else { return nil }
        var settings = try MQTTSettings(url: url, clientId: clientId)
        settings.user = user
        settings.password = try passwordFile.map(MQTTPasswordFile.read)
        settings.trustCA = trustCA
        return settings
    }

    static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "doorbell" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "doorbell" : name
    }
}
