import C1nkMedia
import C1nkGLib
import CGStreamer
import FoundationEssentials

/// The door's media of a call, as RTP, copied to the web page's viewers:
/// a buffer probe on the pads where the call receives the door's video and
/// audio (what the wall display, the recording and the speaker get is
/// untouched; each buffer is only referenced again). Each viewer's `appsrc`
/// takes its copy on the streaming thread, without blocking (the appsrc
/// drops when full). The door's voice reaches them only once the call is
/// accepted (`setAudioOpen`), as it reaches the speaker and the RTSP
/// restream: before, each audio packet goes as `SilentVoice`. Made and
/// ended on the main context.
public final class CallTap: @unchecked Sendable {
    public let callId: String
    private let lock = ThreadLock()
    private var targets: [String: [String: Element]] = [:]
    private var caps: [String: String] = [:]
    private var probes: [(Pad, gulong)] = []
    private var audioOpen: Bool
    private var audioEncoding = "OPUS"
    private weak var session: AnswerSession?
    /// The call's talk input (`WebTalk`), when its microphone has one.
    public let talkInput: Element?
    /// Whether the call takes the door's video, so its caps are to come.
    public let expectsVideo: Bool

    public init(session: AnswerSession) {
        callId = session.callId
        self.session = session
        audioOpen = session.audioEnabled
        talkInput = session.element(named: WebTalk.inputName)
        talkInput?.set("caps", fromString: WebTalk.rawCaps)
        expectsVideo = session.inputs.pad(for: "video") != nil
        for media in ["video", "audio"] {
            guard let pad = session.inputs.pad(for: media) else { continue }
            // A tap made mid-call (a SIP phone answering) knows the caps at once, not at the next packet.
            if let current = pad.currentCaps {
                caps[media] = current.description
                if media == "audio" { audioEncoding = current.string("encoding-name") ?? "OPUS" }
            }
            let id = pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
                self?.forward(media, pad: pad, info: info)
                return GST_PAD_PROBE_OK
            }
            probes.append((pad, id))
        }
    }

    deinit { stop() }

    /// The caps of the door's RTP for `media` once a packet came (`application/x-rtp,…,encoding-name=VP8`).
    public func caps(for media: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return caps[media]
    }

    /// The RTP encoding name of the door's video (`VP8`, `H264`), once it flows.
    public var videoEncoding: String? {
        guard let caps = caps(for: "video"), let parsed = Caps(caps) else { return nil }
        return parsed.string("encoding-name")
    }

    /// The door's H.264 profile (`H264Profile`), once its video flows.
    public var videoProfile: String? {
        guard let caps = caps(for: "video"), let parsed = Caps(caps) else { return nil }
        return H264Profile.of(profile: parsed.string("profile"), profileLevelId: parsed.string("profile-level-id"),
                              spropParameterSets: parsed.string("sprop-parameter-sets"))
    }

    /// Lets the door's voice through to the viewers (at accept); closed, they get silence.
    public func setAudioOpen(_ open: Bool) {
        lock.lock()
        audioOpen = open
        lock.unlock()
    }

    public var isAudioOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return audioOpen
    }

    /// Copies the door's `media` to `source` (an appsrc) from now on, under `viewer`'s name
    /// (a browser's id, or another copy's: a SIP phone's).
    public func add(_ viewer: String, media: String, source: Element) {
        lock.lock()
        targets[viewer, default: [:]][media] = source
        lock.unlock()
    }

    public func remove(_ viewer: String) {
        lock.lock()
        targets[viewer] = nil
        lock.unlock()
    }

    /// Asks the door for a keyframe for a viewer (one that joins mid-call,
    /// or whose browser lost a frame), through the call's keyframe path:
    /// upstream from where the call receives the door's video, which the RTP
    /// session turns into a PLI. Paced for all viewers of the call together
    /// (`KeyframePacer`), so that ten browsers cannot flood the door. Main context.
    public func requestKeyframe() { pacer.request() }

    /// Keyframe requests sent to the door for the viewers (after pacing).
    public var keyframeRequestsSent: Int { pacer.sent }

    private lazy var pacer = KeyframePacer { [weak self] in
        self?.session?.inputs.pad(for: "video").map { _ = $0.pushEvent(KeyframeRequests.upstreamRequest()) }
    }

    public func stop() {
        pacer.cancel()
        for (pad, id) in probes { pad.removeProbe(id) }
        probes.removeAll()
        lock.lock()
        targets.removeAll()
        lock.unlock()
    }

    /// Streaming thread: one reference of the buffer to each viewer's appsrc.
    private func forward(_ media: String, pad: Pad, info: UnsafeMutablePointer<GstPadProbeInfo>) {
        guard let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return }
        lock.lock()
        if caps[media] == nil, let current = pad.currentCaps {
            caps[media] = current.description
            if media == "audio" { audioEncoding = current.string("encoding-name") ?? "OPUS" }
        }
        let sources = targets.values.compactMap { $0[media] }
        let silenced = media == "audio" && !audioOpen
        let encoding = audioEncoding
        lock.unlock()
        func push(_ packet: UnsafeMutablePointer<GstBuffer>, to source: Element) {
            _ = gst_app_src_push_buffer(PointerCast.cast(source.pointer, to: GstAppSrc.self), packet)
        }
        guard silenced else {
            for source in sources { push(gst_buffer_ref(buffer), to: source) }
            return
        }
        // One silent copy for every viewer: a reference each, the last gets the copy's own.
        guard let last = sources.last, let packet = SilentVoice.copy(of: buffer, encoding: encoding) else { return }
        for source in sources.dropLast() { push(gst_buffer_ref(packet), to: source) }
        push(packet, to: last)
    }
}
