import C1nkGLib
import C1nkPipeline
import C1nkProbes
import C1nkSpeaker
import CGStreamer
import Synchronization

/// The one owner of the speaker in the process: an `audiomixer` in front of
/// one audio sink, opened once and kept open (`SpeakerGraph`). The ringtone,
/// the display's short sounds (`play`) and every call's audio
/// (`{audio-sink}` in a call pipeline) are inputs of the mixer, so an
/// exclusive device (`alsasink device=hw:0`) works and ringing never fights
/// talking.
///
/// The `webrtcechoprobe` sits just before the sink, so a call's `webrtcdsp`
/// hears everything the speaker plays, at the DSP's rate (48 kHz).
///
/// With nothing to play for `idleSeconds`, the speaker sleeps: the sink
/// stays open but PAUSED (an exclusive device stays ours), the mixer and
/// the silent source stop (READY), and nothing runs. The next sound,
/// ringtone or call wakes it first: a fresh silent source and a fresh mixer
/// start at the current time (`start-time-selection=set`), so nothing is
/// played late or in a burst, and sounds are placed 30 ms ahead. When it
/// runs, sleeps or starts again after a failure is `SpeakerPowerMachine`'s
/// decision; this class performs it (`SpeakerOutput+Power.swift`).
///
/// Everything here runs on the main context; its timers come from `clock`.
/// Calls feed it from their own pipelines through `proxysink`/`proxysrc`
/// (no Swift per buffer), on the speaker's clock and time base (`align`).
public final class SpeakerOutput {
    private static let serial = Atomic<Int>(0)
    /// How long a finished sound stays linked after its end reaches the
    /// mixer: the mixer plays what it holds before the pad goes.
    static let soundTailSeconds = 0.3

    public var sinkDescription: String { graph.sinkDescription }
    /// The name of the `webrtcechoprobe` a call's `webrtcdsp` is given.
    public var probeName: String { graph.probeName }
    /// Why the speaker is not playing (the sink could not open), or nil.
    public var problem: String? { power.problem }
    /// Called when the sink fails (at start-up or later); the calls go on silent.
    public var onProblem: ((String) -> Void)?
    /// Levels that left for the sink (monotonic seconds, dBFS RMS), the last 30 s.
    public var levels: [(time: Double, level: Double)] { history.levels }
    /// Whether the speaker sleeps (nothing to play for `idleSeconds`).
    public var isAsleep: Bool { power.isAsleep }
    /// How often the mixer places a call's audio by its timestamps again
    /// (`SpeakerInput.realign`).
    let callRealignSeconds: Double

    // Shared with the performer of the power machine's actions (SpeakerOutput+Power.swift).
    let log = Log.speaker
    let graph: SpeakerGraph
    let clock: any TimerClock
    var power: SpeakerPowerMachine
    private var history = SpeakerLevelHistory()
    private var inputs: [ObjectIdentifier: SpeakerInput] = [:]
    private var sounds: [ObjectIdentifier: SpeakerInput] = [:]
    private var removals: [ObjectIdentifier: any ScheduledTimer] = [:]
    /// The silent live source that keeps the mixer and the sink running while awake.
    var keepOpen: SpeakerInput?
    var idleTimer: (any ScheduledTimer)?

