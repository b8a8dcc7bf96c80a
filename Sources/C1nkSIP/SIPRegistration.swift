import C1nkGLibBase

/// The bridge's registration at a registrar (a Fritz!Box, Asterisk, kamailio):
/// digest credentials for its challenges, the stack's own refresh while it
/// holds, and after a failure another REGISTER after a wait that doubles from
/// `initialRetry` up to `maximumRetry` (a registrar that is down is not
/// hammered; one that comes back is found). Main context only.
public final class SIPRegistration {
    public enum State: Equatable, Sendable {
        case registering
        case registered
        /// The last try failed; the next is in `retryIn` seconds.
        case failed(reason: String, retryIn: Double)
    }

    public var onState: ((State) -> Void)?
    public private(set) var state: State = .registering

    private let agent: SIPAgent
    private let registrar: SIPURI
    private let aor: SIPURI
    private let expires: Int
    private let clock: any TimerClock
    private let initialRetry: Double
    private let maximumRetry: Double
    private var nextRetry: Double
    private var retry: (any ScheduledTimer)?

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// `user`: printable ASCII without ':' (sofia's credentials are colon-separated), at most 128 bytes;
    /// `password`: no line ends or NUL, at most 256 bytes.
    public init(agent: SIPAgent, registrar: SIPURI, aor: SIPURI, user: String, password: String, expires: Int = 300,
                clock: any TimerClock = GLibClock.shared, initialRetry: Double = 5, maximumRetry: Double = 300) throws {
        guard !user.isEmpty, user.utf8.count <= 128, user.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != 0x3a }) else {
            throw Invalid(description: "the SIP user name must be 1 to 128 printable characters without spaces or ':'; check --sip-user")
        }
        guard password.utf8.count <= 256, !password.utf8.contains(where: { $0 == 0 || $0 == 0x0a || $0 == 0x0d }) else {
            throw Invalid(description: "the SIP password must be one line of at most 256 bytes; check --sip-password-file")
        }
        self.agent = agent
        self.registrar = registrar
        self.aor = aor
        self.expires = expires
        self.clock = clock
        self.initialRetry = initialRetry
        self.maximumRetry = max(initialRetry, maximumRetry)
        nextRetry = initialRetry
        agent.setCredentials(user: user, password: password)
        agent.onRegistration = { [weak self] event in self?.handle(event) }
    }

    /// Sends the first REGISTER.
    public func start() {
        attempt()
    }

    private func attempt() {
        retry = nil
        set(.registering)
        if !agent.register(at: registrar, as: aor, expires: expires) {
            handle(.failed(status: 900, reason: "the SIP stack did not send REGISTER"))
        }
    }

    private func handle(_ event: SIPAgent.RegistrationEvent) {
        switch event {
        case .registered:
            nextRetry = initialRetry
            retry = nil
            set(.registered)
        case .failed(_, let reason):
            let wait = nextRetry
            nextRetry = min(maximumRetry, nextRetry * 2)
            set(.failed(reason: reason, retryIn: wait))
            retry = clock.schedule(after: wait) { [weak self] in self?.attempt() }
        }
    }

    private func set(_ state: State) {
        self.state = state
        onState?(state)
    }
}
