import C1nkGLibBase

extension Log {
    /// The signaling client: connects, messages, keep-alive, reconnects (`GST_DEBUG=c1nk-signal:5`).
    package static let signaling = Log("c1nk-signal", description: "c1nk signaling client")
}
