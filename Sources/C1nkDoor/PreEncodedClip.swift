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
final class PreEncodedClip: Sendable { // immutable after init; the wrappers' refs are atomic
    let caps: Caps
    let frames: [Buffer]
    let isKeyframe: [Bool]
    let frameDuration: GstClockTime

    /// How many clips this process encoded (each description once), for tests.
    static let encodings = Atomic<Int>(0)
    /// Clips by description; touched on the main context only (sessions are made there).
    nonisolated(unsafe) private static var cache: [String: PreEncodedClip] = [:]

    private init(caps: Caps, frames: [Buffer], frameDuration: GstClockTime) {
        self.caps = caps
        self.frames = frames
        isKeyframe = frames.map { $0.pointer.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue == 0 }
        self.frameDuration = frameDuration
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
        // A floating reference (or none): the wrapper sinks it and drops it when done.
        let launched = gst_parse_launch("\(description) ! appsink name=clip sync=false", &error).map { Pipeline(retaining: $0) }
        if let error {
            throw MediaError.badDescription(description, detail: GLibError.take(error).message)
        }
        guard let pipeline = launched, let sink = pipeline.element(named: "clip") else {
            throw MediaError.badDescription(description, detail: "no clip pipeline")
        }
        defer { pipeline.setState(GST_STATE_NULL) }
        pipeline.setState(GST_STATE_PLAYING)
        var frames: [Buffer] = []
        var caps: Caps?
        // A finite source ends with EOS (nil); an error stalls the pipeline, hence the timeout.
        while let sample = Sample.pull(from: sink, seconds: 10) {
            if caps == nil { caps = sample.caps }
            if let buffer = sample.buffer { frames.append(buffer) }
        }
        guard sink[bool: "eos"], let caps, !frames.isEmpty else {
            throw MediaError.pipeline("the clip '\(description)' did not encode to its end")
        }
        encodings.add(1, ordering: .relaxed)
        return PreEncodedClip(caps: caps, frames: frames, frameDuration: frameDuration)
    }
}
