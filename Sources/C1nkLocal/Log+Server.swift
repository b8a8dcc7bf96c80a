import C1nkGLibBase

extension Log {
    /// The local signaling server: connections, every message routed (`GST_DEBUG=c1nk-server:5`).
    package static let server = Log("c1nk-server", description: "c1nk local signaling server")
}
