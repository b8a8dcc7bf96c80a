import C1nkGLib
import CGStreamer

/// The first RTP packet reaching a jitterbuffer rtpbin has just made, read
/// once on its streaming thread: its payload type tells which of the door's
/// streams the jitterbuffer serves (rtpbin names only the SSRC, and the
/// door's SDP need not list the SSRCs it sends).
enum RTPFirstPacket {
    /// Calls `body` with the payload type of the first packet arriving at
    /// `jitterbuffer`, on the streaming thread and before the jitterbuffer
    /// handles the packet: keep `body` to properties and posts. No reference
    /// is held while waiting (a stream announced by RTCP may never send
    /// RTP): the probe lives as long as the pad.
    static func onPayloadType(of jitterbuffer: UnsafeMutablePointer<GstElement>,
                              _ body: @escaping (_ payloadType: Int, _ sinkPad: UnsafeMutablePointer<GstPad>) -> Void) {
        guard let pad = gst_element_get_static_pad(jitterbuffer, "sink") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        let sink = UnsafeMutableRawPointer(pad)
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { info in
            var second: UInt8 = 0 // RTP: marker bit and payload type
            if let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self),
               gst_buffer_extract(buffer, 1, &second, 1) == 1 {
                body(Int(second & 0x7f), sink.assumingMemoryBound(to: GstPad.self))
            }
            return GST_PAD_PROBE_REMOVE
        }
    }
}
