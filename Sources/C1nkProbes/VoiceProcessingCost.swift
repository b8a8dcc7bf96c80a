import C1nkGLib
import C1nkPipeline
import CGStreamer
import Glibc

/// What WebRTC's audio processing costs on this machine, as % of one core.
public enum VoiceProcessingCost {
    /// `seconds` of speech-like audio on the microphone, and the same played
    /// into the echo probe, processed as fast as possible with `webrtcdsp`
    /// (set up by `configure`, given the element and its probe's name) and
    /// again without it; the CPU time difference over the audio's duration.
    /// CPU time (not wall time), so a machine loaded by others changes it little.
    public static func measure(seconds: Double = 20, configure: (_ dsp: Element, _ probe: String) -> Void) throws -> Double {
        GStreamer.initialize()
        let buffers = Int(seconds * 100) // 10 ms buffers
        func run(_ dsp: Bool) throws -> Double {
            let probe = "c1nk-cost-probe-\(dsp)"
            let bin = try PipelineBin.parse(description(buffers: buffers, probe: probe, dsp: dsp), name: "dsp-cost")
            let pipeline = OwnedPipeline(named: "c1nk-dsp-cost")
            pipeline.pipeline.add(bin)
            defer { pipeline.release() }
            if dsp, let element = pipeline.pipeline.element(named: "cost-dsp") {
                configure(element, probe)
            }
            let start = cpuSeconds()
            pipeline.start()
            if case .error(let reason) = pipeline.waitForEnd(seconds: 120) { throw MediaError.pipeline(reason) }
            return cpuSeconds() - start
        }
        let without = try run(false)
        let with = try run(true)
        return max(0, with - without) / seconds * 100
    }

    /// The voice (ticks of a tone, like syllables) through the echo probe to a
    /// sink, and pink noise as the microphone, through `webrtcdsp` or not.
    static func description(buffers: Int, probe: String, dsp: Bool) -> String {
        let voice = "wave=ticks freq=520 tick-interval=230000000 sine-periods-per-tick=90 volume=0.3"
        return "audiotestsrc \(voice) samplesperbuffer=480 num-buffers=\(buffers) ! audio/x-raw,format=S16LE,rate=48000,channels=1"
            + " ! webrtcechoprobe name=\(probe) ! fakesink sync=false"
            + " audiotestsrc wave=pink-noise volume=0.05 samplesperbuffer=480 num-buffers=\(buffers) ! audio/x-raw,format=S16LE,rate=48000,channels=1"
            + (dsp ? " ! webrtcdsp name=cost-dsp probe=\(probe)" : " ! identity") + " ! fakesink sync=false"
    }

    /// CPU time of this process (user and system), in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
