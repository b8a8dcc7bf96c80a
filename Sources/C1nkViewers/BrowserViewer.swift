import C1nkMedia
import C1nkGLib
import C1nkPipeline
import C1nkProbes
import CGStreamer
import CPlayoutDelay
import FoundationEssentials
import Synchronization

/// One browser watching the call (the web page's `POST /api/whep`): a
/// `webrtcbin` of its own that sends the door's RTP from a `CallTap`,
/// repacketised for the browser's payload types and never decoded or
/// re-encoded (video sendonly, audio sendrecv). The browser's own audio is
/// decoded and, while this viewer is the talker (`setTalking`), pushed into
/// the call's microphone (`WebTalk`); otherwise dropped.
/// A browser that goes away (its connection failed or closed) ends only its
/// viewer; the call goes on. Main context.
public final class BrowserViewer {
    public let id: String
    /// The viewer ended (the reason), once.
    public var onClosed: ((String) -> Void)?
    public private(set) var isConnected = false
    /// Why this browser gets no video though it asked (`WHEPOffer.videoRefusal`).
    public var videoRefusal: String? { offer.videoRefusal }

    private let pipeline: Pipeline
    private let webrtc: WebRTCBin
    private let offer: WHEPOffer
    private let tap: CallTap
    private var sources: [(media: String, element: Element)] = []
    private var candidates: [(line: Int, candidate: String)] = []
    private var answer: String?
    private var gathered = false
    private var completion: ((Result<String, MediaError>) -> Void)?
    private var gatheringTimeout: GLibTimer?
    private var closed = false
    private let log = Log.viewers
    private let talk = TalkRoute()
    /// Buffers of the browser's voice decoded so far (tests, diagnostics).
    public var voiceBuffers: Int { Int(voiceCounter.value.load(ordering: .relaxed)) }
    private let voiceCounter = FrameCounter()
    /// The browser's keyframe requests and the frames it was not sent while it waited for one.
    private let keyframes = ViewerKeyframes()
    public var keyframeRequests: Int { keyframes.requests.value.load(ordering: .relaxed) }
    public var framesHeldForKeyframe: Int { keyframes.held.value.load(ordering: .relaxed) }
    /// How long a viewer whose browser's connection is interrupted waits for it to come back.
    public static let disconnectedWait = 10.0
    private var disconnectedGrace: GLibTimer?
    /// A browser that sends no RTCP for this long is gone, and its viewer
    /// ends. libnice, as webrtcbin 1.22 makes it, neither asks for consent nor
    /// times out, so a browser whose network dropped (a phone out of Wi-Fi, a
    /// peer that stopped answering) would stay `connected`, holding one of the
    /// ten viewers' places, for as long as the call. A browser reports every
    /// second or more often (Chromium each 200 ms); an RTP receiver of RFC
    /// 3550's pace (GStreamer's, every 5 s, randomised up to 9) may lose one.
    public static let silenceLimit = 15.0
    /// This viewer's limit (tests shorten it); set before `start`.
    var silenceLimit = BrowserViewer.silenceLimit
    private var silenceCheck: GLibTimer?
    /// The browser's RTCP: checked before the RTP session takes it, and when
    /// it was last heard (from the viewer's start: a browser that never connects ends too).
    let feedback = BrowserFeedbackGuard(now: MainContext.monotonicSeconds())
    /// Tests: an element webrtcbin puts between this viewer's RTX sender and
    /// its transport (`request-aux-sender`, a floating reference), where RTP
    /// is still plain: a lossy link toward the browser. Set before `start`.
    var auxSender: (() -> gpointer?)?
    private var auxSenderConnection: SignalConnection?
    /// Tests: the viewer's webrtcbin (its RTP session, transports and ICE agent inside).
    var webrtcElement: Bin { webrtc.webrtcbin }

    /// Builds the viewer for `offerSDP`; `WHEPOffer.Refusal` for an offer it cannot serve.
    public init(id: String, offer offerSDP: String, tap: CallTap, ice: IceConfiguration) throws {
        self.id = id
        self.tap = tap
        offer = try WHEPOffer(sdp: offerSDP, videoCodec: tap.videoEncoding,
                              videoProfile: tap.videoEncoding?.uppercased() == "H264" ? tap.videoProfile : nil)
        pipeline = Pipeline(pipelineNamed: "viewer-\(id)")
        let incoming = PadTable()
        webrtc = try WebRTCBin(name: "webrtc", ice: ice, latencyMilliseconds: 50, onNewStream: nil, onReceivingPad: { pad in
            // Streaming thread: the browser's audio goes to the sink prepared for it.
            if let sink = incoming.pad(for: "audio"), !sink.isLinked { _ = pad.link(sink) }
        })
        _ = pipeline.add(webrtc.webrtcbin)
        self.offerSDP = offerSDP
        incoming.set("audio", try prepareVoice())
    }

