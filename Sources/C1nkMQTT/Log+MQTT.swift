import C1nkGLibBase

extension Log {
    /// The MQTT link: connects, losses, retries, refused commands (`GST_DEBUG=c1nk-mqtt:5`).
    package static let mqtt = Log("c1nk-mqtt", description: "c1nk MQTT link")
}
