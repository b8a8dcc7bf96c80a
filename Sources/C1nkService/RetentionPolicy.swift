import FoundationEssentials

/// How long recordings are kept (`--keep-days`, `--keep-gb`) and how much
/// free space a new recording needs (`--min-free-gb`). A pure value: `plan`
/// decides what to delete from a listing, with no clock and no disk.
public struct RetentionPolicy: Equatable, Sendable {
    public var keepDays: Double?
    public var keepGigabytes: Double?
    public var minimumFreeGigabytes: Double = 1

    public init(keepDays: Double? = nil, keepGigabytes: Double? = nil, minimumFreeGigabytes: Double = 1) {
        self.keepDays = keepDays
        self.keepGigabytes = keepGigabytes
        self.minimumFreeGigabytes = minimumFreeGigabytes
    }

    /// Whether anything is ever deleted.
    public var deletes: Bool { keepDays != nil || keepGigabytes != nil }

    public struct File: Equatable, Sendable {
        public let path: String
        /// Modification time, seconds since 1970.
        public let modified: Double
        public let bytes: Int64
        public init(path: String, modified: Double, bytes: Int64) {
            self.path = path
            self.modified = modified
            self.bytes = bytes
        }
    }

    public enum Reason: String, Sendable { case age = "keep-days", size = "keep-gb" }

    /// What to delete from `files` at `now`: every file older than
    /// `keepDays`, then the oldest until the rest fit in `keepGigabytes`.
    /// Files in `protected` (a recording in progress) are never chosen.
    public func plan(_ files: [File], now: Double, protected: Set<String> = []) -> [(path: String, reason: Reason)] {
        var result: [(String, Reason)] = []
        var kept = files.filter { !protected.contains($0.path) }.sorted { ($0.modified, $0.path) < ($1.modified, $1.path) }
        if let keepDays {
            let cutoff = now - keepDays * 86_400
            result += kept.filter { $0.modified < cutoff }.map { ($0.path, .age) }
            kept.removeAll { $0.modified < cutoff }
        }
        if let keepGigabytes {
            let limit = Int64(keepGigabytes * 1e9)
            var total = files.filter { protected.contains($0.path) }.reduce(0) { $0 + $1.bytes } + kept.reduce(0) { $0 + $1.bytes }
            for file in kept where total > limit {
                result.append((file.path, .size))
                total -= file.bytes
            }
        }
        return result
    }

    /// Whether `freeBytes` of `totalBytes` leaves room for a new recording.
    public func allowsRecording(freeBytes: Int64) -> Bool {
        Double(freeBytes) >= minimumFreeGigabytes * 1e9
    }
}
