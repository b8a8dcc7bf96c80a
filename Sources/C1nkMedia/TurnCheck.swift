import FoundationEssentials

/// What to say when TURN servers were given but none gave a relay candidate.
enum TurnCheck {
    static func noRelayMessage(_ servers: [String]) -> String {
        let named = servers.map(withoutPassword).joined(separator: ", ")
        return "no TURN server gave a relay candidate (\(named)): wrong user or password, or the server is unreachable; "
            + "the call goes on with the other candidates"
    }

    /// `turn://user:secret@host:port` → `turn://user@host:port`.
    static func withoutPassword(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let scheme = url.firstRange(of: "://") else { return url }
        let credentials = url[scheme.upperBound..<at]
        let user = credentials.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        return url[..<scheme.upperBound] + user + url[at...]
    }
}
