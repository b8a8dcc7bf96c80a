import C1nkDoor
import C1nkGLib
import C1nkMedia
import C1nkPipeline
import C1nkProbes
import Foundation
import Glibc

/// The audio section: mouth-to-ear latency both ways, A/V sync against the
/// door's video stamps, the DSP's latency and CPU cost, and echo
/// cancellation on the echo loop.
struct AudioFigures: Codable {
    /// Door's voice (tone bursts, capture time) → the resident's speaker (play time).
    var downlinkMs: LatencyStats
    /// The speaker pipeline's latency at the end of the call (its share of the downlink).
    var speakerLatencyMs: Double
    /// Door capture → the timestamp the mixed audio carries at the speaker
    /// (the downlink without the speaker's latency).
    var downlinkTimestampMs: LatencyStats
    /// Door capture → the timestamp at the call's `speaker-level`, before the speaker's mixer.
    var downlinkCallTimestampMs: LatencyStats
    /// Resident's microphone (capture time) → the door (arrival, played at once).
    var uplinkMs: LatencyStats
    /// The same without `webrtcdsp` in the pipeline.
    var uplinkWithoutDSPMs: LatencyStats
    /// Median video glass-to-glass of the same call (door stamp → shown).
    var videoGlassToGlassMs: Double?
    /// Audio minus video, medians: positive means the sound comes later than the picture.
    var avOffsetMs: Double?
    /// Uplink median with the DSP minus without.
    var dspAddedMs: Double
    /// This process (door and answerer) during the call, % of one core.
    var cpuPercentWithDSP: Double
    var cpuPercentWithoutDSP: Double
    /// The DSP alone, % of one core (`VoiceProcessing.measureCost`).
    var dspCPUPercent: Double
    var echoWithoutProcessingDB: Double
    var echoWithProcessingDB: Double
    /// Median of the echo-loop runs, and their range.
    var erleDB: Double
    var erleRangeDB: [Double]
    /// Resident's voice energy at the door during double talk, processing on
    /// vs off: median of the runs, and their range.
    var doubleTalkKeptPercent: Double
    var doubleTalkKeptRangePercent: [Double]
    var echoRuns: Int
    var loadAverage: String
    var seconds: Double

    func tableLines() -> [String] {
        func f(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "—" }
        func range(_ values: [Double]) -> String { values.count == 2 ? "\(f(values[0]))–\(f(values[1]))" : "—" }
        return [
            "",
            "audio (\(Int(seconds)) s calls in one process, tone bursts; load average \(loadAverage))",
            "  mouth-to-ear, door → resident speaker   p50 \(f(downlinkMs.p50)) ms  p95 \(f(downlinkMs.p95)) ms  (\(downlinkMs.count) bursts; goal ≤ 60; speaker pipeline latency \(f(speakerLatencyMs)) ms)",
            "    of which: door capture → timestamp at the speaker p50 \(f(downlinkTimestampMs.p50)) ms (in the call, before the mixer: \(f(downlinkCallTimestampMs.p50)) ms), then the speaker's latency",
            "  mouth-to-ear, resident mic → door        p50 \(f(uplinkMs.p50)) ms  p95 \(f(uplinkMs.p95)) ms  (\(uplinkMs.count) bursts; goal ≤ 60)",
            "  A/V offset, door audio vs video stamps   \(f(avOffsetMs)) ms (video glass-to-glass p50 \(f(videoGlassToGlassMs)) ms; goal ±40)",
            "  DSP latency (uplink with − without)      \(f(dspAddedMs)) ms (without: p50 \(f(uplinkWithoutDSPMs.p50)) ms; goal ≤ 15)",
            "  DSP CPU (20 s of audio with − without)   \(f(dspCPUPercent)) % of a core (goal ≤ 3; whole call process \(f(cpuPercentWithDSP)) % with, \(f(cpuPercentWithoutDSP)) % without)",
            "  echo loop: door's voice returned         \(f(echoWithoutProcessingDB)) dBFS without processing, \(f(echoWithProcessingDB)) with",
            "  ERLE after 2 s                           \(f(erleDB)) dB (\(range(erleRangeDB)); median of \(echoRuns); goal ≥ 25)",
            "  double talk: resident's energy kept      \(f(doubleTalkKeptPercent)) % (\(range(doubleTalkKeptRangePercent)); median of \(echoRuns); goal ≥ 80)",
        ]
    }
}

struct AudioBenchmark {
    let seconds: Double
    /// Echo-loop runs with processing on (their figures vary from run to run
    /// with the canceller's convergence).
    var echoRuns = 5

    // Both mouths deliver 10 ms periods, as a WebRTC stack's capture does.
    // A live test source hands out each buffer at its first sample's time,
    // so with its default 1024 samples (21.3 ms), beating against Opus's
    // 20 ms frames, the door sent each frame 0–20 ms early or late in a
    // 300 ms sawtooth, and a call's timing depended on where it started.
    static let doorMouth = "audiotestsrc is-live=true samplesperbuffer=480 wave=ticks freq=1000 tick-interval=500000000 sine-periods-per-tick=60 volume=0.5"
        + " ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! identity name=door-mouth"
    static let residentMouth = "audiotestsrc is-live=true samplesperbuffer=480 wave=ticks freq=1500 tick-interval=500000000 sine-periods-per-tick=90 volume=0.5"
        + " ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! identity name=resident-mouth"

    struct LatencyRun {
        var downlink: [Double]
        var downlinkStamp: [Double]
        var downlinkCallStamp: [Double]
        var uplink: [Double]
        var videoGlassToGlass: Double?
        var cpuPercent: Double
        var speakerLatency: Double
    }

