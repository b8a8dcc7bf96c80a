import C1nkGLibBase

extension Log {
    /// Phones rung over SIP: the agent, each phone's call, its media (`GST_DEBUG=c1nk-sip:5`).
    package static let sip = Log("c1nk-sip", description: "c1nk SIP bridge")
}
