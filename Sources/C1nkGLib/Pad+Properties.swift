import CGLib
import CGStreamer

/// A pad's properties, typed as an element's (`GObjectProperties`): a
/// compositor's or a mixer's sink pads carry the per-input settings
/// (`alpha`, `zorder`, `width`, `volume`).
extension Pad: GObjectProperties {
    /// The pad as an untyped GObject pointer (for `ObjectProperty` and the c1nk_* shim calls).
    public var object: gpointer { UnsafeMutableRawPointer(pointer) }
}
