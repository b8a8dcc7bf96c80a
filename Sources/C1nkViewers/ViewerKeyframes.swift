import C1nkGLib
import C1nkProbes
import CGStreamer
import Synchronization

/// A browser's keyframe requests (its PLI or FIR, which webrtcbin turns into
/// an upstream force-key-unit event toward the viewer's payloader) sent on
/// to the door, and the viewer's video held back until the door's keyframe
/// comes: the browser gets nothing rather than a frame it cannot decode.
/// One per viewer (a SIP video phone is one too); the rate toward the door is the call's (`KeyframePacer`).
public final class ViewerKeyframes: Sendable {
    /// True until a keyframe passes: at the viewer's start and after each request.
    private let waiting = Atomic<Bool>(true)
    /// A request is on its way to the main context: more wait for it, not beside it.
    private let posted = Atomic<Bool>(false)
    /// The browser's requests seen (every one, before pacing).
    let requests = FrameCounter()
    /// The door's frames not sent to this browser while it waited for a keyframe.
    let held = FrameCounter()
    /// When the last keyframe went to the browser (monotonic µs).
    private let lastKeyframe = Atomic<Int>(0)
    /// A request this soon after a keyframe went was most likely made before
    /// it arrived (a browser asks again every 200 ms while it waits for its
    /// first, and its packets may come late, reordered or resent): it is
    /// sent on, but holds nothing back. Holding then would cost a browser
    /// that decodes that keyframe the frames until the next, up to the
    /// call's pace (half a second).
    static let staleRequestWindow = 0.3

    public init() {}

    /// A probe on the depayloader's source pad: its buffers are whole frames
    /// (a delta unit is not a keyframe), and the payloader's upstream events
    /// pass it on their way to the appsrc, which would drop them. Streaming
    /// threads: nothing blocks; `forward` runs on the main context.
    public func attach(to pad: Pad, forward: @escaping @Sendable () -> Void) {
        pad.addProbe(GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue)) { [self] info in
            if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 {
                guard let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
                return pass(isKeyframe: buffer.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue == 0, now: g_get_monotonic_time())
                    ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP
            }
            guard let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
                  gst_video_event_is_force_key_unit(event) != 0 else { return GST_PAD_PROBE_OK }
            if asked(now: g_get_monotonic_time()) { MainContext.post { [self] in posted.store(false, ordering: .releasing); forward() } }
            return GST_PAD_PROBE_DROP
        }
    }

    /// The browser asked for a keyframe at `now` (monotonic µs): its video
    /// waits for one from now on, unless one went within
    /// `staleRequestWindow`. True when a request must be posted (none is on its way).
    func asked(now: Int) -> Bool {
        requests.value.add(1, ordering: .relaxed)
        if now - lastKeyframe.load(ordering: .acquiring) > Int(Self.staleRequestWindow * 1_000_000) {
            waiting.store(true, ordering: .releasing)
        }
        return !posted.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Whether the door's frame goes to the browser, at `now` (monotonic
    /// µs): a keyframe always (and it ends the wait), a delta frame only
    /// when no keyframe is awaited.
    func pass(isKeyframe: Bool, now: Int) -> Bool {
        if isKeyframe {
            lastKeyframe.store(now, ordering: .releasing)
            waiting.store(false, ordering: .releasing)
            return true
        }
        guard waiting.load(ordering: .acquiring) else { return true }
        held.value.add(1, ordering: .relaxed)
        return false
    }
}

/// The call's keyframe requests on behalf of its viewers, at most one per
/// `interval` whatever ten viewers ask: a request within the interval of the
/// last one sent is sent once at its end, with every other that came
/// meanwhile. So every viewer that asked gets a keyframe no more than one
/// interval (and the door's round trip) later, and the door is never flooded.
/// Main context.
final class KeyframePacer {
    let interval: Double
    private let send: () -> Void
    private let now: () -> Double
    private var lastSent = -Double.infinity
    private var later: GLibTimer?
    /// Requests sent to the door.
    private(set) var sent = 0

    init(interval: Double = 0.5, now: @escaping () -> Double = MainContext.monotonicSeconds, send: @escaping () -> Void) {
        self.interval = interval
        self.now = now
        self.send = send
    }

    func request() {
        guard later == nil else { return }
        let wait = lastSent + interval - now()
        guard wait > 0 else { return fire() }
        later = GLibTimer(after: wait) { [weak self] in
            self?.later = nil
            self?.fire()
        }
    }

    private func fire() {
        lastSent = now()
        sent += 1
        send()
    }

    func cancel() { later = nil }
}
