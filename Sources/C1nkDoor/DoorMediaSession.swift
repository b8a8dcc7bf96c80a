import C1nkGLib
import C1nkMedia
import C1nkPipeline
import C1nkProbes
import C1nkProtocol
import CGStreamer
import Glibc

/// The door panel's side of one WebRTC session (the offerer): a test-pattern
/// camera with the door's name drawn on it, a tone as the visitor's voice, and
/// the resident's audio received and measured.
public final class DoorMediaSession {
    public enum VideoCodec: String, CaseIterable, Sendable {
        case vp8, h264, vp9

        var encoder: String {
            switch self {
            case .vp8: return "vp8enc deadline=1 cpu-used=8 keyframe-max-dist=60 error-resilient=partitions ! rtpvp8pay pt=96"
            case .h264: return "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=60 ! video/x-h264,profile=constrained-baseline ! rtph264pay pt=102 config-interval=-1 aggregate-mode=zero-latency"
            case .vp9: return "vp9enc deadline=1 cpu-used=8 keyframe-max-dist=60 ! rtpvp9pay pt=98"
            }
        }

        /// The encoder's element factory.
        var encoderFactory: String {
            switch self {
            case .vp8: return "vp8enc"
            case .h264: return "x264enc"
            case .vp9: return "vp9enc"
            }
        }

        /// The encoder of a door that follows congestion feedback, set up as
        /// libwebrtc sets its own: constant-rate control with a short buffer,
        /// keyframes capped at three frames' worth, none but those asked for.
        func adaptiveEncoder(kbps: Int) -> String {
            switch self {
            case .vp8, .vp9:
                return "\(encoderFactory) deadline=1 cpu-used=8 keyframe-max-dist=3000 target-bitrate=\(kbps * 1000) end-usage=cbr"
                    + " undershoot=100 overshoot=15 buffer-size=1000 buffer-initial-size=500 buffer-optimal-size=600"
                    + " max-intra-bitrate=300 max-quantizer=63 ! " + (self == .vp8 ? "rtpvp8pay pt=96" : "rtpvp9pay pt=98")
            case .h264:
                return encoder.replacingOccurrences(of: "key-int-max=60 ", with: "key-int-max=3000 bitrate=\(kbps) vbv-buf-capacity=300 ")
            }
        }

        /// The encoder aiming at `kbps` (0: its default rate).
        func encoder(kbps: Int) -> String {
            guard kbps > 0 else { return encoder }
            switch self {
            case .vp8: return encoder.replacingOccurrences(of: "vp8enc ", with: "vp8enc target-bitrate=\(kbps * 1000) ")
            case .h264: return encoder.replacingOccurrences(of: "x264enc ", with: "x264enc bitrate=\(kbps) vbv-buf-capacity=300 ")
            case .vp9: return encoder.replacingOccurrences(of: "vp9enc ", with: "vp9enc target-bitrate=\(kbps * 1000) ")
            }
        }

        var rtpCaps: String {
            switch self {
            case .vp8: return "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000"
            case .h264: return "application/x-rtp,media=video,encoding-name=H264,payload=102,clock-rate=90000"
            case .vp9: return "application/x-rtp,media=video,encoding-name=VP9,payload=98,clock-rate=90000"
            }
        }
    }

    /// The voice codec a door offers (`--audio-codec`). Opus is offered with
    /// `useinbandfec=1;usedtx=1`, as browsers do.
    public enum AudioCodec: String, CaseIterable, Sendable {
        case opus, pcmu, pcma

        var encoder: String {
            switch self {
            case .opus: return "opusenc inband-fec=true dtx=true ! rtpopuspay pt=111"
            case .pcmu: return "audioresample ! audio/x-raw,rate=8000,channels=1 ! mulawenc ! rtppcmupay pt=0"
            case .pcma: return "audioresample ! audio/x-raw,rate=8000,channels=1 ! alawenc ! rtppcmapay pt=8"
            }
        }

        var rtpCaps: String {
            switch self {
            case .opus: return "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,useinbandfec=(string)1,usedtx=(string)1"
            case .pcmu: return "application/x-rtp,media=audio,encoding-name=PCMU,payload=0,clock-rate=8000"
            case .pcma: return "application/x-rtp,media=audio,encoding-name=PCMA,payload=8,clock-rate=8000"
            }
        }
    }

