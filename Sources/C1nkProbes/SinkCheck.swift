import CGStreamer

/// Opens a sink once at start-up to learn whether it can work here (a
/// display, a DRM device, the permission to use it), so the user hears about
/// it before the first ring rather than in the middle of a call.
public enum SinkCheck {
    /// Nil when `description` opens; otherwise what went wrong and what to try.
    public static func problem(opening description: String, kind: String = "video") -> String? {
        guard let bin = try? PipelineBin.make(description, name: "sink-check") else { return nil } // reported by validation
        defer {
            gst_element_set_state(bin, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(bin))
        }
        let bus = gst_bus_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_bus(bin, bus)
        guard gst_element_set_state(bin, GST_STATE_READY) == GST_STATE_CHANGE_FAILURE else { return nil }
        var reason = "it failed to start"
        if let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) {
            reason = PipelineMessage.describeError(message)
            gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self))
        }
        return "the \(kind) sink '\(description)' cannot open: \(reason). " + alternatives(kind, besides: description)
    }

    static func alternatives(_ kind: String, besides chosen: String = "") -> String {
        let options = kind == "video"
            ? [("kmssink", "a bare display: needs /dev/dri/card0, membership of the video group and no desktop holding the screen"),
               ("autovideosink", "a desktop"), ("waylandsink", "a Wayland desktop"), ("fakesink", "no display at all")]
            : [("autoaudiosink", "the default speaker"), ("alsasink", "an ALSA device"), ("pulsesink", "a sound server"),
               ("fakesink", "no speaker")]
        let option = kind == "video" ? "--sink" : "--audio-sink"
        return "Alternatives: " + options.filter { !chosen.hasPrefix($0.0) }
            .map { "\(option) \($0.0) (\($0.1))" }.joined(separator: ", ")
    }
}
