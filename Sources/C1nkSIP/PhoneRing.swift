import C1nkGLib

/// Rings every phone for one door call and carries out `RingGroup`'s
/// actions: an INVITE per phone, each with its own offer and port pair;
/// the winner's media started, the others hung up; keys from the winner
/// alone. Main context only; `SIPAgent.onCallEvent` must reach `handle`.
public final class PhoneRing {
    public enum Outcome: Equatable, Sendable {
        /// A phone took the call; its audio flows.
        case connected(SIPURI)
        /// The phone that took the call hung up.
        case phoneHungUp
        /// No phone answered: each failed, refused or could not be called.
        case noneAnswered
    }

    public var onOutcome: ((Outcome) -> Void)?
    /// A key pressed on the phone that took the call (SIP INFO or RFC 4733).
    public var onKey: ((Character) -> Void)?
    /// Called with the winner's media just before it starts: what it hears, where its voice goes.
    public var prepare: ((PhoneLegMedia) -> Void)?

    public private(set) var group: RingGroup
    private let agent: SIPAgent
    private var media: [SIPAgent.CallID: PhoneLegMedia] = [:]
    private var phones: [SIPAgent.CallID: SIPURI] = [:]
    public var winnerMedia: PhoneLegMedia? { group.winner.flatMap { media[$0] } }

    /// Rings `uris` from `address` (the numeric address the phones send their audio to); with
    /// `video`, the door's video is offered too (send-only).
    public init(agent: SIPAgent, uris: [SIPURI], address: String, video: Bool = false) {
        self.agent = agent
        var calls: [SIPAgent.CallID] = []
        for uri in uris {
            do {
                let leg = try PhoneLegMedia(address: address, video: video)
                let offer = SDPOffer(address: address, port: leg.port, sessionID: .random(in: 1...UInt32.max), videoPort: leg.videoPort)
                guard let call = agent.call(uri, offer: offer) else { continue }
                media[call] = leg
                phones[call] = uri
                calls.append(call)
            } catch {
                Log.sip.warning("cannot ring \(uri): \(error)")
            }
        }
        group = RingGroup(calls: calls)
        if calls.isEmpty { MainContext.post { [weak self] in self?.onOutcome?(.noneAnswered) } }
    }

    /// One of the agent's call events; those of other calls are ignored.
    public func handle(_ call: SIPAgent.CallID, _ event: SIPAgent.CallEvent) {
        perform(group.handle(call, event))
        if case .ended = event, call != group.winner { media[call] = nil }
    }

    /// The door's call ended: every phone is hung up.
    public func hangUpAll() {
        perform(group.hangUpAll())
        winnerMedia?.stop()
    }

    private func perform(_ actions: [RingGroup.Action]) {
        for action in actions {
            switch action {
            case .hangUp(let call):
                agent.hangUp(call)
            case .connect(let call, let answer):
                guard let leg = media[call], let uri = phones[call] else { continue }
                leg.onKey = { [weak self] key in
                    guard let self else { return }
                    perform(group.keyFromMedia(key))
                }
                do {
                    prepare?(leg)
                    try leg.start(answer)
                    onOutcome?(.connected(uri))
                } catch {
                    Log.sip.error("call \(call): \(error)")
                    agent.hangUp(call)
                }
            case .key(let key):
                onKey?(key)
            case .phoneHungUp:
                winnerMedia?.stop()
                onOutcome?(.phoneHungUp)
            case .noneAnswered:
                onOutcome?(.noneAnswered)
            }
        }
    }
}
