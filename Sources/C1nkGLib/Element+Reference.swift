import CGStreamer

extension Element {
    /// Shares an element the caller still owns by hand: adds a plain
    /// reference of its own and leaves a floating one floating (the caller's
    /// to sink or drop). `init(retaining:)` would sink it, taking the
    /// caller's reference over.
    public convenience init(sharing pointer: UnsafeMutablePointer<GstElement>) {
        gst_object_ref(UnsafeMutableRawPointer(pointer))
        self.init(adopting: pointer)
    }

    /// The element's pointer with a reference of the caller's own (+1), for
    /// a caller that still owns elements by hand or a C call that takes a
    /// reference. This object keeps its own.
    public func passRetained() -> UnsafeMutablePointer<GstElement> {
        gst_object_ref(object)
        return pointer
    }
}
