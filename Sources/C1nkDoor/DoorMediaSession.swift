import C1nkGLib
import C1nkMedia
import C1nkPipeline
import C1nkProbes
import C1nkProtocol
import CGStreamer

/// The door panel's side of one WebRTC session (the offerer): a test-pattern
/// camera with the door's name drawn on it, a tone as the visitor's voice, and
/// the resident's audio received and measured.
///
/// Here the pipeline is built and torn down; the camera, the voice and the
/// speaker are made in `+Camera` and `+Audio`, the offer in `+Negotiation`,
/// and what the door measures is read in `+Measurements`.
public final class DoorMediaSession {
    public var onOffer: ((String) -> Void)?
    public var onLocalCandidate: ((IceCandidate) -> Void)?
    public var onConnected: (() -> Void)?
    public var onFailure: ((String) -> Void)?
    /// The resident's audio level (dBFS RMS, loudest channel), every 50 ms.
    public var onHeardLevel: ((Double) -> Void)?
    /// With `analyseBands`: (band, dBFS RMS) every 50 ms; band is "door" or "resident".
    public var onHeardBand: ((String, Double) -> Void)?

    private let log = Log.door
    let pipeline: OwnedPipeline
    let webrtc: WebRTCBin
    /// webrtcbin as a bin of this session's own (its pads, its rtpsession, its signals).
    let webrtcElement: Bin
    var mids: [UInt32: String] = [:]
    var stopped = false
    let fec: Bool
    let nack: Bool
    private var connected = false
    var offered = false
    let impairedLink: ImpairedLink?
    private var auxSender: SignalConnection?
    let adaptation: DoorRateAdaptation?
    /// RTCP of a caller's making added to what the door sends (`sendRTCP`).
    let extraRTCP = ExtraRTCP()
    /// When the camera stamped each frame (with `stampTime`), for the benchmark's counts.
    public let stampedFrames: StampedFrames

    public init(options: Options) throws {
        GStreamer.initialize()
        pipeline = OwnedPipeline(named: "c1nk-door")
        let bin = pipeline.pipeline
        let label = options.doorName.replacing("\"", with: "'")
        let stamped = StampedFrames()
        stampedFrames = stamped
        let video = try Self.camera(options, label: label, record: stamped)
        adaptation = options.adaptsToFeedback
            ? DoorRateAdaptation(camera: video, codec: options.codec, rate: FeedbackRate(maximumKbps: options.adaptiveMaximumKbps)) : nil
        if options.adaptsToFeedback && adaptation == nil {
            log.warning("door: no \(options.codec.encoderFactory) in the camera; the encoder will not follow the feedback")
        }
        let audio = try Self.voice(options)
        let heard = try Self.speaker(options)
        guard let heardPad = heard.staticPad("sink") else { throw MediaError.pipeline("the door's speaker has no sink pad") }
        webrtc = try WebRTCBin(name: "webrtc", ice: options.ice, latencyMilliseconds: 50, onNewStream: nil) { pad in
            // Streaming thread: only link (the speaker's bin holds its pad).
            if pad.caps?.string("media") == "audio", !heardPad.isLinked {
                pad.link(heardPad)
            }
        }
        webrtcElement = webrtc.webrtcbin
        // An adapting door is a libwebrtc-like sender: its link also holds
        // back repeated retransmissions (`ImpairedLinkPolicy.spacesRetransmissions`).
        impairedLink = options.network.isNone && !options.adaptsToFeedback ? nil
            : ImpairedLink(options.network, spacesRetransmissions: options.adaptsToFeedback)
        if let impairedLink {
            auxSender = SignalConnection.connectReturning(webrtcElement.object, "request-aux-sender") { _ in
                impairedLink.makeElement()
            }
        }
        fec = options.fec
        nack = options.nack
        bin.add(webrtcElement)
        for element in [video, heard] + (audio.map { [$0] } ?? []) { bin.add(element) }
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
                self.adaptation?.attach(to: self.webrtcElement)
                self.onConnected?()
            } else if state == GST_WEBRTC_PEER_CONNECTION_STATE_FAILED {
                self.onFailure?("the WebRTC connection failed")
            }
        }
        pipeline.watchBus { [weak self] message in self?.handle(message) }
        if !pipeline.start() {
            stop()
            throw MediaError.pipeline("the door pipeline would not start")
        }
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
}
