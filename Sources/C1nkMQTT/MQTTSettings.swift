import Glibc

/// Where the broker is and how to log in: from `--mqtt URL`, `--mqtt-user`,
/// `--mqtt-password-file` and `--mqtt-trust-ca`.
public struct MQTTSettings: Equatable, Sendable {
    public var host: String
    public var port: Int
    /// `mqtts://`: TLS, checked against `trustCA` or the system's CAs.
    public var tls: Bool
    public var trustCA: String?
    public var user: String?
    public var password: String?
    public var clientId: String
    public var keepAlive = 30
    /// Published by the broker when this client goes away without saying so.
    public var will: MQTTMessage?
    public var initialBackoff = 1.0
    public var maximumBackoff = 60.0
    /// A received payload over this many bytes is not copied: it arrives empty, with its length.
    /// Above the largest snapshot by default; `HomeMQTT` takes commands alone, and sets `HomeCommand.maximumBytes`.
    public var largestPayload = 16 * 1024 * 1024

    public init(host: String, port: Int, tls: Bool = false, clientId: String) {
        self.host = host
        self.port = port
        self.tls = tls
        self.clientId = clientId
    }

    /// `mqtt://host[:1883]` or `mqtts://host[:8883]`.
    public init(url: String, clientId: String) throws {
        let usage = "use mqtt://host:1883 or mqtts://host:8883"
        let tls: Bool
        let rest: Substring
        if url.hasPrefix("mqtt://") { tls = false; rest = url.dropFirst(7) }
        else if url.hasPrefix("mqtts://") { tls = true; rest = url.dropFirst(8) }
        else { throw MQTTError("--mqtt \(url) is not an MQTT address; \(usage)") }
        let authority = rest.hasSuffix("/") ? rest.dropLast() : rest
        guard !authority.contains("/"), !authority.contains("@") else {
            throw MQTTError("--mqtt \(url): give only the host and port (the login goes in --mqtt-user and --mqtt-password-file); \(usage)")
        }
        var host = String(authority)
        var port = tls ? 8883 : 1883
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw MQTTError("--mqtt \(url): an unclosed [ in the host; \(usage)") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()) else { throw MQTTError("--mqtt \(url): a bad port; \(usage)") }
                port = p
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let p = Int(authority[authority.index(after: colon)...]) else {
                throw MQTTError("--mqtt \(url): the port is not a number; \(usage)")
            }
            port = p
        }
        guard !host.isEmpty else { throw MQTTError("--mqtt \(url) names no host; \(usage)") }
        guard (1...65535).contains(port) else { throw MQTTError("--mqtt \(url): port \(port) is out of range (1 to 65535); \(usage)") }
        self.init(host: host, port: port, tls: tls, clientId: clientId)
    }
}
