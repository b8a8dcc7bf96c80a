import C1nkGLib
import CGStreamer

/// One phone's audio in an `rtpbin` pipeline: G.711 to the phone and from
/// it, RTP on the offered port and RTCP on the next. The description is
/// fixed text per codec (`SIPCodec`) and per door encoding; the phone's
/// address and ports, read from its answer, and the door's caps are set as
/// element properties and never written into the text. The phone hears the
/// door (`hearing = .door`: the door's RTP pushed into `doorVoiceSource`,
/// decoded and re-encoded here) or a tone; what it sends goes to `onVoice`
/// at 48 kHz, and its peak is measured. Main context only.
public final class PhoneLegMedia {
    /// The local side, known before the offer is sent.
    public let address: String
    public let port: Int
    /// Whether `peakHeard` and `buffersHeard` are kept (a scan of each buffer and a post to the
    /// main context); set before `start`. The bridge needs neither and turns it off.
    public var measuresHeard = true
    /// The largest sample (0…32767) heard from the phone so far, and how many buffers.
    public private(set) var peakHeard = 0
    public private(set) var buffersHeard = 0
    /// A pipeline error (a port taken, an element missing), with what to do.
    public var onError: ((String) -> Void)?
    /// A key pressed on the phone, sent as RFC 4733 telephone-events (once per press).
    public var onKey: ((Character) -> Void)?

    /// What the phone hears; set before `start`.
    public enum Hearing: Equatable, Sendable {
        /// A 440 Hz tone (a phone rung without a door's call: tests, `c1nk-gst-answer doctor`).
        case tone
        /// The door's voice: its RTP (`caps`, as the call receives it) pushed into `doorVoiceSource`.
        case door(caps: String)
    }
    public var hearing = Hearing.tone
    /// Where the door's RTP goes, once started with `hearing = .door`.
    public private(set) var doorVoiceSource: Element?
    /// The phone's voice, 48 kHz mono S16 (`voiceCaps`), each buffer on the streaming thread; set before `start`.
    public var onVoice: (@Sendable (UnsafeMutablePointer<GstBuffer>) -> Void)?
    /// The door's video RTP caps as the call receives them, for a phone that takes video; set before `start`.
    public var seeing: String?
    /// Where the door's video RTP goes, once started with video.
    public internal(set) var doorVideoSource: Element?
    /// The video's depayloader: its source pad carries whole frames out and the phone's keyframe requests in.
    public internal(set) var doorVideoDepayloader: Element?
    /// The port pair offered for the door's video, when reserved (`video: true`).
    public let videoPort: Int?
    public static let voiceCaps = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"

    private var pipeline: Pipeline?
    private var bus: BusWatch?
    private var signals: [SignalConnection] = []
    private var probe: (pad: Pad, id: gulong)?

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reserves a port pair on `address` (numeric IPv4) for the phone leg's audio, and one for video with `video`.
    public init(address: String, video: Bool = false) throws {
        guard let port = RTPPortPair.find(on: address), let videoPort = video ? RTPPortPair.find(on: address) : 0 else {
            throw Failure(description: "no free UDP port pair for RTP on \(address): free some ports or give another --sip-address")
        }
        self.address = address
        self.port = port
        self.videoPort = video ? videoPort : nil
    }

    deinit { stop() }

    /// The door's RTP decoded, by its encoding name: fixed text, chosen from this table only.
    static func doorDecoder(encoding: String) -> String? {
        switch encoding.uppercased() {
        case "OPUS": "rtpopusdepay ! opusdec plc=true"
        case "PCMU": "rtppcmudepay ! mulawdec"
        case "PCMA": "rtppcmadepay ! alawdec"
        default: nil
        }
    }

    /// The fixed description for `codec` and what the phone hears; nothing in it comes from the phone or the door.
    static func description(_ codec: SIPCodec, hearing doorDecoder: String? = nil, video: SIPVideoCodec? = nil) -> String {
        let (encoder, payloader, depayloader, decoder) = codec.elements
        // 20 ms a packet, as every phone expects; Opus's frames are 20 ms already.
        let ptime = codec == .opus ? "" : " min-ptime=20000000 max-ptime=20000000"
        // The door's RTP comes as the call got it; dropped, not queued, if this leg falls behind.
        let heard = doorDecoder.map {
            "appsrc name=door-voice is-live=true format=time do-timestamp=false block=false max-bytes=64000 leaky-type=downstream ! \($0)"
        } ?? "audiotestsrc name=tone is-live=true wave=sine freq=440 volume=0.5"
        return """
            rtpbin name=rtpbin latency=80
            \(heard) ! audioconvert ! audioresample \
            ! audio/x-raw,rate=\(codec.sampleRate),channels=1 ! \(encoder) ! \(payloader) name=pay\(ptime) \
            ! rtpbin.send_rtp_sink_0
            rtpbin.send_rtp_src_0 ! udpsink name=rtpsink sync=false async=false
            rtpbin.send_rtcp_src_0 ! udpsink name=rtcpsink sync=false async=false
            udpsrc name=rtpsrc ! rtpbin.recv_rtp_sink_0
            udpsrc name=rtcpsrc ! rtpbin.recv_rtcp_sink_0
            \(depayloader) name=depay ! \(decoder) ! audioconvert ! audioresample ! \(voiceCaps) \
            ! fakesink name=heard sync=false async=false
            rtpdtmfdepay name=keys ! fakesink sync=false async=false
            """ + (video.map(videoDescription) ?? "")
    }

