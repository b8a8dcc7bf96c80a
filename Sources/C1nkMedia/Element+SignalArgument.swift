import C1nkGLib
import CGStreamer

extension Element {
    /// The element behind a signal's `gpointer` argument (`deep-element-added`,
    /// rtpbin's `new-jitterbuffer`), with a reference of its own; nil for none.
    /// Retaining it sinks nothing: a bin emits `deep-element-added` once its
    /// child is added (sunk), and rtpbin sinks a jitterbuffer before announcing it.
    static func fromSignalArgument(_ object: gpointer?) -> Element? {
        object.map { Element(retaining: $0.assumingMemoryBound(to: GstElement.self)) }
    }
}
