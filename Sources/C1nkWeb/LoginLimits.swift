/// Which logins may be tried now, against a guesser on the LAN: `perAddress`
/// wrong passwords from one address within the window limit that address,
/// and `global` wrong passwords from all addresses together limit every
/// address that has failed within the window — but never an address that
/// has not, so the right password from a new address (the resident's phone)
/// still logs in while someone guesses. A try counts as a failure from the
/// moment it is let through (tries in flight count), and a success takes
/// its own back. Pure: the time is given.
public struct LoginLimits: Sendable {
    public enum Decision: Equatable, Sendable {
        case allowed
        /// Refused unhashed; `retryAfter` seconds; `global` when the limit of all addresses held it.
        case limited(retryAfter: Double, global: Bool)
    }

    public let window: Double
    public let global: Int
    private var addresses: LoginRateLimiter
    /// The times of the latest failures of all addresses, at most `global`.
    private var failures: [Double] = []

    public init(perAddress: Int = 5, global: Int = 20, window: Double = 60, addresses: Int = 1024) {
        self.window = window
        self.global = global
        self.addresses = LoginRateLimiter(limit: perAddress, window: window, peers: addresses)
    }

    public func check(_ peer: String, now: Double) -> Decision {
        if let wait = addresses.retryAfter(peer, now: now) { return .limited(retryAfter: wait, global: false) }
        let recent = failures.filter { now - $0 < window }
        if recent.count >= global, addresses.recentFailures(peer, now: now) > 0, let oldest = recent.first {
            return .limited(retryAfter: max(1, (oldest + window - now).rounded(.up)), global: true)
        }
        return .allowed
    }

    /// A try let through: counted as a failure until `succeeded`.
    public mutating func begin(_ peer: String, now: Double) {
        addresses.failed(peer, now: now)
        failures.removeAll { now - $0 >= window }
        failures.append(now)
        if failures.count > global { failures.removeFirst(failures.count - global) }
    }

    /// The try of `peer` begun at `started` had the right password.
    public mutating func succeeded(_ peer: String, started: Double) {
        addresses.succeeded(peer)
        if let index = failures.lastIndex(of: started) { failures.remove(at: index) }
    }

    /// Wrong passwords of all addresses within the window (at most `global` are kept).
    public func globalFailures(now: Double) -> Int { failures.filter { now - $0 < window }.count }
}
