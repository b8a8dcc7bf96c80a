/// The intervals of the signaling client. The defaults are the C1nk
/// client's: a `ping` every 25 s, the socket dropped after 40 s with no
/// `pong`, reconnects after 1 s doubling up to 30 s. Tests inject short ones.
public struct SignalTiming: Equatable, Sendable {
    /// `ping` is sent this often while connected.
    public var pingInterval: Double = 25
    /// No `pong` for this long → the connection is considered dead.
    public var pongTimeout: Double = 40
    /// First reconnect delay; doubled after each failure…
    public var initialBackoff: Double = 1
    /// …up to this cap.
    public var maximumBackoff: Double = 30

    public init() {}

    public init(pingInterval: Double, pongTimeout: Double, initialBackoff: Double, maximumBackoff: Double) {
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// The delay before reconnect attempt number `failures` (0 for the first).
    public func backoff(afterFailures failures: Int) -> Double {
        let exponent = Double(min(failures, 30))
        return min(initialBackoff * pow2(exponent), maximumBackoff)
    }

    private func pow2(_ x: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(x) { result *= 2 }
        return result
    }
}
