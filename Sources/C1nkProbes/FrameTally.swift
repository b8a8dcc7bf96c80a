/// Frames shown intact against the frames a camera drew, over a window of
/// its sequence numbers: every number from the window's first to its last
/// was drawn, so a frame lost before the first shown or after the last, and
/// a frame rate cut (a sender's encoder skipping frames), count as lost.
/// A shown frame counts when it is in the window and later in the camera's
/// order than the last one counted (a repeated or late frame does not).
public struct FrameTally: Equatable, Sendable, Codable {
    /// The camera's frames in the window.
    public var drawn = 0
    public var intact = 0
    /// The window's length: its frames' span at the camera.
    public var seconds = 0.0

    public var lost: Int { drawn - intact }
    public var intactPercent: Double { drawn > 0 ? Double(intact) * 100 / Double(drawn) : 0 }
    /// Intact frames a second of the window.
    public var shownPerSecond: Double { seconds > 0 ? Double(intact) / seconds : 0 }

    /// `shown`: sequence numbers in the order they were shown.
    public init(window: ClosedRange<Int>, seconds: Double, shown: [Int]) {
        drawn = window.count
        self.seconds = seconds
        var last = window.lowerBound - 1
        for sequence in shown where window.contains(sequence) && sequence > last {
            intact += 1
            last = sequence
        }
    }

    /// Several windows (calls) as one: their frames and seconds added up.
    public init(pooling tallies: [FrameTally]) {
        for tally in tallies {
            drawn += tally.drawn
            intact += tally.intact
            seconds += tally.seconds
        }
    }
}
