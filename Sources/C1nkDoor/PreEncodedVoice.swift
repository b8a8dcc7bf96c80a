import C1nkGLib
import C1nkMedia
import C1nkPipeline
import CGStreamer

/// The door's voice without an encoder per packet, beside the pre-encoded
/// camera: one second of the default tone encoded once and replayed in 20 ms
/// packets (`ClipReplay`, every packet a "keyframe"). Only the default tone:
/// a voice given as a description (a test's bursts) stays live.
enum PreEncodedVoice {
    static let packetSamples = 960 // 20 ms at 48 kHz, as the live voice's encoder sends them

    /// The voice's bin, or nil when the door's voice is not the default tone.
    static func make(_ options: DoorMediaSession.Options) throws -> Bin? {
        guard options.preEncoded, options.audioSource == DoorMediaSession.Options().audioSource else { return nil }
        let (encoding, payloader) = PreEncodedCamera.split(options.audioCodec.encoder)
        let clip = try PreEncodedClip.shared(
            "audiotestsrc num-buffers=50 samplesperbuffer=\(packetSamples) wave=sine freq=440 volume=0.4"
            + " ! audio/x-raw,rate=48000,channels=1 ! audioconvert ! audioresample ! \(encoding)",
            frameDuration: 20_000_000)
        let metronome = "audiotestsrc is-live=true wave=silence samplesperbuffer=\(packetSamples) ! audio/x-raw,rate=48000,channels=1"
        return try ClipReplay.makeBin(
            clip: clip, metronome: metronome,
            payloader: "\(payloader) ! capsfilter name=\(PipelineBin.outputName) caps=\"\(options.audioCodec.rtpCaps)\"",
            name: "door-voice").bin
    }
}