    func run() throws -> AudioFigures {
        let withDSP = try latencyRun(dsp: true)
        let withoutDSP = try latencyRun(dsp: false)
        var erle: [Double] = []
        var kept: [Double] = []
        var echoOff: [Double] = []
        var echoOn: [Double] = []
        for _ in 0..<echoRuns {
            var echo = EchoLoop.Run()
            echo.echoCancel = false
            let off = try EchoLoop.run(echo, ice: .loopback)
            echo.echoCancel = true
            let on = try EchoLoop.run(echo, ice: .loopback)
            echoOff.append(off.doorBandDB)
            echoOn.append(on.doorBandDB)
            erle.append(off.doorBandDB - on.doorBandDB)
            kept.append(100 * pow(10, (on.residentBandDB - off.residentBandDB) / 10))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let downlink = LatencyStats(withDSP.downlink)
        let uplink = LatencyStats(withDSP.uplink)
        let uplinkWithout = LatencyStats(withoutDSP.uplink)
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        return AudioFigures(
            downlinkMs: downlink, speakerLatencyMs: withDSP.speakerLatency,
            downlinkTimestampMs: LatencyStats(withDSP.downlinkStamp),
            downlinkCallTimestampMs: LatencyStats(withDSP.downlinkCallStamp), uplinkMs: uplink, uplinkWithoutDSPMs: uplinkWithout,
            videoGlassToGlassMs: withDSP.videoGlassToGlass,
            avOffsetMs: withDSP.videoGlassToGlass.map { downlink.p50 - $0 },
            dspAddedMs: uplink.p50 - uplinkWithout.p50,
            cpuPercentWithDSP: withDSP.cpuPercent, cpuPercentWithoutDSP: withoutDSP.cpuPercent,
            dspCPUPercent: try VoiceProcessing().measureCost(),
            echoWithoutProcessingDB: median(echoOff), echoWithProcessingDB: median(echoOn),
            erleDB: median(erle), erleRangeDB: [erle.min()!, erle.max()!],
            doubleTalkKeptPercent: median(kept), doubleTalkKeptRangePercent: [kept.min()!, kept.max()!], echoRuns: echoRuns,
            loadAverage: load, seconds: seconds)
    }

    /// One call, door and answerer in this process on loopback.
    private func latencyRun(dsp: Bool) throws -> LatencyRun {
        var door = DoorMediaSession.Options()
        door.ice = .loopback
        door.audioSource = Self.doorMouth
        door.stampTime = true
        var configuration = MediaConfiguration()
        configuration.ice = .loopback
        configuration.videoSink = "fakesink"
        configuration.audioSource = Self.residentMouth
        configuration.measure = true
        if !dsp { configuration.pipeline = try withoutDSP() }
        let speaker = try SpeakerOutput(sink: "fakesink sync=true")
        let speakerEar = speaker.onsetProbe()
        let speakerStamp = speaker.onsetProbe(timing: .capture)
        let doorSession = try DoorMediaSession(options: door)
        let doorMouth = doorSession.onsetProbe(at: "door-mouth")
        let doorEar = doorSession.onsetProbe(at: "heard-level")
        var residentMouth: AudioOnsetProbe?
        var callSpeaker: AudioOnsetProbe?
        let call = try DirectCall(door: doorSession, callId: "bench-audio", configuration: configuration, speaker: speaker) { answer in
            residentMouth = answer.onsetProbe(at: "resident-mouth")
            callSpeaker = answer.onsetProbe(at: "speaker-level")
        }
        defer { call.stop() }
        guard let session = call.session else { throw BenchError("audio call: no connection") }
        session.setAudioEnabled(true)
        MainContext.spin(1) // settle
        let start = MainContext.monotonicSeconds()
        let cpuStart = Self.cpuSeconds()
        let clockStart = Self.clockNow()
        MainContext.spin(seconds)
        let cpu = (Self.cpuSeconds() - cpuStart) / (MainContext.monotonicSeconds() - start) * 100
        try call.check()
        func after(_ probe: AudioOnsetProbe?) -> [UInt64] { (probe?.onsets ?? []).filter { $0 >= clockStart } }
        return LatencyRun(
            downlink: AudioOnsetProbe.delays(mouth: after(doorMouth), ear: speakerEar?.onsets ?? []),
            downlinkStamp: AudioOnsetProbe.delays(mouth: after(doorMouth), ear: speakerStamp?.onsets ?? []),
            downlinkCallStamp: AudioOnsetProbe.delays(mouth: after(doorMouth), ear: callSpeaker?.onsets ?? []),
            uplink: AudioOnsetProbe.delays(mouth: after(residentMouth), ear: doorEar?.onsets ?? []),
            videoGlassToGlass: session.measurements.map { $0.glassToGlassSteady.count > 0 ? $0.glassToGlassSteady.p50 : $0.glassToGlass.p50 },
            cpuPercent: cpu, speakerLatency: speaker.latencyMilliseconds)
    }

    private func withoutDSP() throws -> PipelineDescription {
        let display = try PipelineDescription.load(PipelineDescription.defaultName)
        let text = try String(contentsOfFile: display.path, encoding: .utf8).replacingOccurrences(of: "! webrtcdsp name=echo-canceller ", with: "")
        return try PipelineDescription(name: "display-without-dsp", path: display.path + " (without webrtcdsp)", text: text)
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The system clock GStreamer uses (monotonic), in nanoseconds.
    private static func clockNow() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
