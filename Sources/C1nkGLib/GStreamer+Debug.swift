import CGStreamer

extension GStreamer {
    /// Applies a `GST_DEBUG`-style list (`c1nk*:5,webrtcbin:4`) to this
    /// process, also after GStreamer has started (`--gst-debug`).
    public static func setDebug(_ list: String) {
        initialize()
        gst_debug_set_threshold_from_string(list, 1)
    }
}
