import C1nkAnswerer

import C1nkMQTT

/// The broker's ups and downs as the user sees them: a status line when
/// connected, and an `error` event (and its status line) when it cannot be
/// reached, refuses the login or goes away. Calls go on either way.
enum MQTTStatus {
    static func report(_ status: MQTTClient.Status, url: String, quiet: Bool, events: EventLog) {
        switch status {
        case .connected:
            if !quiet { FileOutput.standardError.write("c1nk-gst-answer: MQTT: connected to \(url); Home Assistant discovery published\n", priority: .info) }
        case let .connectFailed(reason, retryIn):
            events.emit(.error(message: "MQTT broker \(url): \(reason); retrying in \(AnswerOption.number(retryIn)) s (calls go on)"))
        case let .disconnected(reason, retryIn):
            events.emit(.error(message: "MQTT broker \(url) went away (\(reason)); reconnecting in \(AnswerOption.number(retryIn)) s (calls go on)"))
        }
    }
}
