/// What the impaired link does with each packet the door sends, from its
/// RTP payload type and the time alone: the outage, the loss of first sends
/// of video, retransmissions let through (and, for a libwebrtc-like sender,
/// spaced). `ImpairedLink` reads the header on the sending thread and asks
/// this under its lock.
struct ImpairedLinkPolicy {
    struct Counts: Equatable, Sendable {
        var videoSent = 0
        var videoDropped = 0
        var retransmissions = 0
        var outageDropped = 0
    }

    let impairment: NetworkImpairment
    /// Whether a packet asked for again within `retransmissionSpacing` of
    /// its last retransmission is not sent again: libwebrtc's sender resends
    /// a packet at most once per round trip, and a receiver that repeats its
    /// NACKs every few milliseconds behind a full router queue would
    /// otherwise fill that queue with copies.
    let spacesRetransmissions: Bool
    static let retransmissionSpacing = 150_000
    /// Retransmissions remembered before the old ones are forgotten.
    static let rememberedRetransmissions = 4096

    private var loss: LossModel
    /// The payload types of the door's video (codec, RED, ULPFEC: lost on
    /// first send) and of its retransmissions (never lost), from its offer.
    var lossyPayloadTypes: Set<UInt8> = []
    var repairPayloadTypes: Set<UInt8> = []
    private var firstPacketAt: Int?
    private var lastRetransmission: [UInt16: Int] = [:]
    private(set) var counts = Counts()

    init(_ impairment: NetworkImpairment, spacesRetransmissions: Bool) {
        self.impairment = impairment
        self.spacesRetransmissions = spacesRetransmissions
        loss = LossModel(percent: impairment.lossPercent, burstLength: impairment.burstLength, seed: impairment.seed)
    }

    /// Whether an RTP packet of `payloadType` sent at `now` (monotonic µs)
    /// goes on. `originalSequenceNumber` reads a retransmission's original
    /// sequence number, only when spacing needs it.
    mutating func keeps(payloadType: UInt8, at now: Int, originalSequenceNumber: () -> UInt16?) -> Bool {
        let start = firstPacketAt ?? now
        firstPacketAt = start
        if let at = impairment.outageAt, impairment.outageMilliseconds > 0 {
            let from = start + Int(at * 1_000_000)
            if now >= from && now < from + impairment.outageMilliseconds * 1000 {
                counts.outageDropped += 1
                return false
            }
        }
        if repairPayloadTypes.contains(payloadType) {
            if spacesRetransmissions, let original = originalSequenceNumber() {
                if let last = lastRetransmission[original], now - last < Self.retransmissionSpacing { return false }
                lastRetransmission[original] = now
                if lastRetransmission.count > Self.rememberedRetransmissions {
                    lastRetransmission = lastRetransmission.filter { now - $0.value < Self.retransmissionSpacing }
                }
            }
            counts.retransmissions += 1
            return true
        }
        guard lossyPayloadTypes.contains(payloadType) else { return true }
        counts.videoSent += 1
        if impairment.lossPercent > 0, loss.nextIsLost() {
            counts.videoDropped += 1
            return false
        }
        return true
    }
}
