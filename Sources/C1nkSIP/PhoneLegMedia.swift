import C1nkGLib
import CGStreamer

/// One phone's audio in an `rtpbin` pipeline: G.711 to the phone and from
/// it, RTP on the offered port and RTCP on the next. The description is
/// fixed text per codec (`SIPCodec`); the phone's address and ports, read
/// from its answer, are set as element properties and never written into
/// the text. For now the phone hears a tone, and what it sends is measured
/// (its peak), which is what the bridge's first slice needs to prove audio
/// flows both ways. Main context only.
public final class PhoneLegMedia {
    /// The local side, known before the offer is sent.
    public let address: String
    public let port: Int
    /// The largest sample (0…32767) heard from the phone so far, and how many buffers.
    public private(set) var peakHeard = 0
    public private(set) var buffersHeard = 0
    /// A pipeline error (a port taken, an element missing), with what to do.
    public var onError: ((String) -> Void)?
    /// A key pressed on the phone, sent as RFC 4733 telephone-events (once per press).
    public var onKey: ((Character) -> Void)?

    private var pipeline: Pipeline?
    private var bus: BusWatch?
    private var signals: [SignalConnection] = []
    private var probe: (pad: Pad, id: gulong)?

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reserves a port pair on `address` (numeric IPv4) for the phone leg.
    public init(address: String) throws {
        guard let port = RTPPortPair.find(on: address) else {
            throw Failure(description: "no free UDP port pair for RTP on \(address): free some ports or give another --sip-address")
        }
        self.address = address
        self.port = port
    }

    deinit { stop() }

    /// The fixed description for `codec`; nothing in it comes from the phone.
    static func description(_ codec: SIPCodec) -> String {
        let (encoder, payloader, depayloader, decoder) = switch codec {
        case .pcmu: ("mulawenc", "rtppcmupay", "rtppcmudepay", "mulawdec")
        case .pcma: ("alawenc", "rtppcmapay", "rtppcmadepay", "alawdec")
        }
        return """
            rtpbin name=rtpbin latency=80
            audiotestsrc name=tone is-live=true wave=sine freq=440 volume=0.5 ! audioconvert ! audioresample \
            ! audio/x-raw,rate=8000,channels=1 ! \(encoder) ! \(payloader) name=pay min-ptime=20000000 max-ptime=20000000 \
            ! rtpbin.send_rtp_sink_0
            rtpbin.send_rtp_src_0 ! udpsink name=rtpsink sync=false async=false
            rtpbin.send_rtcp_src_0 ! udpsink name=rtcpsink sync=false async=false
            udpsrc name=rtpsrc ! rtpbin.recv_rtp_sink_0
            udpsrc name=rtcpsrc ! rtpbin.recv_rtcp_sink_0
            \(depayloader) name=depay ! \(decoder) ! audioconvert ! audio/x-raw,format=S16LE,channels=1 \
            ! fakesink name=heard sync=false async=false
            rtpdtmfdepay name=keys ! fakesink sync=false async=false
            """
    }

