import C1nkGLib
import C1nkPipeline
import C1nkProbes
import CGStreamer
import Foundation
import Synchronization

/// The one owner of the speaker in the process: an `audiomixer` in front of
/// one audio sink, opened once and kept open. The ringtone, the display's
/// short sounds (`play`) and every call's audio (`{audio-sink}` in a call
/// pipeline) are inputs of the mixer, so an exclusive device
/// (`alsasink device=hw:0`) works and ringing never fights talking.
///
///     audiotestsrc wave=silence (keeps the sink running)  ┐
///     ringtone, sounds, proxysrc ◀ call's proxysink       ├ audiomixer ! volume
///       ! level ! webrtcechoprobe ! audioconvert ! audioresample ! {audio-sink}
///
/// The `webrtcechoprobe` sits just before the sink, so a call's `webrtcdsp`
/// hears everything the speaker plays, at the DSP's rate (48 kHz).
///
/// With nothing to play for `idleSeconds`, the speaker sleeps: the sink
/// stays open but PAUSED (an exclusive device stays ours), the mixer and
/// the silent source stop (READY), and nothing runs. The next sound,
/// ringtone or call wakes it first: a fresh silent source and a fresh mixer
/// start at the current time (`start-time-selection=set`), so nothing is
/// played late or in a burst, and sounds are placed 30 ms ahead.
///
/// Everything here runs on the main context. Calls feed it from their own
/// pipelines through `proxysink`/`proxysrc` (no Swift per buffer), on the
/// speaker's clock and time base (`align`).
public final class SpeakerOutput {
    /// The mixer's format: what the echo probe and the DSP agree on.
    static let format = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"
    private static let serial = Atomic<Int>(0)
    /// The mixer's output period: it waits for this much of every input
    /// before mixing, so it adds this much latency (10 ms by default).
    static let mixPeriodNanoseconds = 5_000_000
    /// How long the speaker runs with nothing to play before it sleeps.
    static let idleSeconds = 1.0
    /// How often the mixer places a call's audio by its timestamps again
    /// (`SpeakerInput.realign`).
    static let callRealignSeconds = 2.0
    static let keepOpenDescription = "audiotestsrc is-live=true wave=silence samplesperbuffer=480"

    public let sinkDescription: String
    /// The name of the `webrtcechoprobe` a call's `webrtcdsp` is given.
    public let probeName: String
    /// Why the speaker is not playing (the sink could not open), or nil.
    public private(set) var problem: String?
    /// Called when the sink fails (at start-up or later); the calls go on silent.
    public var onProblem: ((String) -> Void)?
    /// Levels that left for the sink (monotonic seconds, dBFS RMS), the last 30 s.
    public private(set) var levels: [(time: Double, level: Double)] = []

