import CGLib
import CGStreamer

/// Typed property access on a pad, as on an element (`Element+Properties`):
/// a compositor's or a mixer's sink pads carry the per-input settings
/// (`alpha`, `zorder`, `width`, `volume`). Numbers go through GLib's value
/// transforms, so `int` reads and writes any integer type and enums by number.
extension Pad {
    /// The pad as an untyped GObject pointer (for `ObjectProperty` and the c1nk_* shim calls).
    public var object: gpointer { UnsafeMutableRawPointer(pointer) }

    public func has(property name: String) -> Bool { ObjectProperty.has(object, name) }

    /// Sets a property from its string form, as gst-launch does (enums by nick).
    public func set(_ name: String, fromString value: String) { ObjectProperty.set(object, name, value) }

    public subscript(int name: String) -> Int {
        get { Int(PropertyValue.read(object, name, c1nk_type_int64()) { g_value_get_int64($0) } ?? 0) }
        set { PropertyValue.write(object, name, c1nk_type_int64()) { g_value_set_int64($0, gint64(newValue)) } }
    }

    public subscript(double name: String) -> Double {
        get { PropertyValue.read(object, name, c1nk_type_double()) { g_value_get_double($0) } ?? 0 }
        set { PropertyValue.write(object, name, c1nk_type_double()) { g_value_set_double($0, newValue) } }
    }
}
