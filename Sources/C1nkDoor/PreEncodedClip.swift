import C1nkGLib
import C1nkMedia
import C1nkPipeline
import CGStreamer
import Synchronization

/// A few seconds of encoded media, made once by running an encoding
/// pipeline to its end, then replayed by `ClipReplay` at no encoding cost.
/// The buffers are never written after `encode` (a replay pushes shallow
/// copies with its own timestamps), so one clip is shared by every door of
/// the process that asks for the same description.
final class PreEncodedClip: @unchecked Sendable { // immutable after init; GstBuffer refs are atomic
    let caps: UnsafeMutablePointer<GstCaps>
    let frames: [UnsafeMutablePointer<GstBuffer>]
    let isKeyframe: [Bool]
    let frameDuration: GstClockTime

    /// How many clips this process encoded (each description once), for tests.
    static let encodings = Atomic<Int>(0)
    /// Clips by description; touched on the main context only (sessions are made there).
    nonisolated(unsafe) private static var cache: [String: PreEncodedClip] = [:]

    private init(caps: UnsafeMutablePointer<GstCaps>, frames: [UnsafeMutablePointer<GstBuffer>], frameDuration: GstClockTime) {
        self.caps = caps
        self.frames = frames
        isKeyframe = frames.map { $0.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue == 0 }
        self.frameDuration = frameDuration
    }

    deinit {
        frames.forEach { gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(OpaquePointer($0))) }
        gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(OpaquePointer(caps)))
    }

    /// The first keyframe at or after `index`, wrapping to the clip's start
    /// (always a keyframe: an encoder starts with one).
    func keyframe(atOrAfter index: Int) -> Int {
        (index..<frames.count).first { isKeyframe[$0] } ?? 0
    }

    /// The clip `description` makes (a finite source, an encoder, no sink),
    /// encoded on first use and kept for the process's lifetime.
    static func shared(_ description: String, frameDuration: GstClockTime) throws -> PreEncodedClip {
        if let clip = cache[description] { return clip }
        let clip = try encode(description, frameDuration: frameDuration)
        cache[description] = clip
        return clip
    }

    /// Runs `description ! appsink` as fast as it goes and keeps every buffer.
    private static func encode(_ description: String, frameDuration: GstClockTime) throws -> PreEncodedClip {
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        let launched = gst_parse_launch("\(description) ! appsink name=clip sync=false", &error)
        if let error {
            let failure = GLibError.take(error)
            if let launched { gst_object_unref(UnsafeMutableRawPointer(launched)) }
            throw MediaError.badDescription(description, detail: failure.message)
        }
        guard let pipeline = launched, let sinkElement = Gst.find("clip", in: pipeline) else {
            throw MediaError.badDescription(description, detail: "no clip pipeline")
        }
        gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(sinkElement))
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let sink = UnsafeMutablePointer<GstAppSink>(OpaquePointer(sinkElement))
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        var frames: [UnsafeMutablePointer<GstBuffer>] = []
        var caps: UnsafeMutablePointer<GstCaps>?
        // A finite source ends with EOS (nil); an error stalls the pipeline, hence the timeout.
        while let sample = gst_app_sink_try_pull_sample(sink, 10_000_000_000) {
            if caps == nil, let sampleCaps = gst_sample_get_caps(sample) {
                caps = UnsafeMutablePointer<GstCaps>(OpaquePointer(gst_mini_object_ref(UnsafeMutablePointer<GstMiniObject>(OpaquePointer(sampleCaps)))))
            }
            if let buffer = gst_sample_get_buffer(sample) {
                frames.append(UnsafeMutablePointer<GstBuffer>(OpaquePointer(gst_mini_object_ref(UnsafeMutablePointer<GstMiniObject>(OpaquePointer(buffer))))))
            }
            gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(sample))
        }
        guard gst_app_sink_is_eos(sink) != 0, let caps, !frames.isEmpty else {
            frames.forEach { gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(OpaquePointer($0))) }
            throw MediaError.pipeline("the clip '\(description)' did not encode to its end")
        }
        encodings.add(1, ordering: .relaxed)
        return PreEncodedClip(caps: caps, frames: frames, frameDuration: frameDuration)
    }
}