    private let log = Log.media
    private let pipeline: OwnedPipeline
    private let mixer: UnsafeMutablePointer<GstElement>
    /// The bin holding the mixer, where inputs are added (unowned: the pipeline holds it).
    private let container: UnsafeMutablePointer<GstBin>
    private let clock: UnsafeMutablePointer<GstClock>
    private var inputs: [ObjectIdentifier: SpeakerInput] = [:]
    private var sounds: [ObjectIdentifier: SpeakerInput] = [:]
    private var inputCount = 0
    private var removals: [ObjectIdentifier: GLibTimer] = [:]
    /// The silent live source that keeps the mixer and the sink running while awake.
    private var keepOpen: SpeakerInput?
    /// The echo probe and what follows it (conversion, the sink): held
    /// PAUSED while the speaker sleeps, so the device stays open.
    private var sinkSide: [UnsafeMutablePointer<GstElement>] = []
    private var sinkSideLocked = false
    private var sleepTimer: GLibTimer?
    private var tuning: SignalConnection?
    /// Whether the speaker sleeps (nothing to play for `idleSeconds`).
    public private(set) var isAsleep = false

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
    public init(sink: String, volume: Double = 1, callLatencyMilliseconds: UInt = MediaConfiguration().latencyMilliseconds) throws {
        GStreamer.initialize()
        sinkDescription = sink
        self.volume = volume
        probeName = "c1nk-echo-probe-\(Self.serial.add(1, ordering: .relaxed).newValue)"
        let bin = try PipelineBin.make(
            "audiomixer name=mix start-time-selection=set output-buffer-duration=\(Self.mixPeriodNanoseconds)"
            + " ! \(Self.format) ! volume name=speaker-volume volume=\(volume)"
            + " ! level name=speaker-output-level interval=50000000 ! webrtcechoprobe name=\(probeName)"
            + " ! audioconvert ! audioresample ! \(sink)", name: "speaker")
        pipeline = OwnedPipeline(named: "c1nk-speaker")
        gst_bin_add(pipeline.bin, bin)
        container = UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self)
        gst_object_unref(UnsafeMutableRawPointer(bin))
        mixer = Gst.find("mix", in: pipeline.element)!
        for element in Gst.elements(of: pipeline.element) { SpeakerDevice.tune(element, description: sink) }
        // The real sink inside `autoaudiosink` appears when it opens.
        tuning = SignalConnection.connect(UnsafeMutableRawPointer(pipeline.element), "deep-element-added") { (_: gpointer?, element: gpointer?) in
            guard let element = element?.assumingMemoryBound(to: GstElement.self) else { return }
            SpeakerDevice.tune(element, description: sink)
        }
        if let probe = Gst.find(probeName, in: pipeline.element) {
            sinkSide = [probe] + PipelineLinks.downstream(of: probe)
            EchoProbeLatencyGate.install(on: probe)
            gst_object_unref(UnsafeMutableRawPointer(probe))
        }
        clock = gst_system_clock_obtain()
        // One time base for the speaker and every call that feeds it: the
        // running times of their buffers then mean the same instant.
        gst_pipeline_use_clock(UnsafeMutableRawPointer(pipeline.element).assumingMemoryBound(to: GstPipeline.self), clock)
        gst_element_set_start_time(pipeline.element, GstClockTime.max)
        gst_element_set_base_time(pipeline.element, gst_clock_get_time(clock))
        latencyFloor = GstClockTime(callLatencyMilliseconds) * 1_000_000 + GstClockTime(Self.mixPeriodNanoseconds)
            + GstClockTime(SpeakerDevice.processingDeadline)
        gst_pipeline_set_latency(UnsafeMutableRawPointer(pipeline.element).assumingMemoryBound(to: GstPipeline.self), latencyFloor)
        pipeline.watchBus { [weak self] message in self?.busMessage(message) }
        start()
        sleepWhenIdle()
    }

    deinit {
        sleepTimer?.cancel()
        tuning?.disconnect()
        pipeline.release(detach: {
            lockSinkSide(false)
            for input in Array(inputs.values) + Array(sounds.values) { input.remove() }
            keepOpen?.remove()
        }, afterNull: {
            gst_object_unref(UnsafeMutableRawPointer(mixer))
        })
        gst_object_unref(UnsafeMutableRawPointer(clock))
    }

    /// The speaker's master volume (1 = as received); `--speaker-volume`.
    public var volume: Double {
        didSet {
            guard let element = Gst.find("speaker-volume", in: pipeline.element) else { return }
            ObjectProperty.set(UnsafeMutableRawPointer(element), "volume", String(max(0, volume)))
            gst_object_unref(UnsafeMutableRawPointer(element))
        }
    }

    /// The speaker's pipeline, for tests that inspect its elements.
    var pipelineForTests: UnsafeMutablePointer<GstElement> { pipeline.element }

    /// The speaker pipeline's latency (its inputs' latency, the calls'
    /// jitterbuffers included), in milliseconds.
    public var latencyMilliseconds: Double {
        AudioOnsetProbe.latency(of: pipeline.element).map { Double($0) / 1e6 } ?? 0
    }

    /// Asks every input again for its latency (a call's changes as its
    /// branches link), and tells the sinks when it changed. A latency event
    /// with the value the sinks already have changes nothing, and
    /// `webrtcechoprobe` (GStreamer 1.22) leaks a query on every one that
    /// passes it.
    func recalculateLatency() {
        // What the pipeline hands its sinks: the larger of the two.
        let latency = AudioOnsetProbe.latency(of: pipeline.element).map { max($0, UInt64(latencyFloor)) }
        if let latency, latency == appliedLatency { return }
        appliedLatency = latency
        pipeline.recalculateLatency()
    }
    /// The latency last handed to the sinks by `recalculateLatency`; nil
    /// when the pipeline may have handed them another since.
    private var appliedLatency: UInt64?
    /// The speaker's latency before any call joins (see `init`).
    private let latencyFloor: GstClockTime

    /// Whether the sink is open and playing.
    public var isPlaying: Bool { problem == nil }

    /// Loudest level sent to the sink between two times (monotonic seconds).
    public func loudest(since start: Double, until end: Double = .infinity) -> Double {
        levels.filter { $0.time >= start && $0.time <= end }.map(\.level).max() ?? -.infinity
    }

    /// Measurement: the onsets of tone bursts as the sink plays them (at the
    /// echo probe, the last element before the sink's conversion).
    public func onsetProbe(timing: AudioOnsetProbe.Timing = .playback) -> AudioOnsetProbe? {
        AudioOnsetProbe.attach(to: probeName, in: pipeline.element, timing: timing)
    }

    // MARK: - Sounds and the ringtone

    /// Plays one of the display's sounds (§9.7) over whatever else is playing.
    public func play(_ sound: SpeakerSound) {
        guard problem == nil else { return }
        wake()
        // Non-live tones placed on the speaker's timeline a little ahead of
        // now (once awake): the mixer plays them back to back at their time.
        var start = runningTime() + 30_000_000
        for tone in sound.tones {
            let samples = 48 * tone.milliseconds
            let description = "audiotestsrc wave=sine freq=\(tone.frequency) volume=\(tone.volume)"
                + " samplesperbuffer=\(min(samples, 480)) num-buffers=\(max(1, samples / min(samples, 480)))"
                + " ! \(Self.format) ! identity name=\(PipelineBin.outputName)"
            guard let input = try? attach(description, name: "sound-\(sound.rawValue)", offset: start) else { continue }
            sounds[ObjectIdentifier(input)] = input
            removeAtEnd(input)
            start += UInt(tone.milliseconds) * 1_000_000
        }
    }

    /// Starts a live source (a gst-launch description such as the default
    /// ringtone) into the mixer; stop it with `stop(_:)`.
    func startSource(_ description: String, name: String) throws -> SpeakerInput {
        let input = try attach("\(description) ! audioconvert ! audioresample ! \(Self.format) ! identity name=\(PipelineBin.outputName)",
                               name: name, offset: nil)
        inputs[ObjectIdentifier(input)] = input
        return input
    }

    // MARK: - Calls

    /// Puts `other` (a call's pipeline, before it starts) on the speaker's
    /// clock and time base.
    func align(_ other: UnsafeMutablePointer<GstElement>) {
        gst_pipeline_use_clock(UnsafeMutableRawPointer(other).assumingMemoryBound(to: GstPipeline.self), clock)
        gst_element_set_start_time(other, GstClockTime.max)
        gst_element_set_base_time(other, gst_element_get_base_time(pipeline.element))
    }

    /// Connects a `proxysink` of an aligned pipeline to the mixer. The speaker
    /// is tried again first if it failed before (the device may be free now).
    func attach(proxySink: UnsafeMutablePointer<GstElement>, name: String) throws -> SpeakerInput {
        let input = try attach("proxysrc name=proxy ! audioconvert ! audioresample ! \(Self.format) ! identity name=\(PipelineBin.outputName)",
                               name: name, offset: nil) { bin in
            if let proxy = Gst.find("proxy", in: bin) {
                c1nk_object_set_pointer(UnsafeMutableRawPointer(proxy), "proxysink", UnsafeMutableRawPointer(proxySink))
                gst_object_unref(UnsafeMutableRawPointer(proxy))
            }
        }
        inputs[ObjectIdentifier(input)] = input
        input.realign(every: Self.callRealignSeconds)
        // The call's latency (its jitterbuffer) now counts for the mixer too.
        recalculateLatency()
        return input
    }

    func inputRemoved(_ input: SpeakerInput) {
        inputs[ObjectIdentifier(input)] = nil
        sounds[ObjectIdentifier(input)] = nil
        sleepWhenIdle()
    }

    // MARK: - Sleeping while idle

    /// Sleeps after `idleSeconds` if nothing is added meanwhile.
    private func sleepWhenIdle() {
        guard inputs.isEmpty, sounds.isEmpty, !isAsleep else { return }
        sleepTimer = GLibTimer(after: Self.idleSeconds) { [weak self] in self?.sleep() }
    }

    /// The silent source goes, the sink side is held PAUSED (still open),
    /// the rest (mixer, volume, level) goes to READY: no thread runs.
    private func sleep() {
        sleepTimer = nil
        guard inputs.isEmpty, sounds.isEmpty, !isAsleep, problem == nil else { return }
        isAsleep = true
        keepOpen?.remove()
        keepOpen = nil
        // Locked while still PLAYING: a buffer on its way to the sink
        // completes; the mixer stops; then the sink side pauses.
        lockSinkSide(true)
        pipeline.setState(GST_STATE_READY)
        for element in sinkSide { gst_element_set_state(element, GST_STATE_PAUSED) }
        log.debug("speaker: asleep (nothing to play)")
    }

    /// Before anything is added: the speaker runs again.
    private func wake() {
        sleepTimer?.cancel()
        sleepTimer = nil
        if problem != nil {
            start()
        } else if isAsleep {
            isAsleep = false
            lockSinkSide(false)
            startMixingNow()
            // Going to PLAYING, the pipeline tells its sinks the latency itself.
            appliedLatency = nil
            if !pipeline.start() { return failed(pipeline.takeError() ?? "it failed to start again") }
            startMixerSegmentNow()
            // Added once running: a live source started with the pipeline
            // would count its time from zero and push a burst to catch up.
            attachKeepOpen()
            log.debug("speaker: awake")
        }
    }

    /// The mixer's output starts now: not at the first buffer it happens to
    /// get (the last tone of a sound, pushed at once, could come first and
    /// make the earlier ones late), nor at its old position.
    private func startMixingNow() {
        ObjectProperty.set(UnsafeMutableRawPointer(mixer), "start-time", String(runningTime()))
    }

    /// Once the mixer has started, before any input joins: its output
    /// segment starts now. The `start-time` above is applied only when an
    /// input's first buffer comes before the mixer's first timeout. A
    /// call's input answers the latency query at once (its pipeline is
    /// live) and has no buffer yet: the mixer timed out first, started at
    /// zero and mixed from zero to now at once, as many seconds of silence
    /// as the process had run, at about half the wakes (GStreamer 1.22;
    /// docs/pipelines.md). With no input the mixer knows no latency and
    /// waits, so nothing was mixed yet here.
    private func startMixerSegmentNow() {
        guard mixer.pointee.current_state.rawValue >= GST_STATE_PAUSED.rawValue,
              mixer.pointee.numsinkpads == 0 else { return }
        c1nk_aggregator_start_at(mixer, runningTime())
    }

    private func lockSinkSide(_ locked: Bool) {
        guard locked != sinkSideLocked else { return }
        sinkSideLocked = locked
        for element in sinkSide { gst_element_set_locked_state(element, locked ? 1 : 0) }
    }

    private func attachKeepOpen() {
        guard keepOpen == nil else { return }
        keepOpen = try? attach("\(Self.keepOpenDescription) ! \(Self.format) ! identity name=\(PipelineBin.outputName)",
                               name: "keep-open", offset: nil, waking: false)
    }

    // MARK: - Internals

    private func start() {
        problem = nil
        isAsleep = false
        lockSinkSide(false)
        startMixingNow()
        appliedLatency = nil
        if !pipeline.start() {
            return failed(pipeline.takeError() ?? "it failed to start")
        }
        startMixerSegmentNow()
        attachKeepOpen()
    }

    private func failed(_ reason: String) {
        lockSinkSide(false)
        pipeline.setState(GST_STATE_NULL)
        let text = "the speaker '\(sinkDescription)' cannot play: \(reason). " + SinkCheck.alternatives("audio", besides: sinkDescription)
        guard problem == nil else { return }
        problem = text
        log.warning(text)
        onProblem?(text)
    }

    private func runningTime() -> UInt {
        let now = gst_clock_get_time(clock)
        let base = gst_element_get_base_time(pipeline.element)
        return now > base ? now - base : 0
    }

    private func attach(_ description: String, name: String, offset: UInt?, waking: Bool = true,
                        prepare: (UnsafeMutablePointer<GstElement>) -> Void = { _ in }) throws -> SpeakerInput {
        if waking { wake() }
        inputCount += 1
        let bin = try PipelineBin.make(description, name: "\(name)-\(inputCount)", output: true)
        prepare(bin)
        // Locked until linked: the pipeline finishing a state change (the
        // sink prerolling after a wake) must not start it unlinked.
        gst_element_set_locked_state(bin, 1)
        gst_bin_add(container, bin)
        let source = gst_element_get_static_pad(bin, "src")!
        defer { gst_object_unref(UnsafeMutableRawPointer(source)) }
        if let offset { gst_pad_set_offset(source, Int(offset)) }
        let mixerPad = gst_element_request_pad_simple(mixer, "sink_%u")
        let linked = mixerPad.map { gst_pad_link(source, $0) } ?? GST_PAD_LINK_REFUSED
        guard let mixerPad, linked == GST_PAD_LINK_OK else {
            if let mixerPad {
                gst_element_release_request_pad(mixer, mixerPad)
                gst_object_unref(UnsafeMutableRawPointer(mixerPad))
            }
            gst_bin_remove(container, bin)
            gst_object_unref(UnsafeMutableRawPointer(bin))
            throw MediaError.pipeline("cannot connect \(name) to the speaker's mixer (\(linked.rawValue))")
        }
        gst_element_set_locked_state(bin, 0)
        gst_element_sync_state_with_parent(bin)
        return SpeakerInput(name: name, bin: bin, mixerPad: mixerPad, owner: self)
    }

    /// Removes a finite input once its end of stream reaches the mixer.
    private func removeAtEnd(_ input: SpeakerInput) {
        guard let bin = input.element, let pad = gst_element_get_static_pad(bin, "src") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) { [weak input] info in
            if let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self), event.pointee.type == GST_EVENT_EOS {
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
        removals[key] = GLibTimer(after: 0.3) { [weak self, weak input] in
            self?.removals[key] = nil
            input?.remove()
        }
    }

    private func busMessage(_ message: UnsafeMutablePointer<GstMessage>) {
        switch message.pointee.type {
        case GST_MESSAGE_ELEMENT:
            if let level = AudioLevel.rms(from: message) {
                let now = MainContext.monotonicSeconds()
                levels.append((now, level))
                // At most once a second: what is older than 30 s goes.
                if let first = levels.first, now - first.time > 31 {
                    levels.removeFirst(levels.firstIndex { now - $0.time <= 30 } ?? levels.count)
                }
            }
        case GST_MESSAGE_LATENCY:
            recalculateLatency()
        case GST_MESSAGE_ERROR:
            // A sound or ringtone that fails is dropped; a failing sink or
            // mixer silences the speaker until the next call tries again.
            if let input = (Array(inputs.values) + Array(sounds.values)).first(where: { $0.element.map { PipelineLinks.isInside(message.pointee.src, $0) } ?? false }) {
                log.warning("speaker: \(input.name): \(PipelineMessage.describeError(message)); dropped")
                input.remove()
            } else {
                failed(PipelineMessage.describeError(message))
            }
        default:
            break
        }
    }
}
