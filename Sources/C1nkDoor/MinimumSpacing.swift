/// Lets an event through only when at least `microseconds` passed since the
/// last one it let through (times in monotonic microseconds). The door uses
/// it to drop a source's catch-up burst and to hold back keyframe requests
/// that come too close together; the pad probes only read the clock.
struct MinimumSpacing: Sendable {
    let microseconds: Int
    private var last = 0

    init(microseconds: Int) { self.microseconds = microseconds }

    /// Whether an event at `now` passes (and becomes the last one).
    mutating func admits(at now: Int) -> Bool {
        guard now - last >= microseconds else { return false }
        last = now
        return true
    }
}