    /// The browser's Opus decoded to the call's raw format, ending in a sink
    /// whose probe hands each buffer to `talk`. Returns where webrtcbin's
    /// audio pad links.
    private func prepareVoice() throws -> Pad? {
        let names = ["rtpopusdepay", "opusdec", "audioconvert", "audioresample", "capsfilter"]
        let elements = names.compactMap { Element.make($0) }
        guard elements.count == names.count else { throw MediaError.missingElement("opusdec", package: "gstreamer1.0-plugins-base") }
        elements[4].set("caps", fromString: WebTalk.rawCaps)
        let sink = AnswerSession.discardingSink("browser-voice")
        for element in elements + [sink] { _ = pipeline.add(element) }
        for (a, b) in zip(elements + [sink], (elements + [sink]).dropFirst()) where !a.link(b) {
            throw MediaError.negotiation("cannot build the browser's voice path")
        }
        let talk = self.talk, counter = voiceCounter
        sink.staticPad("sink")?.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) {
                counter.value.add(1, ordering: .relaxed)
                talk.push(buffer)
            }
            return GST_PAD_PROBE_OK
        }
        return elements[0].staticPad("sink")
    }

    /// Whether this browser's voice reaches the call (one talker at a time: `WebMedia` decides).
    public func setTalking(_ talking: Bool) {
        isTalking = talking && tap.talkInput != nil
        talk.set(isTalking ? tap.talkInput : nil)
    }

    public private(set) var isTalking = false

    /// Viewers' pipelines still being set to NULL off the main context.
    public static var teardownsInProgress: Int { PipelineTeardown.inProgress }

    private let offerSDP: String

    /// Negotiates: the answer SDP with our candidates (no trickle), on the main context.
    public func start(_ completion: @escaping (Result<String, MediaError>) -> Void) {
        self.completion = completion
        webrtc.onLocalCandidate = { [weak self] line, candidate in self?.candidates.append((Int(line), candidate)) }
        webrtc.onGatheringState = { [weak self] state in
            guard state == GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE else { return }
            self?.gathered = true
            self?.finishAnswer()
        }
        webrtc.onConnectionState = { [weak self] state in
            guard let self else { return }
            switch state {
            case GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED:
                self.isConnected = true
                self.disconnectedGrace = nil
                self.tap.requestKeyframe()
            case GST_WEBRTC_PEER_CONNECTION_STATE_DISCONNECTED:
                // Often a Wi-Fi blip of a second or two: the viewer waits (the
                // page offers anew after ~3 s and ends this one itself).
                self.isConnected = false
                guard self.disconnectedGrace == nil else { break }
                self.log.info("viewer \(self.id): the browser's connection is interrupted; waiting \(Self.disconnectedWait) s")
                self.disconnectedGrace = GLibTimer(after: Self.disconnectedWait) { [weak self] in
                    self?.close("the browser's connection did not come back")
                }
            case GST_WEBRTC_PEER_CONNECTION_STATE_FAILED, GST_WEBRTC_PEER_CONNECTION_STATE_CLOSED:
                self.close("the browser's connection \(state == GST_WEBRTC_PEER_CONNECTION_STATE_FAILED ? "failed" : "ended")")
            default: break
            }
        }
        if let auxSender {
            auxSenderConnection = SignalConnection.connectReturning(webrtc.webrtcbin.object, "request-aux-sender") { _ in auxSender() }
        }
        guard pipeline.setState(GST_STATE_PLAYING) else { return fail("the viewer's pipeline does not start") }
        webrtc.setRemoteDescription(GST_WEBRTC_SDP_TYPE_OFFER, sdp: offerSDP) { [weak self] error in
            guard let self, !self.closed else { return }
            if let error { return self.fail("the browser's offer was refused: \(error)") }
            do {
                if let video = self.offer.video { try self.send("video", line: video) }
                if let audio = self.offer.audio { try self.send("audio", line: audio) }
            } catch {
                return self.fail("\(error)")
            }
            self.webrtc.createLocalDescription(GST_WEBRTC_SDP_TYPE_ANSWER) { [weak self] result in
                guard let self, !self.closed else { return }
                switch result {
                case .success(let sdp):
                    self.answer = sdp
                    // Loopback and LAN candidates come in milliseconds; a STUN server may take longer.
                    self.gatheringTimeout = GLibTimer(after: 2) { [weak self] in
                        self?.gathered = true
                        self?.finishAnswer()
                    }
                    self.finishAnswer()
                case .failure(let error): self.fail("\(error)")
                }
            }
        }
    }

    /// appsrc (the door's RTP) ! depayloader ! payloader (the browser's payload type) ! webrtcbin's m-line.
    private func send(_ media: String, line: WHEPOffer.Line) throws {
        guard let caps = tap.caps(for: media), let encoding = Caps(caps)?.string("encoding-name")?.uppercased() else {
            throw MediaError.negotiation("the door's \(media) has not started")
        }
        let names: (String, String)
        switch encoding {
        case "VP8": names = ("rtpvp8depay", "rtpvp8pay")
        case "H264": names = ("rtph264depay", "rtph264pay")
        case "OPUS": names = ("rtpopusdepay", "rtpopuspay")
        default: throw MediaError.negotiation("the door's \(media) is \(encoding), which the page is not sent")
        }
        guard let source = Element.make("appsrc", name: "\(media)-src"), let depay = Element.make(names.0),
              let pay = Element.make(names.1, name: "\(media)-pay") else {
            throw MediaError.missingElement(names.0, package: "gstreamer1.0-plugins-good")
        }
        source.set("caps", fromString: caps)
        for (name, value) in [("is-live", "true"), ("format", "time"), ("do-timestamp", "true"), ("block", "false"),
                              ("max-bytes", "4000000"), ("leaky-type", "downstream")] where source.has(property: name) {
            source.set(name, fromString: value)
        }
        pay.set("pt", fromString: String(line.payloadType))
        let ssrc = UInt32.random(in: 1...UInt32.max)
        if media == "video" { pay.set("ssrc", fromString: String(ssrc)) }
        if encoding == "H264" { pay.set("config-interval", fromString: "-1") }
        if pay.has(property: "mtu") { pay.set("mtu", fromString: "1200") }
        for element in [source, depay, pay] { _ = pipeline.add(element) }
        guard source.link(depay), depay.link(pay), let out = pay.staticPad("src"),
              let sink = webrtc.webrtcbin.requestPad("sink_\(line.index)") else {
            throw MediaError.negotiation("cannot link the door's \(media) to the browser's m-line \(line.index)")
        }
        guard out.link(sink) == GST_PAD_LINK_OK else {
            throw MediaError.negotiation("webrtcbin refused the door's \(media) for the browser's m-line \(line.index)")
        }
        // A stream each (the answer's msid), so the browser does not hold the
        // door's voice back for its picture (libwebrtc synchronises the tracks
        // of one stream): lip sync would cost the talk the video's delay.
        if sink.has(property: "msid") { sink.set("msid", fromString: "c1nk-door-\(media)") }
        if media == "video" {
            if let transceiver = GObjectReference(property: "transceiver", of: sink.object) {
                // The browser's NACKs answered from webrtcbin's send buffer, as RTX.
                transceiver.set("do-nack", fromString: "true")
                transceiver.set("codec-preferences", fromString: Self.videoPreferences(encoding: encoding, line: line, ssrc: ssrc))
            }
            if let out = depay.staticPad("src") {
                let tap = self.tap
                keyframes.attach(to: out) { tap.requestKeyframe() }
            }
            videoPayloader = pay
            if let id = line.playoutDelayExtension, let out = pay.staticPad("src") {
                let viewer = self.id, log = self.log
                playoutDelay = ViewerPlayoutDelay(marking: out, extensionId: id) { delay in
                    log.info(delay == ViewerPlayoutDelay.clean
                        ? "viewer \(viewer): its browser's link is clean again; frames are shown as decoded"
                        : "viewer \(viewer): its browser reports packets lost; it holds frames \(delay.minimum)–\(delay.maximum) ms for the retransmissions")
                }
            }
        }
        for element in [source, depay, pay] { _ = element.syncStateWithParent() }
        sources.append((media, source))
    }

    /// The most the browser may hold the door's video in its jitter buffer
    /// on a clean link (libwebrtc's playout-delay extension: minimum 0, this
    /// maximum). A clean link's jitter is a few milliseconds, so each frame
    /// is shown as soon as it is decoded; on jitter the buffer grows, up to
    /// this, for the late packets. Loss raises both (`ViewerPlayoutDelay`).
    public static let playoutDelayMaximumMilliseconds = 100
    /// The video's payloader: its sequence number says how many packets the browser may ask to be resent.
    private var videoPayloader: Element?
    /// The playout delay the video's packets say, when the browser offered the extension.
    private var playoutDelay: ViewerPlayoutDelay?
    /// What the video's packets ask of the browser now (tests, diagnostics).
    var playoutDelayAsked: ViewerPlayoutDelay.Delay? { playoutDelay?.current }

    /// The video transceiver's codec-preferences, which webrtcbin 1.22
    /// answers from: the browser's payload type; the header extensions it is
    /// to answer, for it answers only those they name (libwebrtc's
    /// playout-delay, each packet then carrying it: a probe in C,
    /// `CPlayoutDelay`); and the payloader's SSRC. The answer is made before
    /// the door's first packet reaches the payloader, so without the SSRC
    /// here webrtcbin signals only the RTX stream's (as the track's), and
    /// Chromium decodes the video's packets, of an SSRC it was not told, for
    /// no track: the page shows nothing.
    static func videoPreferences(encoding: String, line: WHEPOffer.Line, ssrc: UInt32) -> String {
        var caps = "application/x-rtp,media=video,encoding-name=\(encoding),payload=\(line.payloadType),clock-rate=90000,ssrc=(uint)\(ssrc)"
        if let id = line.playoutDelayExtension, (1...14).contains(id) {
            caps += ",extmap-\(id)=(string)\"\(WHEPOffer.playoutDelayURI)\""
        }
        return caps
    }

    private func finishAnswer() {
        guard !closed, gathered, let answer, let completion else { return }
        self.completion = nil
        gatheringTimeout = nil
        for (media, source) in sources { tap.add(id, media: media, source: source) }
        tap.requestKeyframe()
        guardFeedback()
        completion(.success(WHEPOffer.answer(answer, with: candidates)))
    }

    /// The browser's RTCP checked from now on, and its silence timed.
    private func guardFeedback() {
        let id = self.id, log = self.log, feedback = self.feedback, playoutDelay = self.playoutDelay
        var videoSequence: (@Sendable () -> Int)?
        if let pay = videoPayloader { videoSequence = { pay[int: "seqnum"] } }
        if !feedback.attach(to: webrtc.webrtcbin, videoSequence: videoSequence, onFirstDrop: { verdict in
            log.warning("viewer \(id): its browser's RTCP is dropped, \(feedback.reason(verdict)); the viewer's last line says how much")
        }, onLink: { reading, now in
            switch reading {
            case .loss: playoutDelay?.lossSeen(now: now)
            case .outage: playoutDelay?.outageEnded()
            case .steady: break
            }
        }) {
            log.warning("viewer \(id): no RTP session to take the browser's RTCP; its silence is not timed")
            return
        }
        silenceCheck = GLibTimer(after: min(1, silenceLimit / 4), repeats: true) { [weak self] in
            guard let self else { return }
            self.playoutDelay?.relax(now: g_get_monotonic_time())
            if self.feedback.secondsSinceHeard(now: MainContext.monotonicSeconds()) > self.silenceLimit {
                self.close("its browser sent nothing for \(Int(self.silenceLimit)) s")
            }
        }
    }

    private func fail(_ message: String) {
        let completion = self.completion
        self.completion = nil
        close(message)
        completion?(.failure(.negotiation(message)))
    }

    /// Ends the viewer (the browser left, the call ended, or the page said so).
    public func close(_ reason: String) {
        guard !closed else { return }
        closed = true
        gatheringTimeout = nil
        disconnectedGrace = nil
        silenceCheck = nil
        talk.set(nil)
        tap.remove(id)
        webrtc.disconnect()
        auxSenderConnection?.disconnect()
        // Off the main context: ten viewers ended at a hang-up would hold it for each in a row.
        PipelineTeardown.release(pipeline)
        let dropped = feedback.droppedSummary.map { "; its RTCP dropped: \($0)" } ?? ""
        log.info("viewer \(id): \(reason) (the browser asked for \(keyframeRequests) keyframes; \(framesHeldForKeyframe) frames held back for one\(dropped))")
        let closedHandler = onClosed
        onClosed = nil
        closedHandler?(reason)
    }

    deinit { close("released") }
}
