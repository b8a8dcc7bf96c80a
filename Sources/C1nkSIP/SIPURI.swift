/// A phone's address as given with `--sip-ring`: `sip:user@host[:port][;params]`
/// (or `sips:`), checked before it reaches the SIP stack or a log line.
/// The whole text is kept as given; only what the bridge needs is read out.
public struct SIPURI: Equatable, Sendable, CustomStringConvertible {
    /// Longer addresses are refused: no phone needs more, and the text ends up in headers.
    public static let longest = 256

    public let text: String
    public let isSecure: Bool
    public let user: String?
    public let host: String
    public let port: Int?

    public var description: String { text }

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(_ text: String) throws {
        func invalid(_ why: String) -> Invalid {
            Invalid(description: "not a SIP address (\(why)): give one like sip:phone@192.168.1.20:5060")
        }
        guard text.utf8.count <= Self.longest else { throw invalid("longer than \(Self.longest) bytes") }
        // Printable ASCII only: no spaces, no control characters, nothing that could end a header line.
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }), !text.contains("<"), !text.contains(">"),
              !text.contains("\"") else {
            throw invalid("spaces, control characters, quotes or angle brackets")
        }
        let rest: Substring
        if text.lowercased().hasPrefix("sips:") { isSecure = true; rest = text.dropFirst(5) }
        else if text.lowercased().hasPrefix("sip:") { isSecure = false; rest = text.dropFirst(4) }
        else { throw invalid("it must start with sip: or sips:") }
        // Parameters and headers are the stack's business; the address part ends at the first ';' or '?'.
        let address = rest.prefix { $0 != ";" && $0 != "?" }
        var hostPort = address
        if let at = address.lastIndex(of: "@") {
            let user = address[..<at]
            guard !user.isEmpty else { throw invalid("an empty user before @") }
            self.user = String(user)
            hostPort = address[address.index(after: at)...]
        } else {
            self.user = nil
        }
        var host = hostPort
        var port: Int? = nil
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw invalid("an IPv6 address without ]") }
            host = hostPort[...close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()) else { throw invalid("a bad port") }
                port = p
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            guard let p = Int(hostPort[hostPort.index(after: colon)...]) else { throw invalid("a bad port") }
            port = p
        }
        if let port, !(1...65535).contains(port) { throw invalid("port \(port) is not 1–65535") }
        guard !host.isEmpty else { throw invalid("no host") }
        let hostOK = host.hasPrefix("[")
            ? host.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
            : host.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
        guard hostOK else { throw invalid("a host that is not a name or an address") }
        self.text = text
        self.host = String(host)
        self.port = port
    }
}
