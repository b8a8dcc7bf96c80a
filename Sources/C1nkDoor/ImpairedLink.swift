import C1nkGLib
import C1nkMedia
import C1nkPipeline
import CGStreamer
import Foundation
import Synchronization

/// The simulated door's side of a bad network: an element webrtcbin puts
/// between its RTX sender and the transport (`request-aux-sender`), where
/// RTP is still plain. It drops the first send of video packets (loss,
/// bursts), everything during an outage, and hands the rest to `netsim` for
/// delay, reordering and the bandwidth cap. Retransmissions pass.
///
/// Door-side fixture: Swift looks at each packet's header here, on the
/// sending thread.
final class ImpairedLink: @unchecked Sendable {
    struct Counts: Equatable, Sendable {
        var videoSent = 0
        var videoDropped = 0
        var retransmissions = 0
        var outageDropped = 0
    }

    let impairment: NetworkImpairment
    private let lock = NSLock()
    private var loss: LossModel
    private var lossyPayloadTypes: Set<UInt8> = []
    private var repairPayloadTypes: Set<UInt8> = []
    private var firstPacketAt: Int?
    private var counts = Counts()

    /// Whether a packet asked for again within `retransmissionSpacing` of
    /// its last retransmission is not sent again: libwebrtc's sender resends
    /// a packet at most once per round trip, and a receiver that repeats its
    /// NACKs every few milliseconds behind a full router queue would
    /// otherwise fill that queue with copies.
    let spacesRetransmissions: Bool
    static let retransmissionSpacing = 150_000
    private var lastRetransmission: [UInt16: Int] = [:]

    init(_ impairment: NetworkImpairment, spacesRetransmissions: Bool = false) {
        self.impairment = impairment
        self.spacesRetransmissions = spacesRetransmissions
        loss = LossModel(percent: impairment.lossPercent, burstLength: impairment.burstLength, seed: impairment.seed)
    }

    /// The payload types of the door's video (codec, RED, ULPFEC: lost on
    /// first send) and of its retransmissions (never lost), from its offer.
    func setPayloadTypes(video: Set<Int>, retransmission: Set<Int>) {
        lock.withLock {
            lossyPayloadTypes = Set(video.compactMap { UInt8(exactly: $0) })
            repairPayloadTypes = Set(retransmission.compactMap { UInt8(exactly: $0) })
        }
    }

    var counted: Counts { lock.withLock { counts } }

    /// A new element for webrtcbin's `request-aux-sender`: floating, with
    /// `sink` and `src` pads.
    func makeElement() -> UnsafeMutablePointer<GstElement>? {
        let tail = impairment.needsNetsim ? "netsim name=\(PipelineBin.outputName) \(impairment.netsimProperties)"
            : "identity name=\(PipelineBin.outputName) silent=true"
        guard let bin = try? PipelineBin.make(tail, name: "door-network", input: true, output: true) else { return nil }
        if let entry = Gst.find(PipelineBin.inputName, in: bin) {
            if let pad = gst_element_get_static_pad(entry, "src") {
                PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { [self] info in
                    guard let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
                    return self.keeps(buffer) ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP
                }
                gst_object_unref(UnsafeMutableRawPointer(pad))
            }
            gst_object_unref(UnsafeMutableRawPointer(entry))
        }
        g_object_force_floating(UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GObject.self))
        return bin
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

    /// Whether a packet goes on (streaming thread).
    private func keeps(_ buffer: UnsafeMutablePointer<GstBuffer>) -> Bool {
        var header = [UInt8](repeating: 0, count: 2)
        guard gst_buffer_extract(buffer, 0, &header, 2) == 2, header[0] >> 6 == 2 else { return true }
        let payloadType = header[1] & 0x7f
        let now = g_get_monotonic_time()
        lock.lock()
        defer { lock.unlock() }
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
            if spacesRetransmissions, let original = Self.originalSequenceNumber(buffer) {
                if let last = lastRetransmission[original], now - last < Self.retransmissionSpacing { return false }
                lastRetransmission[original] = now
                if lastRetransmission.count > 4096 { lastRetransmission = lastRetransmission.filter { now - $0.value < Self.retransmissionSpacing } }
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
