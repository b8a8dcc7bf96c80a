/// How many failed logins a peer may make: `limit` failures within `window`
/// seconds, then none until the oldest of them is `window` old. Pure (the
/// time is given); a success clears the peer. At most `peers` peers are
/// remembered (the oldest forgotten first), so a flood cannot grow it.
public struct LoginRateLimiter: Sendable {
    public let limit: Int
    public let window: Double
    public let peers: Int
    private var failures: [String: [Double]] = [:]
    private var order: [String] = []

    public init(limit: Int = 5, window: Double = 60, peers: Int = 1024) {
        self.limit = limit
        self.window = window
        self.peers = peers
    }

    /// nil when `peer` may try now; otherwise the seconds to wait.
    public func retryAfter(_ peer: String, now: Double) -> Double? {
        let recent = (failures[peer] ?? []).filter { now - $0 < window }
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, (oldest + window - now).rounded(.up))
    }

    /// Failures of `peer` within the window.
    public func recentFailures(_ peer: String, now: Double) -> Int {
        (failures[peer] ?? []).filter { now - $0 < window }.count
    }

    public mutating func failed(_ peer: String, now: Double) {
        var recent = (failures[peer] ?? []).filter { now - $0 < window }
        recent.append(now)
        if recent.count > limit { recent.removeFirst(recent.count - limit) }
        if failures[peer] == nil {
            order.append(peer)
            if order.count > peers {
                failures[order.removeFirst()] = nil
            }
        }
        failures[peer] = recent
    }

    public mutating func succeeded(_ peer: String) {
        failures[peer] = nil
        order.removeAll { $0 == peer }
    }
}
