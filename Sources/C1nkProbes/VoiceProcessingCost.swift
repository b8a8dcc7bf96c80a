import C1nkGLib
import CGStreamer
import Glibc

extension VoiceProcessing {
    /// CPU the DSP costs, as % of one core: `seconds` of speech-like audio on
    /// the microphone, and the same played into the echo probe, processed as
    /// fast as possible with `webrtcdsp` and again without it; the CPU time
    /// difference over the audio's duration. CPU time (not wall time), so a
    /// machine loaded by others changes it little.
    public func measureCost(seconds: Double = 20) throws -> Double {
        GStreamer.initialize()
        let buffers = Int(seconds * 100) // 10 ms buffers
        func run(_ dsp: Bool) throws -> Double {
            let probe = "c1nk-cost-probe-\(dsp)"
            let voice = "wave=ticks freq=520 tick-interval=230000000 sine-periods-per-tick=90 volume=0.3"
            let description = "audiotestsrc \(voice) samplesperbuffer=480 num-buffers=\(buffers) ! audio/x-raw,format=S16LE,rate=48000,channels=1"
                + " ! webrtcechoprobe name=\(probe) ! fakesink sync=false"
                + " audiotestsrc wave=pink-noise volume=0.05 samplesperbuffer=480 num-buffers=\(buffers) ! audio/x-raw,format=S16LE,rate=48000,channels=1"
                + (dsp ? " ! webrtcdsp name=cost-dsp probe=\(probe)" : " ! identity") + " ! fakesink sync=false"
            let bin = try PipelineBin.make(description, name: "dsp-cost")
            let pipeline = gst_pipeline_new("c1nk-dsp-cost")!
            gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))
            gst_bin_add(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), bin)
            gst_object_unref(UnsafeMutableRawPointer(bin))
            if dsp, let element = Gst.find("cost-dsp", in: pipeline) {
                configure(element, probe: probe)
                gst_object_unref(UnsafeMutableRawPointer(element))
            }
            defer {
                gst_element_set_state(pipeline, GST_STATE_NULL)
                gst_object_unref(UnsafeMutableRawPointer(pipeline))
            }
            let start = Self.cpuSeconds()
            gst_element_set_state(pipeline, GST_STATE_PLAYING)
            let bus = gst_element_get_bus(pipeline)!
            defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
            let types = GstMessageType(GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
            if let message = gst_bus_timed_pop_filtered(bus, 120 * 1_000_000_000, types) {
                defer { gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self)) }
                if message.pointee.type == GST_MESSAGE_ERROR { throw MediaError.pipeline(PipelineMessage.describeError(message)) }
            }
            return Self.cpuSeconds() - start
        }
        let without = try run(false)
        let with = try run(true)
        return max(0, with - without) / seconds * 100
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
