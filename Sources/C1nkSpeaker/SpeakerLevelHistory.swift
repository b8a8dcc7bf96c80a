/// The levels the speaker sent to its sink, the last `window` seconds of
/// them: what tests and the call's level reports ask ("how loud was it
/// since…"). Times are seconds on a monotonic clock, levels dBFS RMS.
public struct SpeakerLevelHistory: Sendable {
    /// How far back the history reaches.
    public let window: Double
    public private(set) var levels: [(time: Double, level: Double)] = []

    public init(window: Double = 30) {
        self.window = window
    }

    /// Records a level. What is older than `window` goes, at most once a
    /// second (when the oldest is a second past it), not at every level.
    public mutating func append(_ level: Double, at time: Double) {
        levels.append((time, level))
        if let first = levels.first, time - first.time > window + 1 {
            levels.removeFirst(levels.firstIndex { time - $0.time <= window } ?? levels.count)
        }
    }

    /// The loudest level between two times (inclusive), or -infinity when none.
    public func loudest(since start: Double, until end: Double = .infinity) -> Double {
        levels.filter { $0.time >= start && $0.time <= end }.map(\.level).max() ?? -.infinity
    }
}
