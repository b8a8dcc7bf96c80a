import CGLib
import CGStreamer

extension Element {
    /// A new floating reference to this element, for a signal handler whose
    /// return value the emitter sinks (webrtcbin's `request-aux-sender`
    /// takes "a new floating element"). This wrapper keeps its own reference
    /// and drops it as usual, so when the emitter sinks the returned one it
    /// holds the element alone, as it would have from a freshly made element.
    public func floatingReference() -> gpointer {
        gst_object_ref(object)
        g_object_force_floating(PointerCast.cast(pointer, to: GObject.self))
        return object
    }
}
