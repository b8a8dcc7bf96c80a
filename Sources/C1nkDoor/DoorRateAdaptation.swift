import C1nkGLib
import C1nkMedia
import C1nkPipeline
import CGStreamer
import Synchronization

/// The simulated door's encoder following the answerer's transport-wide
/// congestion feedback (`FeedbackRate`): rtpsession parses each feedback
/// report on its RTCP thread and notifies `twcc-stats`; the figures are read
/// there and posted to the main context, which retargets the encoder.
final class DoorRateAdaptation {
    /// The RTP header extension's id in the door's offer.
    static let extensionId = 3
    static let extmapField = ",extmap-\(extensionId)=(string)\"http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\""

    private(set) var rate: FeedbackRate
    private let encoder: Element
    private let codec: DoorMediaSession.VideoCodec
    private var session: Element?
    private var notification: SignalConnection?
    private var lastFeedback: Double?
    private var watchdog: GLibTimer?
    private let log = Log.door

    /// Keyframes asked for closer together than this are not made: each is
    /// many frames' worth of a narrow link, and a burst of requests after a
    /// loss would fill the router's queue with keyframes (libwebrtc's
    /// sender holds back the same way).
    static let minimumKeyframeInterval = 500_000

    /// `camera` holds the encoder; the encoder starts at `rate.kbps`.
    init?(camera: Bin, codec: DoorMediaSession.VideoCodec, rate: FeedbackRate) {
        guard let encoder = camera.elements.first(where: { $0.factoryName == codec.encoderFactory }) else { return nil }
        self.encoder = encoder
        self.codec = codec
        self.rate = rate
        var spacing = MinimumSpacing(microseconds: Self.minimumKeyframeInterval)
        // Streaming thread: a time compared, the event kept or dropped.
        encoder.staticPad("src")?.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
            guard let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
                  gst_video_event_is_force_key_unit(event) != 0 else { return GST_PAD_PROBE_OK }
            return spacing.admits(at: g_get_monotonic_time()) ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP
        }
        watchQueueDelay(camera)
    }

    /// The queue the door's packets met, from each feedback's per-packet
    /// report that rtpsession sends upstream (RTCP thread).
    private let queueDelay = LatestQueueDelay()

    private final class LatestQueueDelay: Sendable {
        let milliseconds = Mutex<Double>(0)
    }

    private func watchQueueDelay(_ camera: Bin) {
        var minimumOffset = Int.max
        camera.staticPad("src")?.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { [queueDelay] info in
            guard let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
                  event.pointee.type == GST_EVENT_CUSTOM_UPSTREAM else { return GST_PAD_PROBE_OK }
            var delay = 0.0
            if c1nk_twcc_queue_delay(event, &minimumOffset, &delay) != 0 { queueDelay.milliseconds.withLock { $0 = delay } }
            return GST_PAD_PROBE_OK
        }
    }

    /// Starts listening once the session is connected (its RTP session exists).
    func attach(to webrtc: Bin) {
        // The rtpsession element (not rtpbin's internal RTPSession object)
        // holds `twcc-stats` and notifies it.
        // One session: the door bundles its media.
        guard session == nil, let element = webrtc.elements.first(where: { $0.factoryName == "rtpsession" }) else {
            return log.warning("door: no rtpsession in webrtcbin; the encoder keeps \(Int(rate.kbps)) kbit/s")
        }
        session = element
        log.debug("door: following the congestion feedback from \(Int(rate.kbps)) kbit/s")
        // Borrowed by the handler: `session` holds the element until `detach` disconnects it.
        let object = element.object
        notification = element.connect("notify::twcc-stats") { [weak self] (_: gpointer?) in
            // RTCP thread: read the figures, hand them to the main context.
            var sent = 0.0, received = 0.0, loss = 0.0, trend = 0.0
            guard c1nk_twcc_stats(object, &sent, &received, &loss, &trend) != 0 else { return }
            MainContext.post { self?.report(sent: sent, received: received, loss: loss, trend: trend) }
        }
    }

    private func checkFeedback() {
        guard session != nil, let lastFeedback,
              let kbps = rate.feedbackMissing(since: lastFeedback, at: MainContext.monotonicSeconds()) else { return }
        log.debug("door: no feedback for \(Int((MainContext.monotonicSeconds() - lastFeedback) * 1000)) ms: encoder \(kbps) kbit/s")
        retarget(kbps)
    }

    private func retarget(_ kbps: Int) {
        let target = codec.rateProperty(kbps: kbps)
        encoder.set(target.name, fromString: target.value)
    }

    private func report(sent: Double, received: Double, loss: Double, trend: Double) {
        lastFeedback = MainContext.monotonicSeconds()
        if watchdog == nil { watchdog = GLibTimer(after: 0.25, repeats: true) { [weak self] in self?.checkFeedback() } }
        let queued = queueDelay.milliseconds.withLock { $0 }
        guard session != nil,
              let kbps = rate.feedback(sentBps: sent, receivedBps: received, lossPercent: loss, delayTrendMs: trend,
                                       queueDelayMs: queued, at: MainContext.monotonicSeconds()) else { return }
        log.debug("door: feedback sent \(Int(sent / 1000)) received \(Int(received / 1000)) kbit/s, loss \(loss) %, delay trend \(trend) ms, queue \(Int(queued)) ms: encoder \(kbps) kbit/s")
        retarget(kbps)
    }

    func detach() {
        watchdog = nil
        notification?.disconnect()
        notification = nil
        session = nil
    }

    deinit { detach() }
}
