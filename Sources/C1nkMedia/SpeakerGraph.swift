import C1nkGLib
import C1nkPipeline
import C1nkProbes
import CGStreamer

/// The speaker's GStreamer graph, one pipeline kept open for the process:
///
///     audiotestsrc wave=silence (keeps the sink running)  ┐
///     ringtone, sounds, proxysrc ◀ call's proxysink       ├ audiomixer ! volume
///       ! level ! webrtcechoprobe ! audioconvert ! audioresample ! {audio-sink}
///
/// It runs, sleeps and stops as `SpeakerOutput` tells it (the decisions are
/// `SpeakerPowerMachine`'s) and links inputs to the mixer. Asleep, the
/// sink side (the echo probe and what follows it) is held PAUSED, so the
/// device stays open, and the rest is READY: no thread runs. Main context only.
final class SpeakerGraph {
    /// The mixer's format: what the echo probe and the DSP agree on.
    static let format = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"
    /// The mixer's output period: it waits for this much of every input
    /// before mixing, so it adds this much latency (10 ms by default).
    static let mixPeriodNanoseconds = 5_000_000
    /// The silent live source that keeps the mixer and the sink running while awake.
    static let keepOpenDescription = "audiotestsrc is-live=true wave=silence samplesperbuffer=480"

    let sinkDescription: String
    /// The name of the `webrtcechoprobe` a call's `webrtcdsp` is given.
    let probeName: String
    let pipeline: OwnedPipeline
    /// The same pipeline, for its clock and latency.
    private let top: Pipeline
    /// The bin holding the mixer, where inputs are added.
    private let container: Bin
    private let mixer: Element
    private let clock = SystemClock()
    /// The echo probe and what follows it (conversion, the sink): held
    /// PAUSED while the speaker sleeps, so the device stays open.
    private var sinkSide: [Element] = []
    private var sinkSideLocked = false
    private var tuning: SignalConnection?
    /// The latency last handed to the sinks by `recalculateLatency`; nil
    /// when the pipeline may have handed them another since.
    private var appliedLatency: UInt64?
    /// The speaker's latency before any call joins (see `init`).
    private let latencyFloor: GstClockTime
    private var inputCount = 0

    /// Builds the graph in front of `sink` (not started). The speaker's
    /// latency is set to what a call gives it (`callLatencyMilliseconds`,
    /// the calls' jitterbuffer) plus the mixer's period and the sink's
    /// deadline, so that a call joining or leaving does not change it.
    init(sink: String, volume: Double, callLatencyMilliseconds: UInt, probeName: String) throws {
        GStreamer.initialize()
        sinkDescription = sink
        self.probeName = probeName
        container = Bin(adopting: try PipelineBin.make(
            "audiomixer name=mix start-time-selection=set output-buffer-duration=\(Self.mixPeriodNanoseconds)"
            + " ! \(Self.format) ! volume name=speaker-volume volume=\(volume)"
            + " ! level name=speaker-output-level interval=50000000 ! webrtcechoprobe name=\(probeName)"
            + " ! audioconvert ! audioresample ! \(sink)", name: "speaker"))
        pipeline = OwnedPipeline(named: "c1nk-speaker")
        top = Pipeline(retaining: pipeline.element)
        top.add(container)
        mixer = container.element(named: "mix")!
        for element in top.elements { SpeakerDevice.tune(element, description: sink) }
        // The real sink inside `autoaudiosink` appears when it opens.
        tuning = top.connect("deep-element-added") { (_: gpointer?, element: gpointer?) in
            guard let element = element?.assumingMemoryBound(to: GstElement.self) else { return }
            SpeakerDevice.tune(Element(retaining: element), description: sink)
        }
        if let probe = container.element(named: probeName) {
            sinkSide = [probe] + PipelineLinks.downstream(of: probe.pointer).map { Element(retaining: $0) }
            EchoProbeLatencyGate.install(on: probe)
        }
        // One time base for the speaker and every call that feeds it: the
        // running times of their buffers then mean the same instant.
        top.use(clock)
        top.startTime = GstClockTime.max
        top.baseTime = clock.time
        latencyFloor = GstClockTime(callLatencyMilliseconds) * 1_000_000 + GstClockTime(Self.mixPeriodNanoseconds)
            + GstClockTime(SpeakerDevice.processingDeadline)
        top.latency = latencyFloor
    }

    /// Tears the pipeline down: `detach` (the owner's inputs) first, with
    /// the sink side free to follow the pipeline to NULL.
    func release(detach: () -> Void) {
        tuning?.disconnect()
        pipeline.release(detach: {
            lockSinkSide(false)
            detach()
        })
    }

