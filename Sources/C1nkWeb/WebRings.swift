import C1nkGLibBase
import FoundationEssentials
import C1nkCall

/// The ring history the page lists: door and time of each ring, newest
/// first, and how it ended. Seeded from the ring history file, then kept
/// from the events. Pure; at most `limit` rings.
public struct WebRings: Sendable {
    public struct Ring: Equatable, Sendable {
        public var callId: String?
        /// Unix milliseconds.
        public var t: Int64
        public var door: String
        /// "ringing", "answered", "missed", "rejected", or another end reason.
        public var outcome: String
        /// The visitor's snapshot on disk; the page gets it by its file name from `GET /api/snapshots/<name>`.
        public var snapshot: String?

        public init(callId: String? = nil, t: Int64, door: String, outcome: String, snapshot: String? = nil) {
            self.callId = callId
            self.t = t
            self.door = door
            self.outcome = outcome
            self.snapshot = snapshot
        }

        var json: [String: Any] {
            var object: [String: Any] = ["t": t, "door": door, "outcome": outcome]
            if let callId { object["callId"] = callId }
            if let snapshot { object["snapshot"] = snapshot.lastPathComponent }
            return object
        }
    }

    public let limit: Int
    public private(set) var rings: [Ring]

    public init(seed: [Ring] = [], limit: Int = 100) {
        self.limit = limit
        rings = Array(seed.sorted { $0.t > $1.t }.prefix(limit))
    }

    public mutating func apply(_ event: CallEvent, t: Int64) {
        switch event {
        case let .ringing(callId, door):
            rings.insert(Ring(callId: callId, t: t, door: door, outcome: "ringing"), at: 0)
            if rings.count > limit { rings.removeLast(rings.count - limit) }
        case let .missed(callId, door, _):
            rings.insert(Ring(callId: callId, t: t, door: door, outcome: "missed"), at: 0)
            if rings.count > limit { rings.removeLast(rings.count - limit) }
        case .accepted(let callId): update(callId, "answered")
        case let .snapshot(callId, path):
            if let index = rings.firstIndex(where: { $0.callId == callId }) { rings[index].snapshot = path }
        case let .ended(callId, reason, _, _, _):
            if let index = rings.firstIndex(where: { $0.callId == callId }), rings[index].outcome == "ringing" {
                rings[index].outcome = reason == .rejected ? "rejected" : reason == .answeredElsewhere ? "answered-elsewhere" : "missed"
            }
        default: break
        }
    }

    private mutating func update(_ callId: String, _ outcome: String) {
        if let index = rings.firstIndex(where: { $0.callId == callId }) { rings[index].outcome = outcome }
    }

    public var json: [[String: Any]] { rings.map(\.json) }

    /// The snapshot file named `name`, only when a ring of this history
    /// holds it and it is still on disk (retention may have deleted it): no
    /// other file is ever served.
    public func snapshotPath(named name: String) -> String? {
        guard !name.isEmpty, !name.contains("/"),
              let path = rings.lazy.compactMap(\.snapshot).first(where: { $0.lastPathComponent == name }),
              FileManager.default.isReadableFile(atPath: path) else { return nil }
        return path
    }
}
