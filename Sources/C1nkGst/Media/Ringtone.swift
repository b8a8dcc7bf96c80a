import CGStreamer

/// The ring the user hears before picking up: a short beep every second on
/// the audio sink, as its own small pipeline so it never touches the call's.
public final class Ringtone {
    /// The default sound: 880 Hz ticks, one per second.
    public static let defaultDescription = "audiotestsrc is-live=true wave=ticks tick-interval=1000000000 sine-periods-per-tick=350 freq=880 volume=0.4"

    private var pipeline: UnsafeMutablePointer<GstElement>?
    private var busWatch: BusWatch?
    private let log = Log.call

    /// Starts ringing: `source` (an audio source description) into `sink`.
    public init(source: String, sink: String) throws {
        let bin = try PipelineBin.make("\(source) ! audioconvert ! audioresample ! \(sink)", name: "ringtone")
        let pipeline = gst_pipeline_new("c1nk-ringtone")!
        gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))
        gst_bin_add(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), bin)
        gst_object_unref(UnsafeMutableRawPointer(bin))
        self.pipeline = pipeline
        busWatch = BusWatch(pipeline) { [weak self] message in
            if message.pointee.type == GST_MESSAGE_ERROR {
                self?.log.warning("ringtone: \(PipelineMessage.describeError(message)); ringing silently")
                self?.stop()
            }
        }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
    }

    public func stop() {
        busWatch?.remove()
        busWatch = nil
        if let pipeline {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
            self.pipeline = nil
        }
    }

    deinit { stop() }
}
