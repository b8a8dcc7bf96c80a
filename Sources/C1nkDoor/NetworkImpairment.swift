import C1nkMedia
import C1nkPipeline

/// A bad network, as the simulated door applies it to what it sends: loss
/// (random or in bursts), jitter, reordering, a bandwidth cap and an outage.
/// `netem` is not in this kernel, so the door does it in its own pipeline
/// (`ImpairedLink`), after its RTX sender and before encryption.
public struct NetworkImpairment: Equatable, Sendable {
    /// Share of the door's video packets lost on their first send, 0…100.
    /// Retransmissions (RTX) always pass, as they would on a link whose
    /// losses are independent of each other.
    public var lossPercent: Double = 0
    /// Mean length of a loss burst in packets. 1: each packet is lost on its
    /// own (Bernoulli); more: a Gilbert–Elliott channel with the same mean
    /// loss, whose bad state loses every packet.
    public var burstLength: Double = 1
    /// Each packet is delayed by a random 0…N ms.
    public var jitterMilliseconds = 0
    /// Share of packets held back 10–30 ms, so later ones overtake them, 0…100.
    public var reorderPercent: Double = 0
    /// A cap on the door's sending rate in kbit/s (0: none). The door's
    /// encoder aims under it; packets over it are dropped, as a full
    /// bottleneck queue does.
    public var bandwidthKbps = 0
    /// Seconds after the door's first packet when everything it sends stops…
    public var outageAt: Double?
    /// …and for how long.
    public var outageMilliseconds = 0
    /// A home router's uplink after the door (0: none): everything the door
    /// sends leaves at this rate in kbit/s through a drop-tail queue…
    public var uplinkKbps = 0
    /// …that holds this many milliseconds of sending.
    public var uplinkQueueMilliseconds = 200
    /// Seed of the loss pattern, so a run can be repeated.
    public var seed: UInt64 = 1

    public init() {}

    /// Whether anything is impaired at all.
    public var isNone: Bool {
        lossPercent <= 0 && jitterMilliseconds <= 0 && reorderPercent <= 0 && bandwidthKbps <= 0
            && (outageAt == nil || outageMilliseconds <= 0)
    }

    /// Whether packets need `netsim` (delay, reordering, the cap).
    var needsNetsim: Bool { jitterMilliseconds > 0 || reorderPercent > 0 || bandwidthKbps > 0 }

    /// `netsim` properties for jitter, reordering and the cap.
    var netsimProperties: String {
        var properties: [String] = []
        if jitterMilliseconds > 0 {
            properties += ["min-delay=0", "max-delay=\(jitterMilliseconds)", "delay-probability=1.0",
                           "allow-reordering=\(reorderPercent > 0)"]
        } else if reorderPercent > 0 {
            properties += ["min-delay=10", "max-delay=30", "delay-probability=\(reorderPercent / 100)", "allow-reordering=true"]
        } else {
            properties += ["delay-probability=0.0"]
        }
        if bandwidthKbps > 0 {
            // A bottleneck queue of ~150 ms at the cap.
            properties += ["max-kbps=\(bandwidthKbps)", "max-bucket-size=\(bandwidthKbps * 150 / 8)"]
        }
        return properties.joined(separator: " ")
    }

    /// Checks the values, with what to give instead.
    public func validate() throws {
        func bad(_ text: String) -> MediaError { .badConfiguration(text) }
        guard (0...100).contains(lossPercent) else { throw bad("--loss takes a percentage 0–100, not \(lossPercent)") }
        guard burstLength >= 1 else { throw bad("--loss-burst takes a mean burst length of at least 1 packet, not \(burstLength)") }
        guard lossPercent < 100 || burstLength == 1 else { throw bad("--loss 100 leaves nothing to burst; lower it or drop --loss-burst") }
        guard jitterMilliseconds >= 0, jitterMilliseconds <= 2000 else { throw bad("--jitter takes 0–2000 ms, not \(jitterMilliseconds)") }
        guard (0...100).contains(reorderPercent) else { throw bad("--reorder takes a percentage 0–100, not \(reorderPercent)") }
        guard bandwidthKbps >= 0 else { throw bad("--bandwidth takes kbit/s above 0, not \(bandwidthKbps)") }
        if let outageAt, outageAt < 0 { throw bad("--outage-at takes seconds from the first packet, not \(outageAt)") }
        guard outageMilliseconds >= 0 else { throw bad("--outage-for takes milliseconds, not \(outageMilliseconds)") }
        guard uplinkKbps >= 0 else { throw bad("--uplink-kbps takes kbit/s above 0, not \(uplinkKbps)") }
        guard (0...5000).contains(uplinkQueueMilliseconds) else { throw bad("--uplink-queue-ms takes 0–5000 ms, not \(uplinkQueueMilliseconds)") }
    }
}

/// Which packets a lossy link drops: Bernoulli, or Gilbert–Elliott with a
/// mean burst length. Deterministic for a seed.
struct LossModel {
    private var random: SplitMix
    private let enterBad: Double
    private let leaveBad: Double
    private let independent: Double
    private var bad = false

    init(percent: Double, burstLength: Double, seed: UInt64) {
        random = SplitMix(seed: seed)
        let loss = min(max(percent / 100, 0), 1)
        if burstLength <= 1 {
            independent = loss
            enterBad = 0
            leaveBad = 1
        } else {
            // Stationary loss p = enter / (enter + leave), mean burst 1 / leave.
            independent = 0
            leaveBad = 1 / burstLength
            enterBad = loss >= 1 ? 1 : loss * leaveBad / (1 - loss)
        }
    }

    /// Whether the next packet is lost.
    mutating func nextIsLost() -> Bool {
        if independent > 0 { return random.nextUnit() < independent }
        bad = bad ? random.nextUnit() >= leaveBad : random.nextUnit() < enterBad
        return bad
    }
}

/// A small seeded generator (SplitMix64).
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<1.
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
