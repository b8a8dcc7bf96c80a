import Glibc

/// How a session finds its way to the door: STUN/TURN servers and the local
/// addresses to gather on.
public struct IceConfiguration: Equatable, Sendable {
    /// Two public STUN servers, so that a door behind a NAT is reachable without configuration.
    public static let defaultStunServers = ["stun:stun.l.google.com:19302", "stun:stun1.l.google.com:19302"]

    /// `stun:host:port` URLs; empty for none (offline LANs, tests).
    public var stunServers: [String] = IceConfiguration.defaultStunServers
    /// `turn://user:pass@host:port` (or `turns://`) URLs.
    public var turnServers: [String] = []
    /// Gather host candidates on exactly these addresses. Empty: every
    /// interface, and 127.0.0.1 when loopback is all this host has (libnice
    /// never gathers on loopback by itself, so such a host would fail silently).
    public var localAddresses: [String] = []
    /// `relay`: only candidates through a TURN server (webrtcbin's
    /// `ice-transport-policy`), for a door behind a symmetric NAT or to
    /// prove the relay works.
    public var transportPolicy = TransportPolicy.all

    public enum TransportPolicy: String, CaseIterable, Sendable {
        case all, relay
    }

    public init() {}

    /// No STUN, host candidates on 127.0.0.1 only: both ends on this machine
    /// (the demo, the simulated door, tests, benchmarks).
    public static var loopback: IceConfiguration {
        var ice = IceConfiguration()
        ice.stunServers = []
        ice.localAddresses = ["127.0.0.1"]
        return ice
    }

    /// webrtcbin takes `stun://host:port`; users write `stun:host:port` (RFC 7064).
    static func webrtcbinURL(_ url: String) -> String {
        if url.hasPrefix("stun://") || url.hasPrefix("turn://") || url.hasPrefix("turns://") { return url }
        for scheme in ["stun", "turns", "turn"] where url.hasPrefix(scheme + ":") {
            return scheme + "://" + url.dropFirst(scheme.count + 1)
        }
        return url
    }

    /// Whether `text` is an IPv4 or IPv6 address, as a local address to
    /// gather on must be (`--ice-local-ip`, c1nkdoorbin's `ice-local-ip`).
    public static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// The addresses to gather on, resolving the empty default.
    func effectiveLocalAddresses() -> [String] {
        if !localAddresses.isEmpty { return localAddresses }
        return Self.hostHasOnlyLoopback() ? ["127.0.0.1"] : []
    }

    static func hostHasOnlyLoopback() -> Bool {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return false }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor {
            let flags = Int32(entry.pointee.ifa_flags)
            if let address = entry.pointee.ifa_addr,
               address.pointee.sa_family == sa_family_t(AF_INET) || address.pointee.sa_family == sa_family_t(AF_INET6),
               flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 {
                return false
            }
            cursor = entry.pointee.ifa_next
        }
        return true
    }
}
