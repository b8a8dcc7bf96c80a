import C1nkGLib
import CGStreamer

/// Counts the keyframe requests that leave toward webrtcbin on its video pad.
enum KeyframeRequests {
    static func count(on pad: UnsafeMutablePointer<GstPad>, into counter: FrameCounter) {
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
            if let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
               gst_video_event_is_force_key_unit(event) != 0 {
                counter.value.add(1, ordering: .relaxed)
            }
            return GST_PAD_PROBE_OK
        }
    }
}
