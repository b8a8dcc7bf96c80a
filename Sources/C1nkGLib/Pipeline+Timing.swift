import CGStreamer

/// An element's time base: the clock time its running time counts from,
/// and what a state change does to it.
extension Element {
    /// The clock time at which the element's running time is zero.
    public var baseTime: GstClockTime {
        get { gst_element_get_base_time(pointer) }
        set { gst_element_set_base_time(pointer, newValue) }
    }

    /// The running time kept across a pause; `GstClockTime.max` (NONE)
    /// leaves `baseTime` alone at every change to PLAYING, for an element
    /// whose base time is set by hand.
    public var startTime: GstClockTime {
        get { gst_element_get_start_time(pointer) }
        set { gst_element_set_start_time(pointer, newValue) }
    }
}

/// A pipeline's clock and the latency it hands its sinks.
extension Pipeline {
    private var pipelinePointer: UnsafeMutablePointer<GstPipeline> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstPipeline.self)
    }

    /// Makes the pipeline use `clock` rather than choose one when it starts.
    public func use(_ clock: SystemClock) { gst_pipeline_use_clock(pipelinePointer, clock.pointer) }

    /// The latency set for the pipeline's sinks by hand (GStreamer's
    /// `latency` of a pipeline); `GstClockTime.max` (NONE, the default):
    /// only what the latency query finds.
    public var latency: GstClockTime {
        get { gst_pipeline_get_latency(pipelinePointer) }
        set { gst_pipeline_set_latency(pipelinePointer, newValue) }
    }
}