    public struct Options: Sendable {
        public var doorName = "Hlavný vchod"
        public var codec = VideoCodec.vp8
        public var width = 640
        public var height = 480
        public var framerate = 30
        public var ice = IceConfiguration()
        /// The visitor's voice: any audio source description; nil: the door
        /// offers no audio at all.
        public var audioSource: String? = "audiotestsrc is-live=true wave=sine freq=440 volume=0.4"
        public var audioCodec = AudioCodec.opus
        /// Also measure what comes back in two bands (`onHeardBand`): below
        /// 1.2 kHz (the door's own test voice, for echo tests) and 2.8–3.2 kHz
        /// (the resident's test voice, `EchoLoop`).
        public var analyseBands = false
        /// Draw the capture time into each frame (`FrameStamp`), for glass-to-glass measurements.
        public var stampTime = false
        /// Delay each video frame by a random 0…N ms before it leaves, as a
        /// jittery Wi-Fi link does (for latency-knob measurements).
        public var jitterMilliseconds = 0
        /// The encoding name the door announces for its video instead of the
        /// real one, as a door with a codec this machine cannot play does
        /// (e.g. "AV1"). The packets stay those of `codec`.
        public var announcedVideoCodec: String?
        /// The network between door and answerer (loss, jitter, outage …).
        public var network = NetworkImpairment()
        /// Offer RED/ULPFEC for the video besides NACK/RTX.
        public var fec = false
        /// Offer NACK with RTX for the video (as browsers do); false: a door
        /// that can only resend keyframes.
        public var nack = true
        /// Frames from one scheduled keyframe to the next (60: every 2 s at
        /// 30 fps); keyframes asked for (PLI) come besides.
        public var keyframeDistance = 60
        /// Offer transport-wide congestion control and follow the answerer's
        /// feedback with the encoder's rate (`FeedbackRate`), as a browser
        /// does; the encoder starts at 300 kbit/s.
        public var adaptsToFeedback = false
        /// Replay a clip encoded once at start instead of encoding every
        /// frame (`PreEncodedCamera`): a door that costs almost nothing, for
        /// measuring the answerer alone. No `stampTime`, no adapting rate. The
        /// default tone as the voice is pre-encoded too (`PreEncodedVoice`).
        public var preEncoded = false
        public init() {}

        /// The most the encoder is allowed when it adapts: ~0.2 bit per pixel.
        var adaptiveMaximumKbps: Double { min(4000, max(500, Double(width * height * framerate) * 0.2 / 1000)) }
    }

    public var onOffer: ((String) -> Void)?
    public var onLocalCandidate: ((IceCandidate) -> Void)?
    public var onConnected: (() -> Void)?
    public var onFailure: ((String) -> Void)?
    /// The resident's audio level (dBFS RMS, loudest channel), every 50 ms.
    public var onHeardLevel: ((Double) -> Void)?
    /// With `analyseBands`: (band, dBFS RMS) every 50 ms; band is "door" or "resident".
    public var onHeardBand: ((String, Double) -> Void)?

    private let log = Log.door
    private let pipeline: OwnedPipeline
    private let webrtc: WebRTCBin
    private var mids: [UInt32: String] = [:]
    private var stopped = false
    private var fec = false
    private var nack = true
    private var connected = false
    private var offered = false
    private let link: ImpairedLink?
    private var auxSender: SignalConnection?
    private let adaptation: DoorRateAdaptation?

    /// The encoder's targets as the feedback moved them: (monotonic seconds, kbit/s).
    public var encoderRates: [(time: Double, kbps: Int)] { adaptation?.rate.history ?? [] }

    /// What the impaired network did so far (nil without impairment).
    public var networkCounts: (videoSent: Int, videoDropped: Int, retransmissions: Int, outageDropped: Int)? {
        link.map { let c = $0.counted; return (c.videoSent, c.videoDropped, c.retransmissions, c.outageDropped) }
    }

