import C1nkGLib
import C1nkMQTT
import FoundationEssentials

extension Doctor {
    /// With `--mqtt`: the broker is reached and takes the login. Advisory: calls work without it.
    static func mqtt(_ commandLine: AnswerCommandLine) -> Line? {
        let url = commandLine.mqtt.url ?? ""
        let settings: MQTTSettings
        do {
            guard let given = try commandLine.mqtt.settings(clientId: "c1nk-doctor-\(UUID().uuidString.prefix(8))") else { return nil }
            settings = given
        } catch {
            return Line(ok: false, text: "MQTT: \(error)", fix: "correct the --mqtt options", advisory: true)
        }
        let openOverMQTT = commandLine.mqtt.openCodeFile == nil
            ? "MQTT cannot accept a call nor open the door (no --mqtt-open-code-file)"
            : "accept and open over MQTT need the code in \(commandLine.mqtt.openCodeFile ?? "")"
        let client: MQTTClient
        do { client = try MQTTClient(settings: settings) } catch {
            return Line(ok: false, text: "MQTT: \(error)", fix: "check libmosquitto1 and --mqtt-trust-ca", advisory: true)
        }
        var outcome: Line?
        client.onStatus = { status in
            switch status {
            case .connected:
                outcome = Line(ok: true, text: "MQTT broker \(url) is reachable and accepts the login"
                               + (settings.tls ? " over TLS" : "") + "; " + openOverMQTT)
            case .connectFailed(let reason, _), .disconnected(let reason, _):
                outcome = Line(ok: false, text: "MQTT broker \(url): \(reason)",
                               fix: "check the broker, --mqtt, --mqtt-user and --mqtt-password-file", advisory: true)
            }
        }
        client.start()
        MainContext.run(timeout: 8) { outcome != nil }
        client.stop()
        return outcome ?? Line(ok: false, text: "MQTT broker \(url) did not answer within 8 s",
                               fix: "check the network, a firewall, and --mqtt", advisory: true)
    }
}
