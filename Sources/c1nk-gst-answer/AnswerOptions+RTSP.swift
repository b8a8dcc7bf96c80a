import C1nkAnswerer
import C1nkCommandLine
import C1nkGLib
import C1nkMedia
import C1nkMQTT
import C1nkRTSP

/// The RTSP restream's settings of the command line and config file (docs/home-assistant.md).
struct RTSPCommandOptions {
    var port: Int?
    var user: String?
    var passwordFile: String?
    var anonymous = false
    /// One address to listen on; nil: every IPv4 address.
    var address: String?
}

extension AnswerOption {
    static let rtsp = AnswerOptionSection(title: "Live restream over RTSP (docs/home-assistant.md)", options: [
        AnswerOption(name: "rtsp-port", kind: .value("N"),
                     help: ["serve the call in progress at rtsp://<host>:N/door (video and audio as",
                            "received, not re-encoded); off by default; needs a login or --rtsp-anonymous"],
                     apply: { c, v in
                         guard let port = RTSPSettings.port(v) else {
                             throw ArgumentReader.UsageError("--rtsp-port: \(v) is not a port; give a number from 1 to 65535, e.g. 8554")
                         }
                         c.rtsp.port = port
                     }, show: { $0.rtsp.port.map(String.init) ?? "" }),
        AnswerOption(name: "rtsp-address", kind: .value("ADDRESS"),
                     help: ["listen for RTSP on this address of the machine only (an IP address, e.g.",
                            "192.168.1.20 or 127.0.0.1); default every IPv4 address"],
                     apply: { c, v in
                         guard HTTPServer.isIPAddress(v) else {
                             throw ArgumentReader.UsageError("--rtsp-address takes an IP address of this machine (e.g. 192.168.1.20), not '\(v)'")
                         }
                         c.rtsp.address = v
                     }, show: { $0.rtsp.address ?? "" }),
        AnswerOption(name: "rtsp-user", kind: .value("NAME"),
                     help: ["the RTSP clients' user name (Digest authentication)"],
                     apply: { c, v in c.rtsp.user = try nonEmpty(v, "--rtsp-user", what: "a user name") },
                     show: { $0.rtsp.user ?? "" }),
        AnswerOption(name: "rtsp-password-file", kind: .value("PATH"),
                     help: ["a file holding the RTSP password on its first line; owner-only (chmod 600)"],
                     apply: { c, v in
                         _ = try RTSPCommandOptions.readPassword(v)
                         c.rtsp.passwordFile = v
                     }, show: { $0.rtsp.passwordFile ?? "" }),
        AnswerOption(name: "rtsp-anonymous", kind: .flag,
                     help: ["serve the restream without a login, to anyone who reaches the port"],
                     apply: { c, v in c.rtsp.anonymous = try bool(v, "--rtsp-anonymous") },
                     show: { $0.rtsp.anonymous ? "true" : "false" }),
    ])
}

extension RTSPCommandOptions {
    /// Options that do not go together (a usage error, exit 2), or nil.
    var usageProblem: String? {
        if address != nil, port == nil { return "--rtsp-address needs --rtsp-port N too" }
        return RTSPAccess.usageProblem(port: port, user: user != nil, passwordFile: passwordFile != nil, anonymous: anonymous)
    }

    /// The password file's first line: the same owner-only check as `--mqtt-password-file`'s, in this option's words.
    static func readPassword(_ path: String) throws -> String {
        do {
            return try MQTTPasswordFile.read(path)
        } catch {
            let text = "\(error)".replacing("MQTT password file", with: "RTSP password file")
                .replacing("--mqtt-password-file", with: "--rtsp-password-file")
            throw ArgumentReader.UsageError(text)
        }
    }

    /// The restream, or nil without `--rtsp-port`.
    func makeRestream() throws -> RTSPRestream? {
        if let usageProblem { throw RTSPError(usageProblem) }
        guard let port else { return nil }
        let access: RTSPAccess
        if anonymous { access = .anonymous } else { access = .login(user: user ?? "", password: try Self.readPassword(passwordFile ?? "")) }
        return try RTSPRestream(settings: RTSPSettings(port: port, access: access, address: address))
    }
}