    public init(options: Options) throws {
        GStreamer.initialize()
        pipeline = OwnedPipeline(named: "c1nk-door")
        let bin = pipeline.bin
        let label = options.doorName.replacingOccurrences(of: "\"", with: "'")
        let video = try Self.camera(options, label: label)
        adaptation = options.adaptsToFeedback
            ? DoorRateAdaptation(camera: video, codec: options.codec, rate: FeedbackRate(maximumKbps: options.adaptiveMaximumKbps)) : nil
        if options.adaptsToFeedback && adaptation == nil {
            log.warning("door: no \(options.codec.encoderFactory) in the camera; the encoder will not follow the feedback")
        }
        let audio = try options.audioSource.map { source in
            try PreEncodedVoice.make(options) ?? PipelineBin.make(
                "\(source) ! audioconvert ! audioresample ! \(options.audioCodec.encoder)"
                + " ! capsfilter name=\(PipelineBin.outputName) caps=\"\(options.audioCodec.rtpCaps)\"",
                name: "door-voice", output: true)
        }
        if options.adaptsToFeedback, let audio, let output = gst_element_get_static_pad(audio, "src") {
            // The voice's backlog from before DTLS was up, as for the camera (20 ms packets).
            Self.dropCatchUpFrames(on: output, framesPerSecond: 50)
            gst_object_unref(UnsafeMutableRawPointer(output))
        }
        let bands = options.analyseBands
            ? " ! tee name=bands bands. ! queue ! audiocheblimit mode=low-pass cutoff=1200 poles=8 ! level name=heard-door interval=50000000 ! fakesink sync=false"
              + " bands. ! queue ! audiochebband mode=band-pass lower-frequency=2800 upper-frequency=3200 poles=8 ! level name=heard-resident interval=50000000 ! fakesink sync=false"
              + " bands. ! queue"
            : ""
        let heard = try PipelineBin.make(
            "decodebin ! audioconvert ! audio/x-raw,format=F32LE\(bands) ! level name=heard-level interval=50000000 ! fakesink sync=false",
            name: "door-speaker", input: true)
        let heardPad = gst_element_get_static_pad(heard, "sink")!
        webrtc = try WebRTCBin(name: "webrtc", ice: options.ice, latencyMilliseconds: 50) { pad in
            // Streaming thread: only link.
            if Gst.capsField(pad, "media") == "audio", gst_pad_is_linked(heardPad) == 0 {
                gst_pad_link(pad, heardPad)
            }
        }
        gst_object_unref(UnsafeMutableRawPointer(heardPad))
        // An adapting door is a libwebrtc-like sender: its link also holds
        // back repeated retransmissions (`ImpairedLink.spacesRetransmissions`).
        link = options.network.isNone && !options.adaptsToFeedback ? nil
            : ImpairedLink(options.network, spacesRetransmissions: options.adaptsToFeedback)
        if let link {
            auxSender = SignalConnection.connectReturning(UnsafeMutableRawPointer(webrtc.element), "request-aux-sender") { _ in
                link.makeElement().map { UnsafeMutableRawPointer($0) }
            }
        }
        fec = options.fec
        nack = options.nack
        gst_bin_add(bin, webrtc.element)
        for element in [video, heard] + (audio.map { [$0] } ?? []) {
            gst_bin_add(bin, element)
            gst_object_unref(UnsafeMutableRawPointer(element)) // the pipeline holds it now
        }
        try link(video, toLine: 0)
        if let audio { try link(audio, toLine: 1) }
        setDirections()

        webrtc.onNegotiationNeeded = { [weak self] in self?.makeOffer() }
        webrtc.onLocalCandidate = { [weak self] mline, candidate in
            guard let self, !self.stopped else { return }
            self.onLocalCandidate?(IceCandidate(candidate: candidate, sdpMid: self.mids[mline], sdpMLineIndex: Int(mline)))
        }
        webrtc.onConnectionState = { [weak self] state in
            guard let self, !self.stopped else { return }
            if state == GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED, !self.connected {
                self.connected = true
                self.adaptation?.attach(to: self.webrtc.element)
                self.onConnected?()
            } else if state == GST_WEBRTC_PEER_CONNECTION_STATE_FAILED {
                self.onFailure?("the WebRTC connection failed")
            }
        }
        pipeline.watchBus { [weak self] message in
            guard let self else { return }
            if message.pointee.type == GST_MESSAGE_ELEMENT, let level = AudioLevel.rms(from: message) {
                switch message.pointee.src.map({ Gst.name($0) }) {
                case "heard-door": self.onHeardBand?("door", level)
                case "heard-resident": self.onHeardBand?("resident", level)
                default: self.onHeardLevel?(level)
                }
            } else if message.pointee.type == GST_MESSAGE_ERROR {
                self.onFailure?(PipelineMessage.describeError(message))
            }
        }
        if !pipeline.start() {
            stop()
            throw MediaError.pipeline("the door pipeline would not start")
        }
    }