    /// Opens `sink` (an element name or a bin description) behind the mixer.
    /// A sink that cannot open is not an error here: `problem` says why, and
    /// the next call tries again.
    /// `callLatencyMilliseconds`: the calls' jitterbuffer latency
    /// (`--latency`). The speaker's latency starts at what a call gives it
    /// (that plus the mixer's period and the sink's deadline), so a call
    /// joining or leaving does not change it: no latency event passes the
    /// sinks mid-call (each one also leaks a query in webrtcechoprobe,
    /// GStreamer 1.22), and the display's sounds play that much later, by
    /// ~20 ms.
    /// `clock`: where its timers come from (sleeping when idle, realigning
    /// calls, letting sounds finish); `idleSeconds`, `callRealignSeconds`: those timers.
    /// `autoaudiosink` on a machine with nothing to play on (`presence`) is
    /// a silent sink at once, said in the log, rather than every audio
    /// plug-in loaded to find the same.
    public init(sink: String, volume: Double = 1, callLatencyMilliseconds: UInt = MediaConfiguration().latencyMilliseconds,
                clock: any TimerClock = GLibClock.shared, idleSeconds: Double = 1, callRealignSeconds: Double = 2,
                presence: @autoclosure () -> AudioOutputPresence = .current) throws {
        var sink = sink
        if sink == "autoaudiosink", presence().found == nil {
            Log.speaker.info("no speaker on this machine (no sound card in /dev/snd, no sound server): calls are silent here; "
                             + "--audio-sink chooses one")
            sink = AudioOutputPresence.silentSink
        }
        graph = try SpeakerGraph(sink: sink, volume: volume, callLatencyMilliseconds: callLatencyMilliseconds,
                                 probeName: "c1nk-echo-probe-\(Self.serial.add(1, ordering: .relaxed).newValue)")
        self.volume = volume
        self.clock = clock
        self.callRealignSeconds = callRealignSeconds
        power = SpeakerPowerMachine(idleSeconds: idleSeconds)
        graph.pipeline.watchBus { [weak self] message in self?.busMessage(message) }
        handle(.open)
    }

    deinit {
        idleTimer?.cancel()
        graph.release {
            for input in Array(inputs.values) + Array(sounds.values) { input.remove() }
            keepOpen?.remove()
        }
    }

    /// The speaker's master volume (1 = as received); `--speaker-volume`.
    public var volume: Double {
        didSet { graph.setVolume(volume) }
    }

    /// The speaker's pipeline, for tests that inspect its elements.
    var pipelineForTests: Pipeline { Pipeline(retaining: graph.pipeline.element) }

    /// How many inputs play (sounds, ringtones, calls; not the silent source).
    var playingCount: Int { power.playing }

    /// The speaker pipeline's latency (its inputs' latency, the calls'
    /// jitterbuffers included), in milliseconds.
    public var latencyMilliseconds: Double { graph.latency.map { Double($0) / 1e6 } ?? 0 }

    /// Asks every input again for its latency (a call's changes as its
    /// branches link), and tells the sinks when it changed.
    func recalculateLatency() { graph.recalculateLatency() }

    /// Whether the sink is open and playing.
    public var isPlaying: Bool { problem == nil }

    /// Loudest level sent to the sink between two times (monotonic seconds).
    public func loudest(since start: Double, until end: Double = .infinity) -> Double {
        history.loudest(since: start, until: end)
    }

    /// Measurement: the onsets of tone bursts as the sink plays them (at the
    /// echo probe, the last element before the sink's conversion).
    public func onsetProbe(timing: AudioOnsetProbe.Timing = .playback) -> AudioOnsetProbe? {
        AudioOnsetProbe.attach(to: probeName, in: graph.pipeline.element, timing: timing)
    }

    // MARK: - Sounds and the ringtone

    /// Plays one of the display's sounds over whatever else is playing.
    public func play(_ sound: SpeakerSound) {
        guard problem == nil else { return }
        handle(.inputJoining)
        // Non-live tones placed on the speaker's timeline a little ahead of
        // now (once awake): the mixer plays them back to back at their time.
        var start = graph.runningTime + 30_000_000
        for tone in sound.tones {
            let samples = 48 * tone.milliseconds
            let description = "audiotestsrc wave=sine freq=\(tone.frequency) volume=\(tone.volume)"
                + " samplesperbuffer=\(min(samples, 480)) num-buffers=\(max(1, samples / min(samples, 480)))"
                + " ! \(SpeakerGraph.format) ! identity name=\(PipelineBin.outputName)"
            guard let input = try? attach(description, name: "sound-\(sound.rawValue)", offset: start) else { continue }
            sounds[ObjectIdentifier(input)] = input
            removeAtEnd(input)
            start += UInt(tone.milliseconds) * 1_000_000
        }
    }

