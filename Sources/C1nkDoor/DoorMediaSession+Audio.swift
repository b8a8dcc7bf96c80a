import C1nkGLib
import C1nkMedia
import C1nkPipeline
import CGStreamer

extension DoorMediaSession {
    /// The visitor's voice: `Options.audioSource` encoded live, or the
    /// default tone replayed pre-encoded (`PreEncodedVoice`); nil for a door
    /// without audio.
    static func voice(_ options: Options) throws -> Bin? {
        guard let source = options.audioSource else { return nil }
        let voice = try PreEncodedVoice.make(options) ?? Bin(adopting: PipelineBin.make(
            "\(source) ! audioconvert ! audioresample ! \(options.audioCodec.encoder)"
            + " ! capsfilter name=\(PipelineBin.outputName) caps=\"\(options.audioCodec.rtpCaps)\"",
            name: "door-voice", output: true))
        if options.adaptsToFeedback, let output = voice.staticPad("src") {
            // The voice's backlog from before DTLS was up, as for the camera (20 ms packets).
            dropCatchUpFrames(on: output, framesPerSecond: 50)
        }
        return voice
    }

    /// What the door hears: the resident's audio decoded and measured
    /// (`heard-level`), with `Options.analyseBands` also in the door's and the
    /// resident's test bands (`heard-door`, `heard-resident`); its "sink" takes
    /// webrtcbin's audio pad.
    static func speaker(_ options: Options) throws -> Bin {
        let bands = options.analyseBands
            ? " ! tee name=bands bands. ! queue ! audiocheblimit mode=low-pass cutoff=1200 poles=8 ! level name=heard-door interval=50000000 ! fakesink sync=false"
              + " bands. ! queue ! audiochebband mode=band-pass lower-frequency=2800 upper-frequency=3200 poles=8 ! level name=heard-resident interval=50000000 ! fakesink sync=false"
              + " bands. ! queue"
            : ""
        return Bin(adopting: try PipelineBin.make(
            "decodebin ! audioconvert ! audio/x-raw,format=F32LE\(bands) ! level name=heard-level interval=50000000 ! fakesink sync=false",
            name: "door-speaker", input: true))
    }
}
