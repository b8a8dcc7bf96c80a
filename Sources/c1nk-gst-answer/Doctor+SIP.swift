import C1nkCall
import C1nkGLib
import C1nkSIP

extension Doctor {
    /// With `--sip-ring`: the agent library loads, the SIP port is free, and with a registrar the
    /// registration succeeds. Advisory: the door's calls work without the phones.
    static func sip(_ commandLine: AnswerCommandLine) -> [Line] {
        let options = commandLine.sip
        guard !options.ring.isEmpty else { return [] }
        let bridge: SIPBridge
        do {
            guard let made = try options.makeBridge() else { return [] }
            bridge = made
        } catch {
            return [Line(ok: false, text: "SIP: \(error)", fix: "correct the --sip options, or install what is named", advisory: true)]
        }
        var lines = [Line(ok: true, text: "SIP agent (\(SIPAgentLibrary.loadedPath ?? "?")) listens on \(options.localAddress ?? "?"):\(options.port) "
                          + "over \(options.transport); a ring rings \(options.ring.map(\.text).joined(separator: ", "))")]
        if let registrar = options.registrar {
            var outcome: Line?
            bridge.onEvent = { event in
                switch event {
                case .sipRegistered: outcome = Line(ok: true, text: "SIP registrar \(registrar) took the registration of \(options.user ?? "")")
                case .error(_, let message):
                    outcome = Line(ok: false, text: message, fix: "check --sip-registrar, --sip-user and --sip-password-file", advisory: true)
                default: break
                }
            }
            bridge.start()
            MainContext.run(timeout: 8) { outcome != nil }
            lines.append(outcome ?? Line(ok: false, text: "SIP registrar \(registrar) did not answer within 8 s",
                                         fix: "check the network, a firewall, and --sip-registrar", advisory: true))
        }
        var stopped = false
        bridge.stop { stopped = true }
        MainContext.run(timeout: 5) { stopped }
        return lines
    }
}
