import C1nkCommandLine
import C1nkDisplay
import C1nkGLib
import C1nkWeb
import FoundationEssentials
import Glibc

/// The web page's settings of the command line and config file (docs/web.md).
struct WebCommandOptions {
    var port: UInt16?
    var certificate: String?
    var key: String?
    var passwordFile: String?
    var tokenFile: String?
    var plainHTTP = false
    var root: String?
    /// One address to listen on; nil: every IPv4 interface.
    var address: String?

    /// The password file when none is given: the state folder's `web-password`.
    static var defaultPasswordFile: String { WebCertificate.defaultFolder() + "/web-password" }
}

extension AnswerOption {
    static let web = AnswerOptionSection(title: "Web page (answer from any phone or laptop; docs/web.md)", options: [
        AnswerOption(name: "web-port", kind: .value("N"),
                     help: ["serve the web page and its API on this port (HTTPS; off by default)"],
                     apply: { c, v in
                         guard let port = UInt16(v), port > 0 else { throw ArgumentReader.UsageError("--web-port takes a port 1-65535, not '\(v)'") }
                         c.web.port = port
                     }, show: { $0.web.port.map(String.init) ?? "" }),
        AnswerOption(name: "web-address", kind: .value("ADDRESS"),
                     help: ["serve the page on this address of the machine only (an IP address, e.g.",
                            "192.168.1.20); default every IPv4 interface"],
                     apply: { c, v in
                         guard HTTPServer.isIPAddress(v) else {
                             throw ArgumentReader.UsageError("--web-address takes an IP address of this machine (e.g. 192.168.1.20), not '\(v)'")
                         }
                         c.web.address = v
                     }, show: { $0.web.address ?? "" }),
        AnswerOption(name: "web-cert", kind: .value("FILE"),
                     help: ["the page's PEM certificate (with --web-key; default a self-signed one in the state folder)"],
                     apply: { c, v in c.web.certificate = try readable(v, "--web-cert") },
                     show: { $0.web.certificate ?? "" }),
        AnswerOption(name: "web-key", kind: .value("FILE"),
                     help: ["the certificate's PEM private key"],
                     apply: { c, v in c.web.key = try readable(v, "--web-key") },
                     show: { $0.web.key ?? "" }),
        AnswerOption(name: "web-password-file", kind: .value("PATH"),
                     help: ["the login's password hash, owner-only (set it with c1nk-gst-answer web-password;",
                            "default ~/.local/state/c1nk/web-password)"],
                     apply: { c, v in c.web.passwordFile = v },
                     show: { $0.web.passwordFile ?? "" }),
        AnswerOption(name: "web-token-file", kind: .value("PATH"),
                     help: ["a bearer token for scripts (Authorization: Bearer …), owner-only, first line"],
                     apply: { c, v in
                         do { _ = try WebSecretFile.readToken(v) } catch { throw ArgumentReader.UsageError("\(error)") }
                         c.web.tokenFile = v
                     }, show: { $0.web.tokenFile ?? "" }),
        AnswerOption(name: "web-plain-http", kind: .flag,
                     help: ["plain HTTP instead of HTTPS, on 127.0.0.1 only (behind a local TLS proxy)"],
                     apply: { c, v in c.web.plainHTTP = v == "true" },
                     show: { $0.web.plainHTTP ? "true" : "false" }),
        AnswerOption(name: "web-root", kind: .value("DIR"),
                     help: ["the page's files (default PREFIX/share/c1nk-gst/web)"],
                     apply: { c, v in
                         guard FileManager.default.fileExists(atPath: v + "/index.html") else {
                             throw ArgumentReader.UsageError("--web-root: \(v) has no index.html; give the folder of the page's files")
                         }
                         c.web.root = v
                     }, show: { $0.web.root ?? "" }),
    ])

    private static func readable(_ path: String, _ option: String) throws -> String {
        guard access(path, R_OK) == 0 else { throw ArgumentReader.UsageError("\(option): cannot read \(path); give a readable PEM file") }
        return path
    }
}

extension WebCommandOptions {
    /// Options that do not go together (a usage error, exit 2), or nil.
    var usageProblem: String? {
        guard port != nil else {
            if certificate != nil || key != nil || tokenFile != nil || plainHTTP || root != nil || address != nil {
                return "--web-address, --web-cert, --web-key, --web-token-file, --web-plain-http and --web-root need --web-port N too"
            }
            return nil
        }
        if (certificate == nil) != (key == nil) { return "--web-cert and --web-key go together: give both, or neither for a self-signed certificate" }
        if plainHTTP, address != nil { return "--web-plain-http listens on 127.0.0.1 only: drop --web-address, or --web-plain-http" }
        if plainHTTP, certificate != nil { return "--web-plain-http serves no certificate: drop --web-cert and --web-key, or --web-plain-http" }
        return nil
    }

    /// The server, or nil without `--web-port`. Its problems (no password set, no page) are the user's to fix.
    func makeServer(recordingTemplate: String?) throws -> WebServer? {
        guard let port else { return nil }
        let passwordPath = passwordFile ?? Self.defaultPasswordFile
        let hash: String
        do { hash = try WebSecretFile.readPasswordHash(passwordPath) } catch {
            throw WebSecretFile.Problem("\(error); set the web page's password first: c1nk-gst-answer web-password\(passwordFile.map { " --web-password-file " + $0 } ?? "")")
        }
        guard let root = root ?? WebRoot.find() else {
            throw WebSecretFile.Problem("the web page's files were not found (looked in \(WebRoot.candidates().joined(separator: ", "))); reinstall c1nk-gst or give --web-root DIR")
        }
        let token = try tokenFile.map(WebSecretFile.readToken)
        var settings = WebServer.Settings(port: port)
        settings.plainHTTP = plainHTTP
        settings.address = address
        if !plainHTTP {
            if let certificate, let key {
                settings.certificate = (certificate, key)
            } else {
                settings.certificate = try WebCertificate.selfSigned(in: WebCertificate.defaultFolder(), hostname: MQTTCommandOptions.hostname())
            }
        }
        // The rings before this process, from the wall display's history file (when it keeps one).
        let history = RingHistory(warn: { Log.app.warning($0) }).latest(100)
        let seed = history.map { WebRings.Ring(t: $0.t, door: $0.door, outcome: $0.outcome.rawValue, snapshot: $0.snapshot) }
        let api = WebAPI(.init(passwordHash: hash, token: token, root: root, recordings: WebRecordings(template: recordingTemplate)),
                         rings: WebRings(seed: seed))
        do {
            return try WebServer(settings: settings, api: api)
        } catch {
            let place = plainHTTP ? "127.0.0.1" : address ?? "every IPv4 interface"
            throw WebSecretFile.Problem("cannot serve the web page on \(place), port \(port) (\(error)); choose a free --web-port"
                                        + (address == nil ? "" : ", or an address of this machine with --web-address"))
        }
    }
}
