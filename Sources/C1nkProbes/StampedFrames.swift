import C1nkGLib
import FoundationEssentials

/// What a stamping camera drew: the time (monotonic µs) at which it stamped
/// each sequence number, 1 first. The benchmark reads it from the door in
/// its own process, so "intact" counts against the frames the camera drew,
/// not against the range a receiver happened to show. Written on the
/// camera's streaming thread, read from any other.
public final class StampedFrames: @unchecked Sendable {
    /// An hour at 30 fps (8 bytes a frame); later frames are counted, their times not kept.
    public static let limit = 108_000
    private let lock = ThreadLock()
    private var times: [Int] = []
    private var drawn = 0

    public init() {}

    /// Called for each frame as it is stamped with the next sequence number.
    func record(atMicroseconds time: Int) {
        lock.withLock {
            drawn += 1
            if times.count < Self.limit { times.append(time) }
        }
    }

    /// Frames stamped so far: the last sequence number.
    public var count: Int { lock.withLock { drawn } }

    /// When frame `sequence` was stamped (monotonic µs), if kept.
    public func time(of sequence: Int) -> Int? {
        lock.withLock { sequence >= 1 && sequence <= times.count ? times[sequence - 1] : nil }
    }

    /// The last sequence number stamped at or before `time` (monotonic µs); 0 if none.
    public func lastSequence(stampedBy time: Int) -> Int {
        lock.withLock {
            // Times only grow: the first one after `time`, by halves.
            var low = 0, high = times.count
            while low < high {
                let middle = (low + high) / 2
                if times[middle] <= time { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}
