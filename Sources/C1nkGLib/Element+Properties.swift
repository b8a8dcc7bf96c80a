import CGLib
import CGStreamer

/// An element's properties: the typed accessors of `GObjectProperties`
/// (`element[int: "latency"] = 20`, `element[bool: "sync"]`), and those
/// whose values are an element or caps.
extension Element: GObjectProperties {
    /// An element-valued property ("sink" of playbin, "video-sink"…).
    public subscript(element name: String) -> Element? {
        get {
            guard let value = c1nk_object_get_object(object, name) else { return nil }
            return Element(adopting: value.assumingMemoryBound(to: GstElement.self))
        }
        set { c1nk_object_set_pointer(object, name, newValue.map { UnsafeMutableRawPointer($0.pointer) }) }
    }

    /// A caps-valued property ("caps" of capsfilter, appsrc, appsink).
    public subscript(caps name: String) -> Caps? {
        get {
            guard let value = c1nk_object_get_object(object, name) else { return nil }
            return Caps(adopting: value.assumingMemoryBound(to: GstCaps.self))
        }
        set { c1nk_object_set_pointer(object, name, newValue.map { UnsafeMutableRawPointer($0.pointer) }) }
    }
}
