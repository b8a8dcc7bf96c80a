import C1nkMedia
import C1nkGLib
import C1nkPipeline
import CGStreamer
import FoundationEssentials
import Glibc
import Synchronization

/// The visitor's picture of one call: a JPEG of the first good frame of the
/// door's video, decoded in a small pipeline of its own
/// (`appsrc ! depay ! decoder ! jpegenc snapshot=true ! filesink`), never on
/// the display's path. A buffer probe where the door's RTP enters the call
/// hands each packet's reference to its `appsrc` (which drops, never
/// blocks) until the picture is taken. It is written to a hidden file
/// beside the target and renamed when whole, so a crash leaves no half JPEG.
/// Made and ended on the main context.
public final class VisitorSnapshot: CallMediaCopy {
    public let path: String
    /// The picture is on disk at `path`.
    public var onTaken: ((String) -> Void)?
    /// It could not be taken or written; the call goes on.
    public var onFailed: ((String) -> Void)?

    private let pipeline: OwnedPipeline
    private let source: Element
    private let temporaryPath: String
    private var input: (pad: Pad, probe: gulong)?
    private var finished = false
    private let startedAt = MainContext.monotonicSeconds()
    private let forwarding = Forwarding()

    /// What the streaming thread's probe reads: whether the caps were set, whether to stop.
    private final class Forwarding: Sendable {
        struct State { var capsSet = false, done = false }
        let state = Mutex(State())
    }

    /// Fails when the folder cannot be written (said for the user) or the
    /// decoding elements are missing.
    public init(path: String, videoInput: Pad, depayloader: String, decoder: String) throws {
        self.path = path
        let folder = path.deletingLastPathComponent
        let directory = folder.isEmpty ? "." : folder
        if access(directory, W_OK) != 0 {
            throw MediaError.pipeline("cannot write the snapshot to \(directory) (\(String(cString: strerror(errno)))): check the folder of --snapshot or --record")
        }
        temporaryPath = "\(directory)/.\(path.lastPathComponent).part"
        // Corrupted frames (a decoder concealing a loss) are not the visitor's picture.
        let description = """
            appsrc name=rtp format=time leaky-type=downstream max-bytes=4000000 ! \(depayloader) ! \(decoder)
            ! identity drop-buffer-flags=corrupted ! videoconvert ! jpegenc quality=85 snapshot=true
            ! filesink name=file sync=false async=false
            """
        pipeline = try OwnedPipeline(launching: description, name: "c1nk-snapshot")
        guard let source = pipeline.pipeline.element(named: "rtp"), let file = pipeline.pipeline.element(named: "file") else {
            pipeline.release()
            throw MediaError.pipeline("the snapshot pipeline has no appsrc or filesink")
        }
        // A property, never the description's text: the name may hold anything.
        file[string: "location"] = temporaryPath
        self.source = source
        pipeline.watchBus { [weak self] message in self?.busMessage(message) }
        guard pipeline.start() else {
            let reason = pipeline.takeError() ?? "it would not start"
            pipeline.release()
            throw MediaError.pipeline("the snapshot pipeline failed: \(reason)")
        }
        let forwarding = self.forwarding
        let sourcePointer = PointerCast.cast(source.pointer, to: GstAppSrc.self)
        let probe = videoInput.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { info in
            Self.forward(info, from: videoInput, to: sourcePointer, state: forwarding)
            return GST_PAD_PROBE_OK
        }
        input = (videoInput, probe)
    }

    deinit { stop() }

    /// Ends it, taken or not: the probe is removed, the pipeline released
    /// and a partial file deleted.
    public func stop() {
        detach()
        if !finished { unlink(temporaryPath) }
        finished = true
    }

    /// No packet more: the probe removed, the pipeline released.
    private func detach() {
        forwarding.state.withLock { $0.done = true }
        if let (pad, probe) = input {
            pad.removeProbe(probe)
            input = nil
        }
        pipeline.release()
    }

    /// Streaming thread: the caps once, then one reference of each packet.
    private static func forward(_ info: UnsafeMutablePointer<GstPadProbeInfo>, from pad: Pad,
                                to source: UnsafeMutablePointer<GstAppSrc>, state: Forwarding) {
        guard let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return }
        let needsCaps: Bool? = state.state.withLock { forwarding in
            if forwarding.done { return nil }
            defer { forwarding.capsSet = true }
            return !forwarding.capsSet
        }
        guard let needsCaps else { return }
        if needsCaps {
            if let caps = pad.currentCaps { gst_app_src_set_caps(source, caps.pointer) }
            let at = MainContext.monotonicSeconds()
            MainContext.post { Log.viewers.debug("snapshot: the door's first video packet at \(Int(at * 1000) % 100_000) ms") }
        }
        _ = gst_app_src_push_buffer(source, gst_buffer_ref(buffer))
    }

    private func busMessage(_ message: UnsafeMutablePointer<GstMessage>) {
        guard !finished else { return }
        switch message.pointee.type {
        case GST_MESSAGE_EOS:
            finish()
        case GST_MESSAGE_ERROR:
            let reason = PipelineMessage.describeError(message)
            stop()
            onFailed?("no snapshot of the visitor: \(reason)")
        default:
            break
        }
    }

    /// The JPEG is whole: it takes its name.
    private func finish() {
        detach()
        finished = true
        Log.viewers.debug("snapshot \(path): written at \(Int(MainContext.monotonicSeconds() * 1000) % 100_000) ms, \(Int((MainContext.monotonicSeconds() - startedAt) * 1000)) ms after its pipeline started")
        if rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            onFailed?("cannot write the snapshot \(path): \(reason)")
            return
        }
        onTaken?(path)
    }
}
