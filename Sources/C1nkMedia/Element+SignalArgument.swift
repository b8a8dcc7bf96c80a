import C1nkGLib
import CGStreamer

extension Element {
    /// The element behind a signal's `gpointer` argument (`deep-element-added`,
    /// rtpbin's `new-jitterbuffer`), with a reference of its own; nil for none.
    /// The signal's element is already in its bin, so retaining it sinks nothing.
    static func fromSignalArgument(_ object: gpointer?) -> Element? {
        object.map { Element(retaining: $0.assumingMemoryBound(to: GstElement.self)) }
    }
}