    /// The door's camera: test pattern, the door's name, optionally the time
    /// stamp, the encoder and its RTP payloader. Also used alone by the benchmark's baseline.
    public static func camera(_ options: Options, label: String? = nil, name: String = "door-camera") throws -> UnsafeMutablePointer<GstElement> {
        let text = (label ?? options.doorName).replacingOccurrences(of: "\"", with: "'")
        let bin = options.preEncoded
            ? try PreEncodedCamera.make(options, label: text, name: name, encoder: encoder(options), rtpOutput: rtpOutput(options))
            : try PipelineBin.make(
            "videotestsrc is-live=true \(scene(options)) ! video/x-raw,format=I420,width=\(options.width),height=\(options.height),framerate=\(options.framerate)/1"
            + " ! textoverlay text=\"\(text)\" valignment=top halignment=left font-desc=\"Sans 24\" ! videoconvert ! queue max-size-buffers=2 leaky=downstream"
            // After the queue: a frame a busy door drops before encoding gets no sequence number.
            + " ! identity name=stamp silent=true"
            + " ! \(encoder(options)) ! "
            + rtpOutput(options),
            name: name, output: true)
        if options.jitterMilliseconds > 0, let output = gst_element_get_static_pad(bin, "src") {
            Self.delayFrames(on: output, upTo: options.jitterMilliseconds)
            gst_object_unref(UnsafeMutableRawPointer(output))
        }
        if options.adaptsToFeedback, let stamp = Gst.find("stamp", in: bin) {
            // Added before the stamp's own probe, so it runs first.
            let pad = gst_element_get_static_pad(stamp, "sink")!
            Self.dropCatchUpFrames(on: pad, framesPerSecond: options.framerate)
            gst_object_unref(UnsafeMutableRawPointer(pad))
            gst_object_unref(UnsafeMutableRawPointer(stamp))
        }
        if options.stampTime, let stamp = Gst.find("stamp", in: bin) {
            let pad = gst_element_get_static_pad(stamp, "src")!
            FrameStamp.stampFrames(on: pad, width: options.width, height: options.height)
            gst_object_unref(UnsafeMutableRawPointer(pad))
            gst_object_unref(UnsafeMutableRawPointer(stamp))
        }
        return bin
    }

    /// The camera's encoder and payloader.
    static func encoder(_ options: Options) -> String {
        if options.adaptsToFeedback { return options.codec.adaptiveEncoder(kbps: Int(FeedbackRate().kbps)) }
        return options.codec.encoder(kbps: videoBudget(options)).replacingOccurrences(of: "=60 ", with: "=\(options.keyframeDistance) ")
    }

    /// What the camera sees. An adapting door shows a moving zone plate,
    /// whose cost follows the encoder's target (275 kbit/s at 300, 2 Mbit/s
    /// at 2000 in VP8, keyframes of 8 KB at 300), as a browser's camera does;
    /// the test pattern's noise alone needs ~700 kbit/s, whatever the target.
    private static func scene(_ options: Options) -> String {
        options.adaptsToFeedback ? "pattern=zone-plate kx2=8 ky2=8 kt=1" : "pattern=smpte"
    }

    /// The video's share of a capped link: 80 % of the cap less the voice
    /// (Opus, ~40 kbit/s with headers), leaving room for retransmissions.
    private static func videoBudget(_ options: Options) -> Int {
        guard options.network.bandwidthKbps > 0 else { return 0 }
        return max(50, (options.network.bandwidthKbps - 40) * 8 / 10)
    }

    /// The caps the camera's RTP leaves with, under another codec's name when
    /// the door announces one.
    static func rtpOutput(_ options: Options) -> String {
        guard let announced = options.announcedVideoCodec else {
            let feedback = options.adaptsToFeedback ? DoorRateAdaptation.extmapField.replacingOccurrences(of: "\"", with: "\\\"") : ""
            return "capsfilter name=\(PipelineBin.outputName) caps=\"\(options.codec.rtpCaps)\(feedback)\""
        }
        return "capsfilter caps=\"\(options.codec.rtpCaps)\" ! capssetter name=\(PipelineBin.outputName) join=true replace=false caps=\"application/x-rtp,encoding-name=\(announced)\""
    }

    /// A live test source held back (webrtcbin blocks the media until DTLS
    /// is up, and a door's session is ready before anyone rings) catches up
    /// afterwards with a burst of frames as fast as it can make them, which
    /// a narrow uplink cannot take. A camera or microphone gives what is
    /// there now: buffers closer together than half their duration are dropped.
    private static func dropCatchUpFrames(on pad: UnsafeMutablePointer<GstPad>, framesPerSecond: Int) {
        let spacing = 500_000 / max(1, framesPerSecond)
        var last = 0
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { _ in
            let now = g_get_monotonic_time()
            guard now - last >= spacing else { return GST_PAD_PROBE_DROP }
            last = now
            return GST_PAD_PROBE_OK
        }
    }

