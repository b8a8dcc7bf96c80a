import CGStreamer

/// Process-wide GStreamer set-up.
public enum GStreamer {
    private static let once: Void = {
        gst_init(nil, nil)
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
