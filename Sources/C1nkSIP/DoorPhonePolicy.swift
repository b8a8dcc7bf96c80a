import C1nkCall

/// How the door's call and the phones rung for it drive each other, as a pure
/// machine: the door ringing rings the phones; the door's call ending, or
/// being accepted elsewhere (the wall display, the web page), hangs them up;
/// a phone taking the call accepts it, that phone hanging up hangs it up, and
/// the open key from that phone — only after it answered — opens the door.
/// One door call at a time: a second ring while phones ring for the first is
/// left to the other ways of answering. The command carries the outputs out
/// (`PhoneRing` for the phones, the answerer's `CallMachine.Event`s).
public struct DoorPhonePolicy: Sendable {
    public enum PhoneCommand: Equatable, Sendable {
        case ring(callId: String)
        case hangUp
    }

    private enum State: Equatable, Sendable {
        case idle
        case ringing(callId: String)
        /// A phone took the call; `accepting` until the door's `accepted` for it arrives.
        case taken(callId: String, accepting: Bool)
    }

    public let openKey: Character
    private var state: State = .idle

    public init(openKey: Character = "#") {
        self.openKey = openKey
    }

    /// The door call the phones are rung for or in, if any.
    public var callId: String? {
        switch state {
        case .idle: nil
        case .ringing(let id), .taken(let id, _): id
        }
    }

    /// One of the answerer's events.
    public mutating func door(_ event: CallEvent) -> [PhoneCommand] {
        switch event {
        case .ringing(let id, _):
            guard state == .idle else { return [] }
            state = .ringing(callId: id)
            return [.ring(callId: id)]
        case .accepted(let id):
            switch state {
            case .ringing(id):
                // Accepted at the wall or on the web page: the phones stop ringing.
                state = .idle
                return [.hangUp]
            case .taken(id, true):
                state = .taken(callId: id, accepting: false)
                return []
            default:
                return []
            }
        case .ended(let id, _, _, _, _), .missed(let id, _, _):
            guard callId == id else { return [] }
            state = .idle
            return [.hangUp]
        default:
            return []
        }
    }

    /// What the phones' ring reported.
    public mutating func phone(_ outcome: PhoneRing.Outcome) -> [CallMachine.Event] {
        switch (outcome, state) {
        case (.connected, .ringing(let id)):
            state = .taken(callId: id, accepting: true)
            return [.userAccept]
        case (.phoneHungUp, .taken):
            state = .idle
            return [.userHangup]
        default:
            return []
        }
    }

    /// A key from the phone that took the call (`PhoneRing.onKey` reports only those).
    public func key(_ key: Character) -> [CallMachine.Event] {
        guard case .taken = state, key == openKey else { return [] }
        return [.userOpenDoor]
    }
}
