import C1nkGLib
import CGStreamer
import Synchronization

/// Lets a `webrtcechoprobe` see a LATENCY event only when it says something
/// new. The probe (GStreamer 1.22) leaks a latency query on every LATENCY
/// event it handles, and the speaker's pipeline sends one each time it
/// wakes for a call, with the same value (its latency is fixed: see
/// `SpeakerGraph.init`). The probe needs the first (until then it hands
/// the DSP silence) and any that changes the latency; a repeat is passed on
/// upstream past the probe instead, so the elements above it still get it.
/// The probe keeps what it learnt across the speaker's sleeps.
///
/// The pad probe runs on whichever thread sends the event (a state change
/// or a latency recalculation), never per buffer.
enum EchoProbeLatencyGate {
    static func install(on probe: Element) {
        // The pad probe's closure keeps the sink pad for the probe's life.
        guard let source = probe.staticPad("src"), let sink = probe.staticPad("sink") else { return }
        let seen = Mutex<GstClockTime?>(nil)
        source.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
            guard let event = gst_pad_probe_info_get_event(info), event.pointee.type == GST_EVENT_LATENCY else { return GST_PAD_PROBE_OK }
            var latency: GstClockTime = 0
            gst_event_parse_latency(event, &latency)
            let repeated = seen.withLock { last in
                defer { last = latency }
                return last == latency
            }
            guard repeated else { return GST_PAD_PROBE_OK }
            sink.pushEvent(gst_event_ref(event))
            return GST_PAD_PROBE_DROP
        }
    }
}