    func setVolume(_ volume: Double) {
        container.element(named: "speaker-volume")?[double: "volume"] = max(0, volume)
    }

    /// The speaker's running time now (nanoseconds).
    var runningTime: UInt {
        let now = clock.time
        let base = top.baseTime
        return now > base ? now - base : 0
    }

    /// Puts `other` (a call's pipeline, before it starts) on the speaker's
    /// clock and time base.
    func align(_ other: Pipeline) {
        other.use(clock)
        other.startTime = GstClockTime.max
        other.baseTime = top.baseTime
    }

    // MARK: - Latency

    /// The pipeline's latency (its inputs', the calls' jitterbuffers
    /// included), in nanoseconds.
    var latency: UInt64? { AudioOnsetProbe.latency(of: pipeline.element) }

    /// Asks every input again for its latency, and tells the sinks when it
    /// changed. A latency event with the value the sinks already have
    /// changes nothing, and `webrtcechoprobe` (GStreamer 1.22) leaks a
    /// query on every one that passes it.
    func recalculateLatency() {
        // What the pipeline hands its sinks: the larger of the two.
        let latency = latency.map { max($0, UInt64(latencyFloor)) }
        if let latency, latency == appliedLatency { return }
        appliedLatency = latency
        pipeline.recalculateLatency()
    }

    // MARK: - Running, sleeping, stopping

    /// Runs the graph (from stopped or asleep); false when it failed to
    /// start (the error waits in `takeError`).
    func run() -> Bool {
        lockSinkSide(false)
        startMixingNow()
        // Going to PLAYING, the pipeline tells its sinks the latency itself.
        appliedLatency = nil
        guard pipeline.start() else { return false }
        startMixerSegmentNow()
        return true
    }

    /// Locked while still PLAYING: a buffer on its way to the sink
    /// completes; the mixer stops; then the sink side pauses.
    func sleep() {
        lockSinkSide(true)
        pipeline.setState(GST_STATE_READY)
        for element in sinkSide { element.setState(GST_STATE_PAUSED) }
    }

    /// Everything to NULL, the sink side too (after a failure).
    func stop() {
        lockSinkSide(false)
        pipeline.setState(GST_STATE_NULL)
    }

    func takeError() -> String? { pipeline.takeError() }

    /// The mixer's output starts now: not at the first buffer it happens to
    /// get (the last tone of a sound, pushed at once, could come first and
    /// make the earlier ones late), nor at its old position.
    private func startMixingNow() {
        mixer[int: "start-time"] = Int(runningTime)
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
        guard mixer.currentState.rawValue >= GST_STATE_PAUSED.rawValue,
              mixer.pointer.pointee.numsinkpads == 0 else { return }
        c1nk_aggregator_start_at(mixer.pointer, runningTime)
    }

    private func lockSinkSide(_ locked: Bool) {
        guard locked != sinkSideLocked else { return }
        sinkSideLocked = locked
        for element in sinkSide { element.setLockedState(locked) }
    }

    // MARK: - Inputs

    /// Adds the bin of `description` (its output an element named
    /// `PipelineBin.outputName`) and links it to a new mixer pad, with its
    /// timestamps moved by `offset` (nanoseconds) if given. `prepare` sees
    /// the bin before it is added.
    func attach(_ description: String, name: String, offset: UInt?,
                prepare: (Bin) -> Void = { _ in }) throws -> (bin: Bin, mixerPad: Pad) {
        inputCount += 1
        let bin = Bin(adopting: try PipelineBin.make(description, name: "\(name)-\(inputCount)", output: true))
        prepare(bin)
        // Locked until linked: the pipeline finishing a state change (the
        // sink prerolling after a wake) must not start it unlinked.
        bin.setLockedState(true)
        container.add(bin)
        let source = bin.staticPad("src")!
        if let offset { gst_pad_set_offset(source.pointer, Int(offset)) }
        let mixerPad = mixer.requestPad("sink_%u")
        let linked = mixerPad.map { source.link($0) } ?? GST_PAD_LINK_REFUSED
        guard let mixerPad, linked == GST_PAD_LINK_OK else {
            if let mixerPad { mixer.releaseRequestPad(mixerPad) }
            container.remove(bin)
            throw MediaError.pipeline("cannot connect \(name) to the speaker's mixer (\(linked.rawValue))")
        }
        bin.setLockedState(false)
        bin.syncStateWithParent()
        return (bin, mixerPad)
    }
}