    /// Starts sending to and receiving from the phone as `answer` says.
    public func start(_ answer: SDPAnswer) throws {
        stop()
        var error: UnsafeMutablePointer<GError>?
        guard let parsed = gst_parse_launch(Self.description(answer.codec), &error), error == nil else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if error != nil { g_error_free(error) }
            throw Failure(description: "the phone leg's pipeline did not build (\(message)): install gstreamer1.0-plugins-good (scripts/install-deps)")
        }
        let pipeline = Pipeline(retaining: parsed)
        guard let rtpbin = pipeline.element(named: "rtpbin"), let depay = pipeline.element(named: "depay"),
              let rtpSource = pipeline.element(named: "rtpsrc"), let rtcpSource = pipeline.element(named: "rtcpsrc"),
              let rtpSink = pipeline.element(named: "rtpsink"), let rtcpSink = pipeline.element(named: "rtcpsink"),
              let keys = pipeline.element(named: "keys"), let heard = pipeline.element(named: "heard"),
              let caps = Caps("application/x-rtp,media=audio,clock-rate=\(answer.codec.clockRate)")
        else { throw Failure(description: "the phone leg's pipeline lacks a named element") }
        // Each payload type's caps come from our own table, by number: the voice and the keys.
        let voiceType = answer.codec.payloadType
        let eventTypes = Set([SDPOffer.telephoneEventPayloadType] + (answer.telephoneEventPayloadType.map { [$0] } ?? []))
        let voiceCaps = "application/x-rtp,media=audio,clock-rate=\(answer.codec.clockRate),encoding-name=\(answer.codec.rawValue)"
        let eventCaps = "application/x-rtp,media=audio,clock-rate=8000,encoding-name=TELEPHONE-EVENT"
        signals.append(SignalConnection.connectReturning(rtpbin.object, "request-pt-map") { (_: UInt32, type: UInt32) in
            let known = Int(type) == voiceType ? voiceCaps : eventTypes.contains(Int(type)) ? eventCaps : nil
            return known.flatMap { gst_caps_from_string("\($0),payload=\(type)") }.map { PointerCast.raw($0) }
        })
        rtpSource[string: "address"] = address
        rtpSource[int: "port"] = port
        rtpSource[caps: "caps"] = caps
        rtcpSource[string: "address"] = address
        rtcpSource[int: "port"] = port + 1
        rtpSink[string: "host"] = answer.address
        rtpSink[int: "port"] = answer.port
        rtcpSink[string: "host"] = answer.address
        rtcpSink[int: "port"] = answer.rtcpPort
        // The phone's stream appears as rtpbin learns its SSRC; its pad is linked on the
        // streaming thread, as GStreamer requires for a pad that is already pushing.
        signals.append(rtpbin.connect("pad-added") { (added: gpointer?) in
            guard let pad = Pad(retaining: added), pad.name.hasPrefix("recv_rtp_src_0_"),
                  let type = pad.name.split(separator: "_").last.flatMap({ Int($0) }) else { return }
            let target = type == voiceType ? depay : eventTypes.contains(type) ? keys : nil
            guard let sink = target?.staticPad("sink"), !sink.isLinked else { return }
            _ = pad.link(sink)
        })
        if let sink = heard.staticPad("sink") {
            let id = sink.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
                let peak = PhoneLegMedia.peak(of: info)
                MainContext.post { [weak self] in
                    guard let self else { return }
                    self.buffersHeard += 1
                    self.peakHeard = max(self.peakHeard, peak)
                }
                return GST_PAD_PROBE_OK
            }
            probe = (sink, id)
        }
        bus = BusWatch(pipeline.pointer) { [weak self] message in
            if message.pointee.type == GST_MESSAGE_ELEMENT {
                self?.keyMessage(message)
                return
            }
            guard message.pointee.type == GST_MESSAGE_ERROR else { return }
            var error: UnsafeMutablePointer<GError>?
            gst_message_parse_error(message, &error, nil)
            let text = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if error != nil { g_error_free(error) }
            Log.sip.error("phone leg media: \(text)")
            self?.onError?("the phone leg's media failed: \(text)")
        }
        self.pipeline = pipeline
        // Symmetric RTP: we send from the ports we receive on, as a phone or PBX that answers
        // to the source port (Asterisk's comedia, NAT) needs. udpsrc binds on the way to READY.
        guard pipeline.setState(GST_STATE_READY) else {
            stop()
            throw Failure(description: "the phone leg's pipeline did not start: is UDP port \(port) or \(port + 1) on \(address) taken?")
        }
        for (source, sink) in [(rtpSource, rtpSink), (rtcpSource, rtcpSink)] {
            guard let socket = GObjectReference(property: "used-socket", of: source.object) else { continue }
            sink[bool: "close-socket"] = false
            c1nk_object_set_pointer(sink.object, "socket", socket.object)
        }
        guard pipeline.setState(GST_STATE_PLAYING) else {
            stop()
            throw Failure(description: "the phone leg's pipeline did not start: is UDP port \(port) or \(port + 1) on \(address) taken?")
        }
        Log.sip.info("phone leg media: \(answer.codec.rawValue) from \(address):\(port) to \(answer.address):\(answer.port)")
    }

    /// Whether RTP and RTCP leave from the ports they arrive on (symmetric RTP).
    public var sendsFromItsReceivingPorts: Bool {
        guard let pipeline else { return false }
        return [("rtpsrc", "rtpsink"), ("rtcpsrc", "rtcpsink")].allSatisfy { source, sink in
            guard let source = pipeline.element(named: source), let sink = pipeline.element(named: sink),
                  let used = GObjectReference(property: "used-socket", of: source.object),
                  let sending = GObjectReference(property: "socket", of: sink.object) else { return false }
            return used.object == sending.object
        }
    }

    public func stop() {
        if let probe { probe.pad.removeProbe(probe.id) }
        probe = nil
        signals.forEach { $0.disconnect() }
        signals = []
        bus = nil
        if let pipeline { _ = pipeline.setState(GST_STATE_NULL) }
        pipeline = nil
    }

    /// rtpdtmfdepay's `dtmf-event` message, posted when a press starts.
    private func keyMessage(_ message: UnsafeMutablePointer<GstMessage>) {
        guard let structure = gst_message_get_structure(message),
              String(cString: gst_structure_get_name(structure)) == "dtmf-event" else { return }
        var number: gint = -1
        var start: gboolean = 1
        // rtpdtmfdepay posts at a press's start only; a "start" field, where present, says so too.
        _ = gst_structure_get_boolean(structure, "start", &start)
        guard start != 0, gst_structure_get_int(structure, "number", &number) != 0,
              let key = PhoneKey.key(event: Int(number)) else { return }
        Log.sip.info("phone leg media: key \(key) (telephone-event)")
        onKey?(key)
    }

    /// The largest absolute S16 sample of the probe's buffer.
    private static func peak(of info: UnsafeMutablePointer<GstPadProbeInfo>) -> Int {
        guard let raw = info.pointee.data else { return 0 }
        let buffer = Buffer(retaining: raw.assumingMemoryBound(to: GstBuffer.self))
        return buffer.withBytes { bytes in
            var peak = 0
            for offset in stride(from: 0, to: bytes.count - 1, by: 2) {
                peak = max(peak, abs(Int(bytes.loadUnaligned(fromByteOffset: offset, as: Int16.self))))
            }
            return peak
        } ?? 0
    }
}
