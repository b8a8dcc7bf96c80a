import C1nkGLib
import C1nkMedia
import CGStreamer

/// The door's camera without an encoder per frame (`Options.preEncoded`):
/// the same scene, encoder and keyframe spacing as the live camera, encoded
/// once into a clip of `clipSeconds` and replayed in a loop (`ClipReplay`),
/// so a door costs almost nothing and a benchmark measures the answerer.
///
/// The pixels cannot change per frame, so the clip carries no `FrameStamp`
/// time (glass-to-glass needs the live camera). What stays measurable: each
/// replayed frame gets a fresh RTP timestamp (one per tick of the pipeline
/// clock), so the answerer's frame counter at `video-out` (frames recorded,
/// or decoded) counts the door's frames one for one, 30 a second.
enum PreEncodedCamera {
    static let clipSeconds = 4

    static func make(_ options: DoorMediaSession.Options, label: String, name: String,
                     encoder: String, rtpOutput: String) throws -> Bin {
        let duration = 1_000_000_000 / GstClockTime(max(1, options.framerate))
        let raw = "video/x-raw,format=I420,width=\(options.width),height=\(options.height),framerate=\(options.framerate)/1"
        let (encoding, payloader) = split(encoder)
        let clip = try PreEncodedClip.shared(
            "videotestsrc num-buffers=\(options.framerate * clipSeconds) pattern=smpte ! \(raw)"
            + " ! textoverlay text=\"\(label)\" valignment=top halignment=left font-desc=\"Sans 24\" ! videoconvert ! \(encoding)",
            frameDuration: duration)
        let metronome = "videotestsrc is-live=true pattern=black ! video/x-raw,format=GRAY8,width=16,height=16,framerate=\(options.framerate)/1"
        return try ClipReplay.makeBin(clip: clip, metronome: metronome, payloader: "\(payloader) ! \(rtpOutput)", name: name).bin
    }

    /// The live camera's "encoder ! payloader" apart; H.264 as a byte stream
    /// of whole frames, so each keyframe carries its parameter sets in-band
    /// and the loop can start over at any keyframe.
    static func split(_ encoder: String) -> (encoding: String, payloader: String) {
        guard let cut = encoder.ranges(of: " ! rtp").last else { return (encoder, "identity") }
        let encoding = String(encoder[..<cut.lowerBound])
            .replacing("profile=constrained-baseline", with: "profile=constrained-baseline,stream-format=byte-stream,alignment=au")
        return (encoding, String(encoder[encoder.index(cut.lowerBound, offsetBy: 3)...]))
    }
}
