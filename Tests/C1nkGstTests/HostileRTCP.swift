import CGStreamer
import Foundation
import Synchronization
@testable import C1nkGLib

/// RTCP a hostile browser could send its viewer (it holds the SRTP keys, so
/// whatever it makes reaches the viewer's RTP session): well-formed feedback
/// in floods, and packets that lie about their own lengths.
enum HostileRTCP {
    /// The sender SSRC the hostile browser uses for its feedback.
    static let sender: UInt32 = 0x4242_4242

    /// An empty receiver report from `ssrc` (8 bytes), the head of a compound packet.
    static func receiverReport(from ssrc: UInt32 = sender) -> [UInt8] {
        [0x80, 201] + be16(1) + be32(ssrc)
    }

    /// A picture loss indication about `media`.
    static func pli(_ media: UInt32) -> [UInt8] {
        receiverReport() + [0x81, 206] + be16(2) + be32(sender) + be32(media)
    }

    /// A full intra request for `media` (its command sequence number `sequence`).
    static func fir(_ media: UInt32, sequence: UInt8) -> [UInt8] {
        receiverReport() + [0x84, 206] + be16(4) + be32(sender) + be32(0) + be32(media) + [sequence, 0, 0, 0]
    }

    /// A NACK about `media` for every packet from `first` on, `count` of them (17 to an entry).
    static func nack(_ media: UInt32, from first: UInt16, count: Int) -> [UInt8] {
        let entries = (count + 16) / 17
        var packet = receiverReport() + [0x81, 205] + be16(UInt16(2 + entries)) + be32(sender) + be32(media)
        for entry in 0..<entries { packet += be16(first &+ UInt16(truncatingIfNeeded: entry * 17)) + [0xff, 0xff] }
        return packet
    }

    /// A receiver report with one report block on `media`: `cumulativeLost` packets lost so far.
    static func receiverReport(on media: UInt32, cumulativeLost: Int) -> [UInt8] {
        let lost = UInt32(bitPattern: Int32(cumulativeLost)) & 0xff_ffff
        return [0x81, 201] + be16(7) + be32(sender) + be32(media) + be32(lost) + [UInt8](repeating: 0, count: 16)
    }

    /// A receiver report from an SSRC of its own each time, with one report block.
    static func receiverReportFromANewSSRC() -> [UInt8] {
        [0x81, 201] + be16(7) + be32(.random(in: 1...UInt32.max)) + be32(.random(in: 1...UInt32.max)) + [UInt8](repeating: 0, count: 20)
    }

    /// Packets that do not parse: cut short, lengths that lie (too short, past
    /// the end, 256 KB claimed), the wrong version, nothing at all, noise.
    static let malformed: [[UInt8]] = [
        Array(receiverReport().prefix(5)),
        [0x80, 201] + be16(7) + be32(sender),
        [0x80, 201] + be16(0xffff) + be32(sender) + [UInt8](repeating: 0, count: 64),
        receiverReport() + [0x81, 205] + be16(0xfff0) + be32(sender) + be32(1) + be32(0xffff),
        [0x40, 201] + be16(1) + be32(sender),
        [],
        receiverReport() + [0x81, 206],
        (0..<96).map { UInt8(($0 * 37 + 11) & 0xff) },
    ]

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
    static func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }

    static func buffer(_ bytes: [UInt8]) -> UnsafeMutablePointer<GstBuffer> {
        bytes.isEmpty ? gst_buffer_new() : bytes.withUnsafeBytes { gst_buffer_new_memdup($0.baseAddress, gsize($0.count))! }
    }

    /// Sends what `next` makes into `pad` (where the browser's RTCP enters a
    /// viewer's RTP session), `perSecond` packets a second, on a thread of its
    /// own, as the viewer's receiving thread would; until `stop`.
    final class Flood: @unchecked Sendable {
        private let stopped = Atomic<Bool>(false)
        private let finished = Atomic<Bool>(false)
        let sent = Atomic<Int>(0)

        init(into pad: Pad, perSecond: Double, _ next: @escaping @Sendable (Int) -> [UInt8]) {
            let thread = Thread { [self] in
                let start = Date()
                var index = 0
                while !stopped.load(ordering: .relaxed) {
                    _ = gst_pad_chain(pad.pointer, HostileRTCP.buffer(next(index)))
                    index += 1
                    sent.add(1, ordering: .relaxed)
                    let wait = start.addingTimeInterval(Double(index) / perSecond).timeIntervalSinceNow
                    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                }
                finished.store(true, ordering: .releasing)
            }
            thread.start()
        }

        /// Stops the flood and waits for its last packet.
        func stop() {
            stopped.store(true, ordering: .relaxed)
            while !finished.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.005) }
        }
    }
}
