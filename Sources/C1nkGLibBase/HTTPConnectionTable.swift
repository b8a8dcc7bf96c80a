/// The connections of an `HTTPServer`, against a client that holds them
/// open (slowloris): at most `maximum` at once and `perAddress` from one
/// address, a TLS handshake and a request's headers complete within
/// `headerTimeout` of the connection (or of the request's first byte), a
/// body within `headerTimeout` of its headers, and a keep-alive connection
/// idle at most `idleTimeout` between requests. While a request is being
/// answered — an event stream, a download — there is no deadline: those
/// are counted, never timed out. Pure: the time is given.
public struct HTTPConnectionTable: Sendable {
    public struct Limits: Sendable, Equatable {
        public var maximum: Int
        public var perAddress: Int
        public var headerTimeout: Double
        public var idleTimeout: Double

        public init(maximum: Int = 64, perAddress: Int = 16, headerTimeout: Double = 10, idleTimeout: Double = 30) {
            self.maximum = maximum
            self.perAddress = perAddress
            self.headerTimeout = headerTimeout
            self.idleTimeout = idleTimeout
        }
    }

    public enum Phase: String, Sendable {
        /// The TLS handshake and the request's headers, or the next request's headers.
        case headers
        case body
        /// The request is being answered: no deadline.
        case answering
        /// Between two requests of a keep-alive connection.
        case idle
    }

    public enum Refusal: Equatable, Sendable { case full, address }

    struct Connection: Sendable {
        let peer: String
        var phase: Phase
        var deadline: Double?
    }

    public let limits: Limits
    private var connections: [Int: Connection] = [:]

    public init(limits: Limits = Limits()) { self.limits = limits }

    public var count: Int { connections.count }
    public func count(from peer: String) -> Int { connections.values.filter { $0.peer == peer }.count }
    public func phase(_ id: Int) -> Phase? { connections[id]?.phase }

    /// A new connection: nil when it is taken (its headers due), else why it is refused.
    public mutating func open(_ id: Int, peer: String, now: Double) -> Refusal? {
        if connections.count >= limits.maximum { return .full }
        if count(from: peer) >= limits.perAddress { return .address }
        connections[id] = Connection(peer: peer, phase: .headers, deadline: now + limits.headerTimeout)
        return nil
    }

    /// The first byte of a further request on a keep-alive connection.
    public mutating func requestStarted(_ id: Int, now: Double) { set(id, .headers, now + limits.headerTimeout) }
    public mutating func gotHeaders(_ id: Int, now: Double) { set(id, .body, now + limits.headerTimeout) }
    public mutating func gotBody(_ id: Int) { set(id, .answering, nil) }
    /// The answer is sent; the connection waits for another request.
    public mutating func finished(_ id: Int, now: Double) { set(id, .idle, now + limits.idleTimeout) }
    public mutating func closed(_ id: Int) { connections[id] = nil }

    /// The connections past their deadline, with the phase they were in.
    public func overdue(now: Double) -> [(id: Int, peer: String, phase: Phase)] {
        connections.compactMap { id, connection in
            guard let deadline = connection.deadline, now >= deadline else { return nil }
            return (id, connection.peer, connection.phase)
        }
    }

    public var hasDeadlines: Bool { connections.values.contains { $0.deadline != nil } }

    private mutating func set(_ id: Int, _ phase: Phase, _ deadline: Double?) {
        guard connections[id] != nil else { return }
        connections[id]?.phase = phase
        connections[id]?.deadline = deadline
    }
}
