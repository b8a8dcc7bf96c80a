/// The phones rung for one door call, as a pure machine: the first to answer
/// takes the call and the others are hung up (CANCEL while they ring); a
/// phone answering after that is hung up at once (BYE); a key counts only
/// from the phone that took the call. Events in, actions out; the caller
/// (`PhoneRing`) carries the actions out with `SIPAgent` and the media.
public struct RingGroup: Sendable {
    public typealias CallID = SIPAgent.CallID

    public enum Action: Equatable, Sendable {
        /// End this phone's call (CANCEL or BYE, as `SIPAgent.hangUp` chooses).
        case hangUp(CallID)
        /// This phone took the call: start its media with its answer.
        case connect(CallID, SDPAnswer)
        /// A key from the phone that took the call.
        case key(Character)
        /// The phone that took the call hung up.
        case phoneHungUp
        /// Every phone failed or was refused; none took the call.
        case noneAnswered
    }

    public private(set) var winner: CallID?
    /// Calls not yet ended, answered or not.
    public private(set) var live: Set<CallID>
    private var failed: Set<CallID> = []
    private var ended = false

    public init(calls: [CallID]) {
        live = Set(calls)
    }

    /// Whether the group is over: the phone hung up, none answered, or `hangUpAll`.
    public var isOver: Bool { ended }

    public mutating func handle(_ call: CallID, _ event: SIPAgent.CallEvent) -> [Action] {
        guard live.contains(call) || failed.contains(call) else { return [] }
        switch event {
        case .progress, .info, .updated:
            return []
        case .answered(let answer):
            guard winner == nil, !ended else { return [.hangUp(call)] }
            winner = call
            return [.connect(call, answer)] + live.subtracting([call]).sorted().map { .hangUp($0) }
        case .failed:
            failed.insert(call)
            if call == winner { return finish(.phoneHungUp) }
            return noneLeft() ? finish(.noneAnswered) : []
        case .hungUpByPhone:
            return call == winner ? finish(.phoneHungUp) : []
        case .key(let key):
            return call == winner && !ended ? [.key(key)] : []
        case .ended:
            live.remove(call)
            if call == winner { return finish(.phoneHungUp) }
            failed.insert(call)
            return noneLeft() ? finish(.noneAnswered) : []
        }
    }

    /// A key from the winner's media (RFC 4733), counted as `.key` is.
    public func keyFromMedia(_ key: Character) -> [Action] {
        winner != nil && !ended ? [.key(key)] : []
    }

    /// The door's call ended: hang up every phone still in a call or ringing.
    public mutating func hangUpAll() -> [Action] {
        ended = true
        return live.sorted().map { .hangUp($0) }
    }

    private func noneLeft() -> Bool { winner == nil && !ended && live.isSubset(of: failed) }

    private mutating func finish(_ action: Action) -> [Action] {
        guard !ended else { return [] }
        ended = true
        // The failed are ending already, and the winner who hung up is gone.
        return [action] + live.subtracting(failed).sorted().filter { $0 != winner }.map { .hangUp($0) }
    }
}
