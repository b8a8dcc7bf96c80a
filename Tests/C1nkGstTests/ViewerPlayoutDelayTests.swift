import CGStreamer
import XCTest
@testable import C1nkGLib
@testable import C1nkViewers

/// The playout delay a viewer's packets say, as the browser's link changes:
/// 0–100 ms clean, 150–300 ms once it loses packets, back after 10 s without
/// or at once after an outage.
final class ViewerPlayoutDelayTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    /// Pushes one RTP packet through `pad` and returns its playout-delay extension's bytes.
    private func pushed(through pad: Pad, caught: PacketCatcher) throws -> [UInt8]? {
        let buffer = try XCTUnwrap(gst_rtp_buffer_new_allocate(4, 0, 0))
        gst_pad_push(pad.pointer, buffer)
        return caught.lastExtension
    }

    private static func pad(_ name: String, _ direction: GstPadDirection) throws -> Pad {
        let pad = try XCTUnwrap(gst_pad_new(name, direction))
        gst_object_ref_sink(UnsafeMutableRawPointer(pad))
        return Pad(adopting: pad)
    }

    func testTheDelayRisesAtLossAndFallsBackAfterTheHold() throws {
        let sourcePad = try Self.pad("src", GST_PAD_SRC), sinkPad = try Self.pad("sink", GST_PAD_SINK)
        let source = sourcePad.pointer, sink = sinkPad.pointer
        let caught = PacketCatcher(id: 3)
        caught.install(on: sinkPad)
        XCTAssertEqual(gst_pad_link(source, sink), GST_PAD_LINK_OK)
        gst_pad_set_active(source, 1)
        gst_pad_set_active(sink, 1)
        _ = gst_pad_push_event(source, gst_event_new_stream_start("s"))
        _ = gst_pad_push_event(source, gst_event_new_caps(gst_caps_from_string("application/x-rtp")))
        var segment = GstSegment()
        gst_segment_init(&segment, GST_FORMAT_TIME)
        _ = gst_pad_push_event(source, gst_event_new_segment(&segment))

        XCTAssertNil(ViewerPlayoutDelay(marking: sourcePad, extensionId: 15), "the one-byte form carries ids 1–14")
        let delay = try XCTUnwrap(ViewerPlayoutDelay(marking: sourcePad, extensionId: 3))
        let second = 1_000_000, start = 100 * second
        XCTAssertEqual(delay.current, ViewerPlayoutDelay.clean)
        XCTAssertEqual(try pushed(through: sourcePad, caught: caught), [0, 0, 10], "0 to 100 ms")
        delay.lossSeen(now: start)
        XCTAssertEqual(delay.current, ViewerPlayoutDelay.lossy)
        XCTAssertEqual(try pushed(through: sourcePad, caught: caught), [0, 0xf0, 30], "150 (15 units) to 300 ms (30)")
        delay.relax(now: start + 9 * second)
        XCTAssertEqual(delay.current, ViewerPlayoutDelay.lossy, "held for 10 s")
        delay.lossSeen(now: start + 9 * second)
        delay.relax(now: start + 15 * second)
        XCTAssertEqual(delay.current, ViewerPlayoutDelay.lossy, "the hold counts from the last loss")
        delay.relax(now: start + 20 * second)
        XCTAssertEqual(delay.current, ViewerPlayoutDelay.clean)
        XCTAssertEqual(try pushed(through: sourcePad, caught: caught), [0, 0, 10], "back to 0 to 100 ms")
        delay.lossSeen(now: start + 30 * second)
        delay.outageEnded()
        XCTAssertEqual(delay.current, ViewerPlayoutDelay.clean, "after an outage, at once")
        delay.relax(now: start + 31 * second)
        XCTAssertEqual(delay.current, ViewerPlayoutDelay.clean)
    }
}

/// The playout-delay extension (one-byte id `id`) of the last packet a sink pad took.
final class PacketCatcher: @unchecked Sendable {
    let id: UInt8
    private(set) var lastExtension: [UInt8]?
    init(id: UInt8) { self.id = id }

    func install(on pad: Pad) {
        pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [self] info in
            guard let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
            var rtp = GstRTPBuffer()
            guard gst_rtp_buffer_map(buffer, GST_MAP_READ, &rtp) != 0 else { return GST_PAD_PROBE_DROP }
            defer { gst_rtp_buffer_unmap(&rtp) }
            var data: gpointer?
            var size: guint = 0
            lastExtension = gst_rtp_buffer_get_extension_onebyte_header(&rtp, id, 0, &data, &size) != 0
                ? data.map { Array(UnsafeBufferPointer(start: $0.assumingMemoryBound(to: UInt8.self), count: Int(size))) } : nil
            return GST_PAD_PROBE_DROP
        }
    }
}
