import C1nkCall

/// Turns the answerer's events into ring history entries: a ring's outcome is
/// known when it ends. A ring while busy (`missed`) is not a ring of this
/// history: it never reached the resident.
public final class RingHistoryRecorder {
    private let history: RingHistory
    private var rings: [String: (t: Int64, door: String, accepted: Bool, snapshot: String?)] = [:]
    /// Called after an entry is written (the display refreshes its list).
    public var onChange: (() -> Void)?

    public init(history: RingHistory) { self.history = history }

    /// Follows one event of the events log; `t` is its time (unix ms), the ring's time for a `ringing`.
    public func record(_ event: CallEvent, at t: Int64) {
        switch event {
        case let .ringing(callId, doorName):
            rings[callId] = (t, doorName, false, nil)
        case let .accepted(callId):
            rings[callId]?.accepted = true
        case let .snapshot(callId, path):
            rings[callId]?.snapshot = path
        case let .ended(callId, reason, doorName, _, _):
            let ring = rings.removeValue(forKey: callId) ?? (t, doorName, false, nil)
            history.append(.init(t: ring.t, door: ring.door, outcome: Self.outcome(accepted: ring.accepted, reason: reason),
                                 snapshot: ring.snapshot))
            onChange?()
        default:
            break
        }
    }

    /// An accepted ring was answered here, whatever ended it; one not
    /// accepted was answered elsewhere, rejected, or missed.
    static func outcome(accepted: Bool, reason: CallMachine.EndReason) -> RingHistory.Outcome {
        if accepted { return .answered }
        switch reason {
        case .answeredElsewhere: return .answeredElsewhere
        case .rejected: return .rejected
        default: return .missed
        }
    }
}
