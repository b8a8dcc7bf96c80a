/// What a phone's Wi-Fi does to the packets between it and the answerer, as
/// `PhoneNetwork` applies it with the kernel's own tools: nftables for loss
/// (both ways, UDP only, so the page's HTTPS still loads), `tc tbf` for a
/// bandwidth cap, and a userspace relay (`JitterTunnel`) for jitter, which
/// this kernel cannot do without `netem`. A drop-out is not part of the
/// link: `PhoneNetwork.dropOut(for:)` starts one while a call runs.
public struct PhoneLink: Equatable, Sendable, CustomStringConvertible {
    /// Random loss of UDP packets, each on its own, 0…100 %.
    public var lossPercent = 0
    /// Loss in bursts: this many packets in a row out of every 100 (0: none).
    public var burstOfPackets = 0
    /// A cap on the rate each way in kbit/s (0: none).
    public var capKbps = 0
    /// Every packet delayed by `jitterMs ± jitterSpreadMs` (0: no relay).
    public var jitterMs = 0
    public var jitterSpreadMs = 0

    public init(lossPercent: Int = 0, burstOfPackets: Int = 0, capKbps: Int = 0, jitterMs: Int = 0, jitterSpreadMs: Int = 0) {
        self.lossPercent = lossPercent
        self.burstOfPackets = burstOfPackets
        self.capKbps = capKbps
        self.jitterMs = jitterMs
        self.jitterSpreadMs = jitterSpreadMs
    }

    public static let clean = PhoneLink()

    /// Whether packets cross the jitter relay instead of a veth pair.
    public var needsRelay: Bool { jitterMs > 0 || jitterSpreadMs > 0 }

    public var description: String {
        var parts: [String] = []
        if lossPercent > 0 { parts.append("\(lossPercent) % loss") }
        if burstOfPackets > 0 { parts.append("bursts of \(burstOfPackets) (\(burstOfPackets) %)") }
        if capKbps > 0 { parts.append(capKbps % 1000 == 0 ? "\(capKbps / 1000) Mbit/s cap" : "\(capKbps) kbit/s cap") }
        if needsRelay { parts.append("jitter \(jitterMs) ± \(jitterSpreadMs) ms") }
        return parts.isEmpty ? "clean" : parts.joined(separator: ", ")
    }

    /// nftables matches of the packets to drop, for the phone's `input` and `output` chains.
    var lossMatches: [String] {
        var matches: [String] = []
        if lossPercent > 0 { matches.append("meta l4proto udp numgen random mod 100 < \(lossPercent)") }
        if burstOfPackets > 0 { matches.append("meta l4proto udp numgen inc mod 100 < \(burstOfPackets)") }
        return matches
    }
}
