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
    static func watch(_ pipeline: Bin) -> SignalConnection {
        let connection = pipeline.connect("deep-element-added") { (_: gpointer?, added: gpointer?) in
            // Runs on whatever thread adds the element (decodebin: streaming): properties only.
            guard let element = Element.fromSignalArgument(added) else { return }
            configure(element)
        }
        pipeline.elements.forEach(configure)
        return connection
    }

    static func configure(_ element: Element) {
        guard let factory = gst_element_get_factory(element.pointer), let name = element.factoryName else { return }
        let klass = gst_element_factory_get_metadata(factory, "klass").map { String(cString: $0) } ?? ""
        for (property, value) in settings(factory: name, klass: klass) where element.has(property: property) {
            element.set(property, fromString: value)
        }
    }

    /// The repair settings of an element made by `factory`, whose class
    /// (its metadata) is `klass`; set where the element has the property.
    static func settings(factory: String, klass: String) -> [(property: String, value: String)] {
        if factory == "rtpsession" {
            // NACKs and PLIs leave as early RTCP, which AVPF allows once per
            // regular RTCP interval; that interval follows the RTCP
            // bandwidth, by default 5 % of what this end sends (only our
            // voice): ~0.8 s, far too slow to repair video within 20 ms.
            // 100 kB/s of allowance gives an interval of tens of
            // milliseconds; what is actually sent is one compound RTCP
            // packet per interval (a few hundred bytes), some tens of kbit/s.
            return [("rtcp-fraction", String(rtcpBytesPerSecond))]
        } else if factory == "rtpjitterbuffer" {
            // Ask as soon as a packet is due (a packet 20 ms late is lost
            // anyway at our latency), and again after 10 ms if the first
            // retransmission was lost too.
            return [("rtx-delay", "0"), ("rtx-min-retry-timeout", "10"), ("rtx-next-seqnum", "false")]
        } else if klass.contains("Depayloader") {
            // Video depayloaders have these (rtpvp8depay, rtph264depay, …); audio ones do not.
            return [("request-keyframe", "true"), ("wait-for-keyframe", "true")]
        } else if klass.contains("Decoder") && klass.contains("Video") {
            return [("discard-corrupted-frames", "true"), ("automatic-request-sync-points", "true"),
                    ("min-force-key-unit-interval", String(minKeyframeInterval))]
        }
        return []
    }

    /// Gives the door's video stream `ssrc` `milliseconds` of jitterbuffer
    /// latency to wait for retransmissions, leaving the audio's as it is.
    /// Only new gaps use it: a packet already waited for keeps its deadline.
    /// Whether a jitterbuffer of that stream was found.
    static func widenWindow(in webrtc: Bin, ssrc: UInt32, to milliseconds: UInt) -> Bool {
        guard let jitterbuffer = jitterbuffer(in: webrtc, ssrc: ssrc) else { return false }
        if UInt(max(0, jitterbuffer[int: "latency"])) < milliseconds {
            jitterbuffer.set("latency", fromString: String(milliseconds))
        }
        return true
    }

    /// The jitterbuffer of stream `ssrc`.
    static func jitterbuffer(in webrtc: Bin, ssrc: UInt32) -> Element? {
        webrtc.elements.first { $0.factoryName == "rtpjitterbuffer" && self.ssrc(of: $0) == ssrc }
    }

    /// The SSRC a jitterbuffer serves (rtpbin's caps on its sink pad carry
    /// only that).
    private static func ssrc(of jitterbuffer: Element) -> UInt32? {
        guard let caps = jitterbuffer.staticPad("sink")?.currentCaps, let structure = caps.structure() else { return nil }
        var value: guint = 0
        return withExtendedLifetime(caps) { gst_structure_get_uint(structure, "ssrc", &value) != 0 } ? UInt32(value) : nil
    }
}
