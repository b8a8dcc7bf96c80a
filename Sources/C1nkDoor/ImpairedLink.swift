import C1nkGLib
import C1nkMedia
import C1nkPipeline
import CGStreamer
import FoundationEssentials

/// The simulated door's side of a bad network: an element webrtcbin puts
/// between its RTX sender and the transport (`request-aux-sender`), where
/// RTP is still plain. It drops the first send of video packets (loss,
/// bursts), everything during an outage, and hands the rest to `netsim` for
/// delay, reordering and the bandwidth cap. Retransmissions pass. What
/// happens to each packet is `ImpairedLinkPolicy`'s decision.
///
/// Door-side fixture: Swift looks at each packet's header here, on the
/// sending thread.
final class ImpairedLink: @unchecked Sendable {
    typealias Counts = ImpairedLinkPolicy.Counts

    let impairment: NetworkImpairment
    private let lock = ThreadLock()
    private var policy: ImpairedLinkPolicy

    init(_ impairment: NetworkImpairment, spacesRetransmissions: Bool = false) {
        self.impairment = impairment
        policy = ImpairedLinkPolicy(impairment, spacesRetransmissions: spacesRetransmissions)
    }

    /// The payload types of the door's video (codec, RED, ULPFEC: lost on
    /// first send) and of its retransmissions (never lost), from its offer.
    func setPayloadTypes(video: Set<Int>, retransmission: Set<Int>) {
        lock.withLock {
            policy.lossyPayloadTypes = Set(video.compactMap { UInt8(exactly: $0) })
            policy.repairPayloadTypes = Set(retransmission.compactMap { UInt8(exactly: $0) })
        }
    }

    var counted: Counts { lock.withLock { policy.counts } }

    /// A new element for webrtcbin's `request-aux-sender`: a floating
    /// reference (the signal's emitter sinks it), with `sink` and `src` pads.
    func makeElement() -> gpointer? {
        let tail = impairment.needsNetsim ? "netsim name=\(PipelineBin.outputName) \(impairment.netsimProperties)"
            : "identity name=\(PipelineBin.outputName) silent=true"
        guard let made = try? PipelineBin.make(tail, name: "door-network", input: true, output: true) else { return nil }
        let bin = Bin(adopting: made)
        bin.element(named: PipelineBin.inputName)?.staticPad("src")?.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [self] info in
            guard let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
            return self.keeps(buffer) ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP
        }
        return bin.floatingReference()
    }

    /// The first two payload bytes of a packet (an RTX packet's original
    /// sequence number), past the CSRCs and any header extension.
    static func originalSequenceNumber(_ buffer: UnsafeMutablePointer<GstBuffer>) -> UInt16? {
        var fixed = [UInt8](repeating: 0, count: 12)
        guard gst_buffer_extract(buffer, 0, &fixed, 12) == 12 else { return nil }
        var offset = 12 + 4 * Int(fixed[0] & 0x0f)
        if fixed[0] & 0x10 != 0 {
            var extensionHeader = [UInt8](repeating: 0, count: 4)
            guard gst_buffer_extract(buffer, gsize(offset), &extensionHeader, 4) == 4 else { return nil }
            offset += 4 + 4 * (Int(extensionHeader[2]) << 8 | Int(extensionHeader[3]))
        }
        var payload = [UInt8](repeating: 0, count: 2)
        guard gst_buffer_extract(buffer, gsize(offset), &payload, 2) == 2 else { return nil }
        return UInt16(payload[0]) << 8 | UInt16(payload[1])
    }

    /// Whether a packet goes on (streaming thread, borrowed buffer): its
    /// RTP version and payload type read in place, the rest decided by the policy.
    private func keeps(_ buffer: UnsafeMutablePointer<GstBuffer>) -> Bool {
        var header = [UInt8](repeating: 0, count: 2)
        guard gst_buffer_extract(buffer, 0, &header, 2) == 2, header[0] >> 6 == 2 else { return true }
        let payloadType = header[1] & 0x7f
        let now = g_get_monotonic_time()
        lock.lock()
        defer { lock.unlock() }
        return policy.keeps(payloadType: payloadType, at: now) { Self.originalSequenceNumber(buffer) }
    }
}
