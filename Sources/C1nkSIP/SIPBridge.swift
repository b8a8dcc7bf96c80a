import C1nkCall
import C1nkGLib

/// The SIP bridge as the answerer sees it (docs/sip.md): the agent, its
/// registration, and for each door call the ring to every `--sip-ring`
/// phone (`PhoneRing`), driven by `DoorPhonePolicy`. The answerer's events
/// go in (`door`); what a phone does comes out as the answerer's user
/// events (`onUser`: accept, hang up, open) and as events for the log
/// (`onEvent`: sip-registered, sip-ringing, sip-answered, errors). The
/// winner's media are the command's to wire (`prepareMedia`,
/// `onMediaStarted`). Main context only.
public final class SIPBridge {
    public struct Settings: Sendable {
        /// The phones rung for each door call, all at once.
        public var ring: [SIPURI]
        /// This machine's numeric address the phones reach (SIP and RTP).
        public var address: String
        public var port: Int
        /// udp or tcp.
        public var transport: String
        /// Registered here with `user` and `password`, or nil: the phones are called directly.
        public var registrar: SIPURI?
        public var user: String?
        public var password: String?
        public var openKey: Character
        /// Whether the door's video is offered to the phones (a video phone shows it; others decline it).
        public var video = true
        /// The registration's lifetime asked of the registrar; the stack refreshes it before.
        public var expires = 300

        public init(ring: [SIPURI], address: String, port: Int, transport: String, registrar: SIPURI?,
                    user: String?, password: String?, openKey: Character) {
            self.ring = ring
            self.address = address
            self.port = port
            self.transport = transport
            self.registrar = registrar
            self.user = user
            self.password = password
            self.openKey = openKey
        }

        /// What the bridge says in From: its registered address, or itself at `address`.
        var from: String {
            if let registrar, let user { return "sip:\(user)@\(registrar.host)" }
            let host = address.contains(":") ? "[\(address)]" : address
            return "sip:\(user ?? "door")@\(host)"
        }
    }

    /// A phone's action, for the answerer: `.userAccept`, `.userHangup`, `.userOpenDoor`.
    public var onUser: ((CallMachine.Event) -> Void)?
    /// The bridge's events for the log, MQTT and the page.
    public var onEvent: ((CallEvent) -> Void)?
    /// The winner's media just before they start (what it hears, where its voice goes).
    public var prepareMedia: ((PhoneLegMedia) -> Void)?
    /// The winner's media, started.
    public var onMediaStarted: ((PhoneLegMedia) -> Void)?
    /// The winner's media are stopping (its phone or the door hung up).
    public var onMediaEnded: (() -> Void)?

    public let settings: Settings
    private let agent: SIPAgent
    private var registration: SIPRegistration?
    private var policy: DoorPhonePolicy
    private var ring: PhoneRing?
    private var lastRegistrationFailure: String?
    private var isRegistered = false

    /// Listens and, with a registrar, prepares the registration (`start` sends it).
    /// Throws when the agent library is missing or the address cannot be bound.
    public init(settings: Settings) throws {
        self.settings = settings
        policy = DoorPhonePolicy(openKey: settings.openKey)
        agent = try SIPAgent(host: settings.address, port: settings.port, transport: settings.transport, from: settings.from)
        if let registrar = settings.registrar {
            let aor = try SIPURI(settings.from)
            registration = try SIPRegistration(agent: agent, registrar: registrar, aor: aor, user: settings.user ?? "door",
                                               password: settings.password ?? "", expires: settings.expires)
        }
        agent.onCallEvent = { [weak self] id, event in self?.ring?.handle(id, event) }
        registration?.onState = { [weak self] state in self?.registrationChanged(state) }
    }

    public func start() {
        registration?.start()
    }

    /// One of the answerer's events.
    public func door(_ event: CallEvent) {
        for command in policy.door(event) {
            switch command {
            case .ring(let callId):
                ringPhones(for: callId)
            case .hangUp:
                ring?.hangUpAll()
                if ring?.winnerMedia != nil { onMediaEnded?() }
                ring = nil
            }
        }
    }

    /// Hangs up every phone, un-registers and shuts the stack down, then calls `done`.
    public func stop(_ done: @escaping () -> Void) {
        ring?.hangUpAll()
        ring = nil
        agent.stop(done)
    }

    private func ringPhones(for callId: String) {
        let phones = PhoneRing(agent: agent, uris: settings.ring, address: settings.address, video: settings.video)
        phones.prepare = { [weak self] media in self?.prepareMedia?(media) }
        phones.onOutcome = { [weak self, weak phones] outcome in
            guard let self, let phones, ring === phones else { return }
            switch outcome {
            case .connected(let phone):
                onEvent?(.sipAnswered(callId: callId, phone: phone.text))
                if let media = phones.winnerMedia { onMediaStarted?(media) }
            case .phoneHungUp:
                onMediaEnded?()
            case .noneAnswered:
                break
            }
            for event in policy.phone(outcome) { onUser?(event) }
        }
        phones.onKey = { [weak self] key in
            guard let self else { return }
            for event in policy.key(key) { onUser?(event) }
        }
        ring = phones
        onEvent?(.sipRinging(callId: callId, phones: settings.ring.map(\.text)))
    }

    private func registrationChanged(_ state: SIPRegistration.State) {
        guard let registrar = settings.registrar else { return }
        switch state {
        case .registering:
            break
        case .registered:
            // Once per registration, not at each of the stack's refreshes.
            guard !isRegistered else { return }
            isRegistered = true
            lastRegistrationFailure = nil
            onEvent?(.sipRegistered(registrar: registrar.text))
        case let .failed(reason, retryIn):
            isRegistered = false
            // Said once per kind of failure, not at every retry of a registrar that stays down.
            guard reason != lastRegistrationFailure else { return }
            lastRegistrationFailure = reason
            onEvent?(.error(message: "SIP registration at \(registrar) failed: \(reason); trying again in \(Int(retryIn)) s, and doubling up to 5 min"))
        }
    }
}