    /// Starts sending to and receiving from the phone as `answer` says.
    public func start(_ answer: SDPAnswer) throws {
        stop()
        var doorCaps: Caps?
        var doorDecoder: String?
        if case .door(let caps) = hearing {
            guard let parsed = Caps(caps), let encoding = parsed.string("encoding-name"), let decoder = Self.doorDecoder(encoding: encoding) else {
                throw Failure(description: "the door's audio (\(caps.prefix(120))) cannot be bridged to a phone: OPUS, PCMU and PCMA can")
            }
            doorCaps = parsed
            doorDecoder = decoder
        }
        let video = videoPlan(answer)
        var error: UnsafeMutablePointer<GError>?
        guard let parsed = gst_parse_launch(Self.description(answer.codec, hearing: doorDecoder, video: video?.codec), &error), error == nil else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if error != nil { g_error_free(error) }
            throw Failure(description: "the phone leg's pipeline did not build (\(message)): install \(answer.codec.package) (scripts/install-deps)")
        }
        let pipeline = Pipeline(retaining: parsed)
        if let doorCaps {
            doorVoiceSource = pipeline.element(named: "door-voice")
            doorVoiceSource?[caps: "caps"] = doorCaps
        }
        guard let rtpbin = pipeline.element(named: "rtpbin"), let depay = pipeline.element(named: "depay"),
              let rtpSource = pipeline.element(named: "rtpsrc"), let rtcpSource = pipeline.element(named: "rtcpsrc"),
              let rtpSink = pipeline.element(named: "rtpsink"), let rtcpSink = pipeline.element(named: "rtcpsink"),
              let keys = pipeline.element(named: "keys"), let heard = pipeline.element(named: "heard"),
              let payloader = pipeline.element(named: "pay"),
              let caps = Caps("application/x-rtp,media=audio,clock-rate=\(answer.codec.clockRate)")
        else { throw Failure(description: "the phone leg's pipeline lacks a named element") }
        // Sent with the phone's payload type (its answer says what it takes); received with either.
        payloader[int: "pt"] = answer.payloadType
        // Each payload type's caps come from our own table, by number: the voice and the keys.
        let voiceTypes: Set<Int> = [answer.codec.payloadType, answer.payloadType]
        let eventTypes = Set([SDPOffer.telephoneEventPayloadType] + (answer.telephoneEventPayloadType.map { [$0] } ?? []))
        let voiceCaps = "application/x-rtp,media=audio,clock-rate=\(answer.codec.clockRate),encoding-name=\(answer.codec.rawValue)"
        let eventCaps = "application/x-rtp,media=audio,clock-rate=8000,encoding-name=TELEPHONE-EVENT"
        // Session 0 is the voice; the door's video (session 1) is only sent: a phone's camera is dropped unmapped.
        signals.append(SignalConnection.connectReturning(rtpbin.object, "request-pt-map") { (session: UInt32, type: UInt32) in
            guard session == 0 else { return nil }
            let known = voiceTypes.contains(Int(type)) ? voiceCaps : eventTypes.contains(Int(type)) ? eventCaps : nil
            return known.flatMap { gst_caps_from_string("\($0),payload=\(type)") }.map { PointerCast.raw($0) }
        })
        // Not shared: with SO_REUSEADDR (udpsrc's default) a second socket on the port would take half the packets, silently.
        rtpSource[bool: "reuse"] = false
        rtcpSource[bool: "reuse"] = false
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
            let target = voiceTypes.contains(type) ? depay : eventTypes.contains(type) ? keys : nil
            guard let sink = target?.staticPad("sink"), !sink.isLinked else { return }
            _ = pad.link(sink)
        })
        if let sink = heard.staticPad("sink") {
            let voice = onVoice
            let measures = measuresHeard
            let id = sink.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
                if let voice, let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) { voice(buffer) }
                guard measures else { return GST_PAD_PROBE_OK }
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
        var pairs = [(rtpSource, rtpSink), (rtcpSource, rtcpSink)]
        if let video { pairs += startVideo(video, in: pipeline) }
        for (source, sink) in pairs {
            guard let socket = GObjectReference(property: "used-socket", of: source.object) else { continue }
            sink[bool: "close-socket"] = false
            c1nk_object_set_pointer(sink.object, "socket", socket.object)
        }
        guard pipeline.setState(GST_STATE_PLAYING) else {
            stop()
            throw Failure(description: "the phone leg's pipeline did not start: is UDP port \(port) or \(port + 1) on \(address) taken?")
        }
        Log.sip.info("phone leg media: \(answer.codec.rawValue) from \(address):\(port) to \(answer.address):\(answer.port)"
                     + (video.map { ", the door's \($0.codec.rawValue) video to \($0.answer.address):\($0.answer.port)" } ?? ""))
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
        doorVoiceSource = nil
        doorVideoSource = nil
        doorVideoDepayloader = nil
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
