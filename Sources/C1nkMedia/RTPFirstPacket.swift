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
    /// RTP): the probe lives as long as the pad, which it sees borrowed.
    static func onPayloadType(of jitterbuffer: Element, _ body: @escaping (_ payloadType: Int, _ sinkPad: Pad) -> Void) {
        guard let pad = jitterbuffer.staticPad("sink") else { return }
        let sink = pad.pointer
        pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let second = RTPHeader.bytes(of: info, at: 1, count: 1) {
                body(RTPHeader.payloadType(secondByte: second[0]), Pad(retaining: sink))
            }
            return GST_PAD_PROBE_REMOVE
        }
    }
}
