import C1nkGLib
import C1nkMedia
import C1nkPipeline
import CGStreamer
import Synchronization

/// Replays a `PreEncodedClip` as a live source, in a loop: a tiny live test
/// source ticks at the clip's frame rate (the pipeline clock paces it, no
/// timer of ours), and each tick pushes the clip's next frame into an
/// `appsrc` with the tick's running time as its timestamp, so the payloader
/// gives it fresh RTP timestamps. Nothing is encoded per frame.
///
/// A keyframe request (the upstream `GstForceKeyUnit` rtpsession sends on a
/// PLI) makes the next frame the clip's next keyframe, or the loop's start.
/// While the way out is blocked (webrtcbin holds media until DTLS is up)
/// frames are not queued: the replay waits and then resumes at a keyframe,
/// as a camera gives what is there now.
final class ClipReplay: Sendable {
    let clip: PreEncodedClip
    /// The clip's next frame; only the ticking thread moves it.
    private let next = Atomic<Int>(0)
    private let wantsKeyframe = Atomic<Bool>(false)
    /// Frames pushed and keyframe requests honoured, since the start.
    let framesSent = Atomic<Int>(0)
    let keyframeRequests = Atomic<Int>(0)

    /// Frames the appsrc may hold before the replay waits (the way out is blocked).
    private static let backlog: UInt64 = 2

    private init(clip: PreEncodedClip) { self.clip = clip }

    /// A bin with a "src" pad: the clip's frames, paid out by `metronome`
    /// (a live source description with the clip's frame rate, its buffers
    /// thrown away), then `payloader` and the caps named `PipelineBin.outputName`.
    static func makeBin(clip: PreEncodedClip, metronome: String, payloader: String, name: String) throws -> (bin: Bin, replay: ClipReplay) {
        let bin = Bin(adopting: try PipelineBin.make(
            "\(metronome) ! fakesink name=metronome sync=false async=false"
            + " appsrc name=clip is-live=true format=time do-timestamp=false ! \(payloader)",
            name: name, output: true))
        let replay = ClipReplay(clip: clip)
        guard let source = bin.element(named: "clip"), let tick = bin.element(named: "metronome"),
              let sourcePad = source.staticPad("src"), let tickPad = tick.staticPad("sink") else {
            throw MediaError.pipeline("the clip replay has no appsrc or metronome")
        }
        source[caps: "caps"] = clip.caps
        replay.watchKeyframeRequests(on: sourcePad)
        replay.push(into: source, onEachTickAt: tickPad)
        return (bin, replay)
    }

    /// Streaming thread (the metronome's): one shallow copy and one push per tick.
    private func push(into source: Element, onEachTickAt pad: Pad) {
        // Borrowed: the bin holds the appsrc as long as the metronome (and its probe) lives.
        let element = source.pointer
        let appsrc = PointerCast.cast(element, to: GstAppSrc.self)
        pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [self] _ in
            if gst_app_src_get_current_level_buffers(appsrc) >= Self.backlog {
                wantsKeyframe.store(true, ordering: .relaxed)
                return GST_PAD_PROBE_DROP
            }
            var index = next.load(ordering: .relaxed)
            if wantsKeyframe.exchange(false, ordering: .relaxed) { index = clip.keyframe(atOrAfter: index) }
            let now = gst_element_get_current_running_time(element)
            guard now != GstClockTime.max,
                  let copy = gst_mini_object_copy(MiniObject.cast(clip.frames[index].pointer)) else {
                return GST_PAD_PROBE_DROP
            }
            let buffer = PointerCast.cast(copy, to: GstBuffer.self)
            buffer.pointee.pts = now
            buffer.pointee.dts = now
            buffer.pointee.duration = clip.frameDuration
            buffer.pointee.offset = guint64.max
            buffer.pointee.offset_end = guint64.max
            gst_app_src_push_buffer(appsrc, buffer) // takes the copy
            next.store((index + 1) % clip.frames.count, ordering: .relaxed)
            framesSent.add(1, ordering: .relaxed)
            return GST_PAD_PROBE_DROP
        }
    }

    /// Streaming thread (RTCP's): only sets a flag for the next tick.
    private func watchKeyframeRequests(on pad: Pad) {
        pad.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { [self] info in
            if let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self), gst_video_event_is_force_key_unit(event) != 0 {
                wantsKeyframe.store(true, ordering: .relaxed)
                keyframeRequests.add(1, ordering: .relaxed)
                return GST_PAD_PROBE_DROP // answered here: appsrc has nothing to do with it
            }
            return GST_PAD_PROBE_OK
        }
    }
}
