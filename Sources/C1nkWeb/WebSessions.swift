/// The logged-in browsers: a random session token (the cookie) and its CSRF
/// token, each session ending after `idle` seconds unused or `lifetime`
/// seconds in all. At most `limit` sessions (the least recently used goes).
/// Pure: the time and the randomness are given.
public struct WebSessions {
    public struct Session: Equatable, Sendable {
        public let token: String
        public let csrf: String
        public let created: Double
        public var lastUsed: Double
    }

    public let idle: Double
    public let lifetime: Double
    public let limit: Int
    private var sessions: [String: Session] = [:]
    private var random: () -> UInt64

    public init(idle: Double = 12 * 3600, lifetime: Double = 30 * 86400, limit: Int = 64,
                random: @escaping () -> UInt64 = { var g = SystemRandomNumberGenerator(); return g.next() }) {
        self.idle = idle
        self.lifetime = lifetime
        self.limit = limit
        self.random = random
    }

    public var count: Int { sessions.count }

    /// A new session, its tokens 256 random bits each.
    public mutating func create(now: Double) -> Session {
        let session = Session(token: token(), csrf: token(), created: now, lastUsed: now)
        sessions[session.token] = session
        if sessions.count > limit, let oldest = sessions.values.min(by: { $0.lastUsed < $1.lastUsed }) {
            sessions[oldest.token] = nil
        }
        return session
    }

    /// The session of `token` if it is alive, marked used now.
    public mutating func use(_ token: String, now: Double) -> Session? {
        guard var session = sessions[token] else { return nil }
        guard now - session.lastUsed < idle, now - session.created < lifetime else {
            sessions[token] = nil
            return nil
        }
        session.lastUsed = now
        sessions[token] = session
        return session
    }

    public mutating func remove(_ token: String) { sessions[token] = nil }

    /// When the session of `token` ends if it is not used again; nil when it has ended.
    public func expiry(_ token: String) -> Double? {
        guard let session = sessions[token] else { return nil }
        return min(session.lastUsed + idle, session.created + lifetime)
    }

    /// Whether the session of `token` is alive at `now` (without using it).
    public func isAlive(_ token: String, now: Double) -> Bool { expiry(token).map { now < $0 } ?? false }

    private mutating func token() -> String {
        (0..<4).map { _ in
            let hex = String(random(), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// Secrets compared without an early exit.
public func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    var difference = UInt8(x.count == y.count ? 0 : 1)
    for index in 0..<min(x.count, y.count) { difference |= x[index] ^ y[index] }
    return difference == 0
}
