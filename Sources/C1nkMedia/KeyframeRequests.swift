import C1nkGLib
import C1nkProbes
import CGStreamer

/// Keyframe requests toward the door: counted where they leave toward
/// webrtcbin, and the first one sent as soon as the door's video arrives.
package enum KeyframeRequests {
    /// A request for a keyframe, sent upstream: all headers, the next key unit.
    package static func upstreamRequest() -> UnsafeMutablePointer<GstEvent> {
        gst_video_event_new_upstream_force_key_unit(GstClockTime.max, 1, 0)
    }

    /// Counts the requests passing `pad` upstream (ours and the decoder's and depayloader's).
    static func count(on pad: Pad, into counter: FrameCounter) {
        pad.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
            if let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
               gst_video_event_is_force_key_unit(event) != 0 {
                counter.value.add(1, ordering: .relaxed)
            }
            return GST_PAD_PROBE_OK
        }
    }

    /// From a streaming thread, at the first packet of the door's video
    /// reaching a new jitterbuffer's `sink` pad (`RTPFirstPacket`): the
    /// keyframe is asked for (`requestEarly`, on the main context).
    static func requestEarly(at sink: Pad, counter: FrameCounter) {
        guard let jitterbuffer = sink.parent else { return }
        MainContext.post { requestEarly(from: jitterbuffer, counter: counter) }
    }

    /// Asks for a keyframe from the stream of a new jitterbuffer (its first
    /// packet has just arrived) — a latency earlier than at webrtcbin's
    /// source pad, which appears only once the jitterbuffer releases that
    /// packet. The request leaves upstream from the jitterbuffer's sink pad:
    /// the SSRC demuxer adds the stream's SSRC and the RTP session sends the
    /// PLI. Main context. The jitterbuffer is linked right after it is
    /// announced: until it is, this tries again (`attempts` times, at idle).
    static func requestEarly(from jitterbuffer: Element, counter: FrameCounter, attempts: Int = 200) {
        guard let pad = jitterbuffer.staticPad("sink") else { return }
        guard pad.isLinked else {
            if attempts > 0 {
                MainContext.post { requestEarly(from: jitterbuffer, counter: counter, attempts: attempts - 1) }
            }
            return
        }
        // The RTP session turns it into a PLI and answers false (it does
        // not forward the event further): count what was sent.
        pad.pushEvent(upstreamRequest())
        counter.value.add(1, ordering: .relaxed)
    }
}