    /// Holds the first packet of each frame back for a random time, on the
    /// sending thread (which also holds the frame's other packets back).
    private static func delayFrames(on pad: UnsafeMutablePointer<GstPad>, upTo milliseconds: Int) {
        var lastTimestamp = GstClockTime.max
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self), buffer.pointee.pts != lastTimestamp {
                lastTimestamp = buffer.pointee.pts
                usleep(useconds_t(Int.random(in: 0...milliseconds) * 1000))
            }
            return GST_PAD_PROBE_OK
        }
    }

    /// Measurement: onsets of tone bursts leaving the element `name` of the
    /// door's voice (as captured), or arriving at what the door hears
    /// (`heard-level`, played as it arrives).
    public func onsetProbe(at name: String) -> AudioOnsetProbe? {
        name == "heard-level"
            ? AudioOnsetProbe.attach(to: name, in: pipeline.element, pad: "sink", timing: .arrival)
            : AudioOnsetProbe.attach(to: name, in: pipeline.element, timing: .capture)
    }

    public func applyAnswer(_ sdp: String) {
        webrtc.setRemoteDescription(GST_WEBRTC_SDP_TYPE_ANSWER, sdp: sdp) { [weak self] error in
            if let error { self?.onFailure?("the answer was refused: \(error)") }
        }
    }

    public func addRemoteCandidate(_ candidate: IceCandidate) {
        guard !stopped else { return }
        webrtc.addRemoteCandidate(mlineIndex: UInt32(max(0, candidate.sdpMLineIndex)), candidate: candidate.candidate)
    }

    public func stop() {
        guard !stopped else { return }
        stopped = true
        pipeline.release(detach: {
            auxSender?.disconnect()
            adaptation?.detach()
            webrtc.disconnect()
        })
    }

    deinit { stop() }

    private func link(_ source: UnsafeMutablePointer<GstElement>, toLine index: Int) throws {
        guard let sinkPad = gst_element_request_pad_simple(webrtc.element, "sink_\(index)") else {
            throw MediaError.negotiation("webrtcbin gave no sink_\(index)")
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(sinkPad)) }
        let sourcePad = gst_element_get_static_pad(source, "src")!
        defer { gst_object_unref(UnsafeMutableRawPointer(sourcePad)) }
        guard gst_pad_link(sourcePad, sinkPad) == GST_PAD_LINK_OK else {
            throw MediaError.negotiation("cannot link \(Gst.name(source)) to webrtcbin")
        }
    }

    /// Video is send-only (a door shows itself, it watches nobody); audio both ways.
    private func setDirections() {
        guard let transceivers = c1nk_emit_get_transceivers(UnsafeMutableRawPointer(webrtc.element)) else { return }
        defer { g_array_unref(transceivers) }
        let items = transceivers.pointee.data.withMemoryRebound(to: UnsafeMutableRawPointer?.self,
                                                               capacity: Int(transceivers.pointee.len)) { pointer in
            (0..<Int(transceivers.pointee.len)).compactMap { pointer[$0] }
        }
        // Transceivers come in the order their pads were requested: video, then audio.
        for (index, transceiver) in items.enumerated() {
            let direction = index == 0 ? "sendonly" : "sendrecv"
            ObjectProperty.set(transceiver, "direction", direction)
            if index == 0 {
                // As real doors do: answer NACK with RTX (and PLI with a
                // keyframe, which rtpsession asks of the encoder upstream).
                ObjectProperty.set(transceiver, "do-nack", nack ? "true" : "false")
                if fec { ObjectProperty.set(transceiver, "fec-type", "ulp-red") }
            }
        }
    }

    /// webrtcbin asks for negotiation once per transceiver; one offer covers them all.
    private func makeOffer() {
        guard !stopped, !offered else { return }
        offered = true
        webrtc.createLocalDescription(GST_WEBRTC_SDP_TYPE_OFFER) { [weak self] result in
            guard let self, !self.stopped else { return }
            switch result {
            case .success(let sdp):
                if let summary = try? OfferSummary(sdp: sdp) {
                    for (index, line) in summary.lines.enumerated() { self.mids[UInt32(index)] = line.mid }
                    if let video = summary.lines.first(where: { $0.kind == "video" }) {
                        let repair = Set(video.encodings.filter { $0.value == "RTX" }.keys)
                        self.link?.setPayloadTypes(video: Set(video.encodings.keys).subtracting(repair), retransmission: repair)
                    }
                }
                self.onOffer?(sdp)
            case .failure(let error):
                self.onFailure?("\(error)")
            }
        }
    }
}
