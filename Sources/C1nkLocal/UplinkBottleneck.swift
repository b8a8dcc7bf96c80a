/// A home router's uplink as a value: packets leave at `kbps` through a
/// drop-tail queue that holds at most `queueMilliseconds` of sending time.
/// What arrives while the queue is full is dropped, as a router drops it.
/// Times are in seconds of any monotonic clock; no I/O, no timers.
public struct UplinkBottleneck: Sendable {
    public var kbps: Int
    public var queueMilliseconds: Int
    /// IPv4 and UDP headers, which the link carries as well.
    static let headerBytes = 28

    /// When the last packet queued will have left.
    private var busyUntil = 0.0
    public private(set) var forwarded = 0
    public private(set) var dropped = 0
    /// Each forwarded packet's wait in the queue (seconds).
    public private(set) var queueDelays: [Double] = []

    public init(kbps: Int, queueMilliseconds: Int) {
        self.kbps = max(1, kbps)
        self.queueMilliseconds = max(0, queueMilliseconds)
    }

    /// A packet of `bytes` offered at `now`: when it leaves, or nil when the
    /// queue is full and it is dropped.
    public mutating func admit(bytes: Int, at now: Double) -> Double? {
        let start = max(now, busyUntil)
        guard start - now <= Double(queueMilliseconds) / 1000 else {
            dropped += 1
            return nil
        }
        let departure = start + Double((bytes + Self.headerBytes) * 8) / Double(kbps * 1000)
        busyUntil = departure
        forwarded += 1
        queueDelays.append(departure - now)
        return departure
    }
}
