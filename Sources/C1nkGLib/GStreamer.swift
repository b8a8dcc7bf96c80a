@_exported import C1nkGLibBase
import CGStreamer

/// Process-wide GStreamer set-up.
public enum GStreamer {
    private static let once: Void = {
        gst_init(nil, nil)
        Log.destination = GStreamerLog.shared
        // autovideosink would try the DirectFB sink on a machine with no
        // display, and DirectFB crashes the process when it is not set up.
        if let directFB = gst_element_factory_find("dfbvideosink") {
            gst_plugin_feature_set_rank(directFB, 0)
            gst_object_unref(UnsafeMutableRawPointer(directFB))
        }
    }()

    /// Initialises GStreamer once; every entry point of the library calls it.
    public static func initialize() { _ = once }

    /// Whether an element factory of this name is installed.
    public static func hasElement(_ name: String) -> Bool {
        initialize()
        guard let factory = gst_element_factory_find(name) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }
}
