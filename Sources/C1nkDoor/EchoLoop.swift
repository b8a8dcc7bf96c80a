import C1nkGLib
import C1nkMedia
import C1nkPipeline
import FoundationEssentials
import Glibc
import Synchronization

/// An acoustic loop for echo measurements, in one process: the answerer's
/// speaker plays into an `interaudiosink`, and its microphone hears that
/// channel again about 40–60 ms later (interaudiosrc's 40 ms latency and a
/// 10 ms period), 9 dB quieter, with pink noise at about -50 dBFS, and
/// optionally the resident's own voice. The door speaks speech-like
/// multi-tone bursts below 1.2 kHz; the resident's test voice is bursts at
/// 3 kHz. The door measures both bands of what comes back.
public enum EchoLoop {
    /// The door's voice: three tone-burst trains (330, 520 and 870 Hz) of
    /// uneven rhythm, like syllables.
    public static let doorVoice =
        "audiotestsrc is-live=true wave=ticks freq=330 tick-interval=170000000 sine-periods-per-tick=40 volume=0.3 ! dv."
        + " audiotestsrc is-live=true wave=ticks freq=520 tick-interval=230000000 sine-periods-per-tick=90 volume=0.3 ! dv."
        + " audiotestsrc is-live=true wave=ticks freq=870 tick-interval=290000000 sine-periods-per-tick=200 volume=0.3 ! dv."
        + " audiomixer name=dv start-time-selection=first"

    /// The resident's test voice: 3 kHz bursts, 200 ms every 300 ms.
    static let residentVoice = "audiotestsrc is-live=true wave=ticks freq=3000 tick-interval=300000000 sine-periods-per-tick=600 volume=0.25"

    /// The figures of one run.
    public struct Figures: Sendable, Codable, Equatable {
        /// Mean power (dBFS) the door heard of its own voice's band, after convergence.
        public var doorBandDB: Double
        /// Mean power (dBFS) the door heard in the resident's voice band.
        public var residentBandDB: Double
    }

    public struct Run: Sendable {
        public var echoCancel = true
        public var residentTalks = true
        /// Seconds after the accept before measuring (convergence).
        public var settle = 2.0
        /// Seconds measured.
        public var measure = 2.5
        public var voice = VoiceProcessing()
        public init() {}
    }

    private static let serial = Atomic<Int>(0)

    /// The display pipeline with no `webrtcdsp`: the same loop, processing off.
    static func pipelineWithoutProcessing() throws -> PipelineDescription {
        let display = try PipelineDescription.load(PipelineDescription.defaultName)
        let text = display.lines.joined(separator: "\n").replacing("! webrtcdsp name=echo-canceller ", with: "")
        return try PipelineDescription(name: "display-without-dsp", path: display.path + " (without webrtcdsp)", text: text)
    }

    /// Runs one call through the loop; throws if the call does not come up.
    public static func run(_ run: Run, ice: IceConfiguration) throws -> Figures {
        let channel = "c1nk-echo-\(getpid())-\(serial.add(1, ordering: .relaxed).newValue)"
        var door = DoorMediaSession.Options()
        door.ice = ice
        door.audioSource = doorVoice
        door.analyseBands = true
        door.width = 320
        door.height = 240
        var configuration = MediaConfiguration()
        configuration.ice = ice
        configuration.videoSink = "fakesink sync=false"
        configuration.voice = run.voice
        configuration.voice.echoCancel = run.echoCancel
        if !run.echoCancel { configuration.pipeline = try pipelineWithoutProcessing() }
        configuration.audioSource =
            "interaudiosrc channel=\(channel) period-time=10000000 latency-time=40000000 ! audio/x-raw,rate=48000,channels=1"
            + " ! volume volume=0.35 ! loop."
            + " audiotestsrc is-live=true wave=pink-noise volume=0.006 ! audio/x-raw,rate=48000,channels=1 ! loop."
            + (run.residentTalks ? " \(residentVoice) ! audio/x-raw,rate=48000,channels=1 ! loop." : "")
            + " audiomixer name=loop start-time-selection=first"
        let speaker = try SpeakerOutput(sink: "interaudiosink channel=\(channel) sync=true")

        let doorSession = try DoorMediaSession(options: door)
        var bands: [(time: Double, band: String, level: Double)] = []
        doorSession.onHeardBand = { bands.append((MainContext.monotonicSeconds(), $0, $1)) }
        let call = try DirectCall(door: doorSession, callId: "echo", configuration: configuration, speaker: speaker)
        defer { call.stop() }
        guard let session = call.session else { throw MediaError.pipeline("the echo call did not connect") }
        session.setAudioEnabled(true)
        let accepted = MainContext.monotonicSeconds()
        MainContext.spin(run.settle + run.measure)
        try call.check()
        func mean(_ band: String) -> Double {
            let levels = bands.filter { $0.band == band && $0.time >= accepted + run.settle }.map(\.level)
            let power = levels.map { $0.isFinite ? pow(10, $0 / 10) : 0 }.reduce(0, +) / Double(max(1, levels.count))
            return power > 0 ? 10 * log10(power) : -120
        }
        return Figures(doorBandDB: mean("door"), residentBandDB: mean("resident"))
    }
}
