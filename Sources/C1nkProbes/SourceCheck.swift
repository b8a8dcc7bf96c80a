import C1nkGLib
import CGStreamer

/// Captures a few buffers from a source once (`c1nk-gst-answer doctor`), to
/// learn whether it really delivers: an automatic source may pick an element
/// that opens without a device and fails only when it streams.
public enum SourceCheck {
    /// Nil when `description` delivers a few buffers within `timeout` seconds;
    /// otherwise what went wrong.
    public static func problem(capturing description: String, timeout: Double = 3) -> String? {
        let capture = "\(description) ! fakesink name=c1nk-source-check num-buffers=3 sync=false async=false"
        guard let bin = try? PipelineBin.make(capture, name: "source-check") else { return nil } // reported by validation
        let pipeline = gst_pipeline_new("source-check")!
        gst_bin_add(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), bin)
        gst_object_unref(UnsafeMutableRawPointer(bin)) // the pipeline holds it now
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE,
           gst_bus_have_pending(bus) == 0 {
            return "it failed to start"
        }
        let types = GstMessageType(GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        guard let message = gst_bus_timed_pop_filtered(bus, GstClockTime(timeout * 1e9), types) else {
            return "no sound within \(Int(timeout)) s"
        }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self)) }
        return message.pointee.type == GST_MESSAGE_EOS ? nil : PipelineMessage.describeError(message)
    }
}
