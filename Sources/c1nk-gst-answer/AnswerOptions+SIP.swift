import C1nkCommandLine
import C1nkSIP

/// The SIP bridge's settings of the command line and config file (docs/sip.md).
struct SIPCommandOptions {
    var ring: [SIPURI] = []
    var registrar: SIPURI?
    var user: String?
    var passwordFile: String?
    var address: String?
    var port = 5060
    var transport = "udp"
    var openKey: Character = "#"
    var audioOnly = false
    /// Whether any option other than --sip-ring was given (they need it).
    var anyGiven: Bool { registrar != nil || user != nil || passwordFile != nil || address != nil || port != 5060 || transport != "udp" || openKey != "#" || audioOnly }
}

extension AnswerOption {
    static let sip = AnswerOptionSection(title: "Phones over SIP: a Fritz!Box's handsets, a PBX extension, a desk phone (docs/sip.md)", options: [
        AnswerOption(name: "sip-ring", kind: .list("URI"),
                     help: ["ring this phone too when the door rings, repeatable; all ring at once and the",
                            "first to answer takes the call (e.g. sip:**9@fritz.box, sip:phone@192.168.1.30)"],
                     apply: { c, v in c.sip.ring.append(try sipURI(v, "--sip-ring")) },
                     show: { $0.sip.ring.map(\.text).joined(separator: ";") }),
        AnswerOption(name: "sip-registrar", kind: .value("URI"),
                     help: ["register there as --sip-user (a Fritz!Box: sip:fritz.box); without it the",
                            "phones are called directly"],
                     apply: { c, v in c.sip.registrar = try sipURI(v, "--sip-registrar") },
                     show: { $0.sip.registrar?.text ?? "" }),
        AnswerOption(name: "sip-user", kind: .value("NAME"),
                     help: ["the user name at the registrar (the Fritz!Box's IP phone's user name)"],
                     apply: { c, v in c.sip.user = try nonEmpty(v, "--sip-user", what: "a user name") },
                     show: { $0.sip.user ?? "" }),
        AnswerOption(name: "sip-password-file", kind: .value("PATH"),
                     help: ["a file holding the registrar's password on its first line; owner-only (chmod 600)"],
                     apply: { c, v in
                         do { _ = try SIPPasswordFile.read(v) } catch { throw ArgumentReader.UsageError("\(error)") }
                         c.sip.passwordFile = v
                     }, show: { $0.sip.passwordFile ?? "" }),
        AnswerOption(name: "sip-address", kind: .value("ADDRESS"),
                     help: ["this machine's IPv4 address the phones reach, for SIP and the voice (default: the",
                            "one toward the registrar or first phone when given by number)"],
                     apply: { c, v in
                         guard LocalAddress.isIPv4(v) else {
                             throw ArgumentReader.UsageError("--sip-address takes an IPv4 address of this machine (e.g. 192.168.1.20), not '\(v)'")
                         }
                         c.sip.address = v
                     }, show: { $0.sip.address ?? "" }),
        AnswerOption(name: "sip-port", kind: .value("N"),
                     help: ["listen for SIP on this port (default 5060)"],
                     apply: { c, v in
                         guard let port = Int(v), (1...65535).contains(port) else {
                             throw ArgumentReader.UsageError("--sip-port: \(v) is not a port; give a number from 1 to 65535, e.g. 5060")
                         }
                         c.sip.port = port
                     }, show: { String($0.sip.port) }),
        AnswerOption(name: "sip-transport", kind: .value("udp|tcp"),
                     help: ["SIP over UDP (default) or TCP"],
                     apply: { c, v in
                         if v.lowercased() == "tls" {
                             throw ArgumentReader.UsageError("--sip-transport tls is not supported yet; use udp or tcp on the home network")
                         }
                         c.sip.transport = try ArgumentReader.choice(v.lowercased(), for: "--sip-transport", ["udp", "tcp"])
                     }, show: { $0.sip.transport }),
        AnswerOption(name: "sip-open-key", kind: .value("KEY"),
                     help: ["the phone's key that opens the door, once that phone answered (default #)"],
                     apply: { c, v in
                         guard v.count == 1, let key = v.first, "0123456789*#ABCD".contains(key) else {
                             throw ArgumentReader.UsageError("--sip-open-key takes one phone key: 0-9, *, # or A-D, not '\(v)'")
                         }
                         c.sip.openKey = key
                     }, show: { String($0.sip.openKey) }),
        AnswerOption(name: "sip-audio-only", kind: .flag,
                     help: ["offer the phones no video (by default the door's video is offered, and a video",
                            "phone that takes its codec shows it)"],
                     apply: { c, v in c.sip.audioOnly = try bool(v, "--sip-audio-only") },
                     show: { $0.sip.audioOnly ? "true" : "false" }),
    ])

    static func sipURI(_ text: String, _ option: String) throws -> SIPURI {
        do { return try SIPURI(text) } catch { throw ArgumentReader.UsageError("\(option): \(error)") }
    }
}

extension SIPCommandOptions {
    /// Options that do not go together (a usage error, exit 2), or nil.
    var usageProblem: String? {
        if ring.isEmpty {
            return anyGiven ? "--sip-registrar, --sip-user, --sip-password-file, --sip-address, --sip-port, --sip-transport, --sip-open-key and --sip-audio-only need --sip-ring URI too" : nil
        }
        if registrar != nil, user == nil || passwordFile == nil {
            return "--sip-registrar needs --sip-user NAME and --sip-password-file PATH too"
        }
        if registrar == nil, user != nil || passwordFile != nil {
            return "--sip-user and --sip-password-file are for a registrar: give --sip-registrar URI too"
        }
        if address == nil, localAddress == nil {
            return "--sip-address is needed: the registrar or first phone is given by name; give this machine's IPv4 address the phones reach (e.g. 192.168.1.20)"
        }
        return nil
    }

    /// The address the phones reach: given, or the one toward the registrar or first phone.
    var localAddress: String? {
        if let address { return address }
        guard let host = (registrar ?? ring.first)?.host else { return nil }
        return LocalAddress.toward(host, port: (registrar ?? ring.first)?.port ?? 5060)
    }

    /// The bridge, or nil without `--sip-ring`. Throws what is missing (the agent library, the port).
    func makeBridge() throws -> SIPBridge? {
        if let usageProblem { throw ArgumentReader.UsageError(usageProblem) }
        guard !ring.isEmpty, let address = localAddress else { return nil }
        let password = try passwordFile.map(SIPPasswordFile.read)
        var settings = SIPBridge.Settings(ring: ring, address: address, port: port, transport: transport,
                                          registrar: registrar, user: user, password: password, openKey: openKey)
        settings.video = !audioOnly
        return try SIPBridge(settings: settings)
    }
}