    /// Starts a live source (a gst-launch description such as the default
    /// ringtone) into the mixer; it plays until its `remove()`.
    func startSource(_ description: String, name: String) throws -> SpeakerInput {
        let input = try attach("\(description) ! audioconvert ! audioresample ! \(SpeakerGraph.format) ! identity name=\(PipelineBin.outputName)",
                               name: name, offset: nil)
        inputs[ObjectIdentifier(input)] = input
        return input
    }

    // MARK: - Calls

    /// Puts `other` (a call's pipeline, before it starts) on the speaker's
    /// clock and time base.
    func align(_ other: UnsafeMutablePointer<GstElement>) {
        graph.align(Pipeline(retaining: other))
    }

    /// Connects a `proxysink` of an aligned pipeline to the mixer. The speaker
    /// is tried again first if it failed before (the device may be free now).
    func attach(proxySink: UnsafeMutablePointer<GstElement>, name: String) throws -> SpeakerInput {
        let feed = Element(retaining: proxySink)
        let input = try attach("proxysrc name=proxy ! audioconvert ! audioresample ! \(SpeakerGraph.format) ! identity name=\(PipelineBin.outputName)",
                               name: name, offset: nil) { bin in
            bin.element(named: "proxy")?[element: "proxysink"] = feed
        }
        inputs[ObjectIdentifier(input)] = input
        input.realign(every: callRealignSeconds)
        // The call's latency (its jitterbuffer) now counts for the mixer too.
        recalculateLatency()
        return input
    }

    // MARK: - Inputs

    /// Links an input to the mixer; one that plays (`waking`) wakes the
    /// speaker first and counts until it leaves (`inputRemoved`).
    func attach(_ description: String, name: String, offset: UInt?, waking: Bool = true,
                prepare: (Bin) -> Void = { _ in }) throws -> SpeakerInput {
        if waking { handle(.inputJoining) }
        let linked: (bin: Bin, mixerPad: Pad)
        do {
            linked = try graph.attach(description, name: name, offset: offset, prepare: prepare)
        } catch {
            if waking { handle(.inputRefused) }
            throw error
        }
        if waking { handle(.inputJoined) }
        return SpeakerInput(name: name, bin: linked.bin, mixerPad: linked.mixerPad, clock: clock, owner: self)
    }

    func inputRemoved(_ input: SpeakerInput) {
        let key = ObjectIdentifier(input)
        guard inputs.removeValue(forKey: key) != nil || sounds.removeValue(forKey: key) != nil else { return }
        handle(.inputLeft)
    }

    /// Removes a finite input once its end of stream reaches the mixer.
    private func removeAtEnd(_ input: SpeakerInput) {
        input.element?.staticPad("src")?.addProbe(GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) { [weak input] info in
            if let event = gst_pad_probe_info_get_event(info), event.pointee.type == GST_EVENT_EOS {
                // Let the mixer play what it holds before the pad goes.
                MainContext.post { [weak self] in self?.removeSoon(input) }
                return GST_PAD_PROBE_DROP
            }
            return GST_PAD_PROBE_OK
        }
    }

    private func removeSoon(_ input: SpeakerInput?) {
        guard let input else { return }
        let key = ObjectIdentifier(input)
        removals[key] = clock.schedule(after: Self.soundTailSeconds) { [weak self, weak input] in
            self?.removals[key] = nil
            input?.remove()
        }
    }

    // MARK: - The bus

    private func busMessage(_ message: UnsafeMutablePointer<GstMessage>) {
        switch message.pointee.type {
        case GST_MESSAGE_ELEMENT:
            if let level = AudioLevel.rms(from: message) {
                history.append(level, at: MainContext.monotonicSeconds())
            }
        case GST_MESSAGE_LATENCY:
            recalculateLatency()
        case GST_MESSAGE_ERROR:
            // A sound or ringtone that fails is dropped; a failing sink or
            // mixer silences the speaker until the next call tries again.
            if let input = (Array(inputs.values) + Array(sounds.values)).first(where: { $0.element.map { PipelineLinks.isInside(message.pointee.src, $0.pointer) } ?? false }) {
                log.warning("speaker: \(input.name): \(PipelineMessage.describeError(message)); dropped")
                input.remove()
            } else {
                fail(PipelineMessage.describeError(message))
            }
        default:
            break
        }
    }
}
