import C1nkCall

/// What the page shows, from the answerer's events: idle, ringing (the
/// door's name), or in a call; and who accepted the ring, so that two
/// browsers pressing accept at once give one `accept` and the second is told
/// "prijaté inde". Pure.
public struct WebCallState: Equatable, Sendable {
    public enum Phase: String, Sendable { case idle, ringing, call }

    public private(set) var phase = Phase.idle
    public private(set) var callId: String?
    public private(set) var door: String?
    public private(set) var doorOpened = false
    public private(set) var muted = false
    /// Connected to the signaling server (registered).
    public private(set) var online = false
    /// The client (session) whose accept was sent for this ring; nil when
    /// none was, or the ring was accepted elsewhere (the wall, the control socket).
    public private(set) var acceptedBy: String?
    private var claimed = false

    /// What a browser is told when the ring was already taken.
    public static let answeredElsewhere = "prijaté inde"

    public init() {}

    public mutating func apply(_ event: CallEvent) {
        switch event {
        case .registered: online = true
        case .disconnected, .connectFailed: online = false
        case let .ringing(callId, doorName):
            self = WebCallState(online: online)
            phase = .ringing
            self.callId = callId
            door = doorName
        case .accepted(let id) where id == callId:
            phase = .call
            claimed = true
        case .doorOpened(let id) where id == callId: doorOpened = true
        case .levels(let id, _, _, let isMuted) where id == callId: muted = isMuted
        case .ended(let id, _, _, _, _) where id == callId:
            self = WebCallState(online: online)
        default: break
        }
    }

    private init(online: Bool) { self.online = online }

    /// Whether `client` may send `accept` now: only while ringing and only the
    /// first one. A later one is answered with `answeredElsewhere`.
    public mutating func claimAccept(by client: String) -> Bool {
        guard phase == .ringing, !claimed else { return false }
        claimed = true
        acceptedBy = client
        return true
    }

    /// The accept that was claimed could not be sent (the answerer refused): the ring is free again.
    public mutating func releaseAccept() {
        guard phase == .ringing else { return }
        claimed = false
        acceptedBy = nil
    }

    public mutating func setMuted(_ value: Bool) { if phase == .call { muted = value } }

    /// `GET /api/state`.
    public var json: [String: Any] {
        var object: [String: Any] = ["state": phase.rawValue, "online": online]
        if let callId { object["callId"] = callId }
        if let door { object["door"] = door }
        if phase == .call {
            object["doorOpened"] = doorOpened
            object["muted"] = muted
        }
        return object
    }
}
