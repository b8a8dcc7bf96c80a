import C1nkGLib
import C1nkPipeline
import CGStreamer

/// Loss repair on the answerer's video path, the way libwebrtc does it,
/// applied to the elements of a call's pipeline as they appear (also those
/// `decodebin` plugs):
///
/// - the jitterbuffer asks for retransmissions quickly enough to fit our
///   20 ms default latency (webrtcbin switches `do-retransmission` on for
///   transceivers with `do-nack`);
/// - the depayloader asks for a keyframe when it meets a gap it cannot
///   repair, and waits for that keyframe rather than passing a broken frame;
/// - the decoder drops frames it knows are corrupt and asks for a sync point
///   itself, at most once per `minKeyframeInterval`.
///
/// Their requests travel upstream as force-key-unit events, which webrtcbin's
/// RTP session turns into a PLI (or FIR) toward the door.
enum VideoRepair {
    /// Spacing of the decoder's own keyframe requests: one round trip plus an
    /// encode on a LAN, short of the 200 ms freeze we allow.
    static let minKeyframeInterval: UInt64 = 100_000_000
    /// RTCP bandwidth of the answerer's RTP session, bytes per second.
    static let rtcpBytesPerSecond = 100_000

    /// Configures the elements already in `pipeline` and those added later;
    /// keep the connection as long as the pipeline.
    static func watch(_ pipeline: UnsafeMutablePointer<GstElement>) -> SignalConnection {
        let connection = SignalConnection.connect(UnsafeMutableRawPointer(pipeline), "deep-element-added") { (_: gpointer?, element: gpointer?) in
            // Runs on whatever thread adds the element (decodebin: streaming): properties only.
            guard let element = element?.assumingMemoryBound(to: GstElement.self) else { return }
            configure(element)
        }
        Gst.elements(of: pipeline).forEach(configure)
        return connection
    }

    static func configure(_ element: UnsafeMutablePointer<GstElement>) {
        guard let factory = gst_element_get_factory(element) else { return }
        let klass = gst_element_factory_get_metadata(factory, "klass").map { String(cString: $0) } ?? ""
        let name = Gst.name(UnsafeMutableRawPointer(factory).assumingMemoryBound(to: GstObject.self))
        let raw = UnsafeMutableRawPointer(element)
        func set(_ property: String, _ value: String) {
            if ObjectProperty.has(raw, property) { ObjectProperty.set(raw, property, value) }
        }
        if name == "rtpsession" {
            // NACKs and PLIs leave as early RTCP, which AVPF allows once per
            // regular RTCP interval; that interval follows the RTCP
            // bandwidth, by default 5 % of what this end sends (only our
            // voice): ~0.8 s, far too slow to repair video within 20 ms.
            // 100 kB/s of allowance gives an interval of tens of
            // milliseconds; what is actually sent is one compound RTCP
            // packet per interval (a few hundred bytes), some tens of kbit/s.
            set("rtcp-fraction", String(rtcpBytesPerSecond))
        } else if name == "rtpjitterbuffer" {
            // Ask as soon as a packet is due (a packet 20 ms late is lost
            // anyway at our latency), and again after 10 ms if the first
            // retransmission was lost too.
            set("rtx-delay", "0")
            set("rtx-min-retry-timeout", "10")
            set("rtx-next-seqnum", "false")
        } else if klass.contains("Depayloader") {
            // Video depayloaders have these (rtpvp8depay, rtph264depay, …); audio ones do not.
            set("request-keyframe", "true")
            set("wait-for-keyframe", "true")
        } else if klass.contains("Decoder") && klass.contains("Video") {
            set("discard-corrupted-frames", "true")
            set("automatic-request-sync-points", "true")
            set("min-force-key-unit-interval", String(minKeyframeInterval))
        }
    }

    /// Gives the door's video stream `ssrc` `milliseconds` of jitterbuffer
    /// latency to wait for retransmissions, leaving the audio's as it is.
    /// Only new gaps use it: a packet already waited for keeps its deadline.
    /// Whether a jitterbuffer of that stream was found.
    static func widenWindow(in webrtc: UnsafeMutablePointer<GstElement>, ssrc: UInt32, to milliseconds: UInt) -> Bool {
        guard let jitterbuffer = jitterbuffer(in: webrtc, ssrc: ssrc) else { return false }
        let raw = UnsafeMutableRawPointer(jitterbuffer)
        // `latency` is a guint; its bits read as a gint are the same below 2^31.
        if UInt(max(0, c1nk_object_get_int(raw, "latency"))) < milliseconds {
            ObjectProperty.set(raw, "latency", String(milliseconds))
        }
        return true
    }

    /// The jitterbuffer of stream `ssrc` (borrowed: webrtcbin holds it).
    static func jitterbuffer(in webrtc: UnsafeMutablePointer<GstElement>, ssrc: UInt32) -> UnsafeMutablePointer<GstElement>? {
        PipelineLinks.elements(of: webrtc, factory: "rtpjitterbuffer").first { self.ssrc(of: $0) == ssrc }
    }

    /// The SSRC a jitterbuffer serves (rtpbin's caps on its sink pad carry
    /// only that).
    private static func ssrc(of jitterbuffer: UnsafeMutablePointer<GstElement>) -> UInt32? {
        guard let pad = gst_element_get_static_pad(jitterbuffer, "sink") else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        guard let caps = gst_pad_get_current_caps(pad) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
        var value: guint = 0
        guard gst_caps_get_size(caps) > 0, let structure = gst_caps_get_structure(caps, 0),
              gst_structure_get_uint(structure, "ssrc", &value) != 0 else { return nil }
        return UInt32(value)
    }
}
