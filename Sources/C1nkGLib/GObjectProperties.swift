import CGLib
import CGStreamer

/// Typed property access on any GObject that holds a reference:
/// `element[int: "latency"] = 20`, `pad[double: "alpha"]`,
/// `agent[bool: "upnp"]`. Numbers go through GLib's value transforms, so an
/// `int` reads and writes any of GLib's integer types (`guint`, `gint64`, …)
/// and enums by number. Reading a property the object does not have gives
/// 0, false or nil; writing one is a programming error (GLib prints a critical).
public protocol GObjectProperties: AnyObject {
    /// The object as an untyped GObject pointer, valid while the conforming reference lives.
    var object: gpointer { get }
}

extension GObjectProperties {
    public func has(property name: String) -> Bool { ObjectProperty.has(object, name) }

    /// Sets a property from its string form, as gst-launch does (enums by nick, flags, caps).
    public func set(_ name: String, fromString value: String) { ObjectProperty.set(object, name, value) }

    public subscript(int name: String) -> Int {
        get { Int(PropertyValue.read(object, name, c1nk_type_int64()) { g_value_get_int64($0) } ?? 0) }
        set { PropertyValue.write(object, name, c1nk_type_int64()) { g_value_set_int64($0, gint64(newValue)) } }
    }

    public subscript(double name: String) -> Double {
        get { PropertyValue.read(object, name, c1nk_type_double()) { g_value_get_double($0) } ?? 0 }
        set { PropertyValue.write(object, name, c1nk_type_double()) { g_value_set_double($0, newValue) } }
    }

    public subscript(bool name: String) -> Bool {
        get { (PropertyValue.read(object, name, c1nk_type_boolean()) { g_value_get_boolean($0) } ?? 0) != 0 }
        set { PropertyValue.write(object, name, c1nk_type_boolean()) { g_value_set_boolean($0, newValue ? 1 : 0) } }
    }

    public subscript(string name: String) -> String? {
        get { ObjectProperty.string(object, name) }
        set { PropertyValue.write(object, name, c1nk_type_string()) { g_value_set_string($0, newValue) } }
    }
}

/// One property through a GValue of a fundamental type, converted to and
/// from the property's own type.
enum PropertyValue {
    static func read<T>(_ object: gpointer, _ name: String, _ type: GType,
                        _ get: (UnsafeMutablePointer<GValue>) -> T) -> T? {
        let own = c1nk_property_type(object, name)
        guard own != 0 else { return nil }
        var value = GValue()
        g_value_init(&value, own)
        defer { g_value_unset(&value) }
        g_object_get_property(object.assumingMemoryBound(to: GObject.self), name, &value)
        if own == type { return get(&value) }
        var converted = GValue()
        g_value_init(&converted, type)
        defer { g_value_unset(&converted) }
        guard g_value_transform(&value, &converted) != 0 else { return nil }
        return get(&converted)
    }

    static func write(_ object: gpointer, _ name: String, _ type: GType,
                      _ set: (UnsafeMutablePointer<GValue>) -> Void) {
        let own = c1nk_property_type(object, name)
        precondition(own != 0, "no property '\(name)' on \(Gst.name(object.assumingMemoryBound(to: GstObject.self)))")
        var value = GValue()
        g_value_init(&value, type)
        defer { g_value_unset(&value) }
        set(&value)
        if own == type {
            g_object_set_property(object.assumingMemoryBound(to: GObject.self), name, &value)
            return
        }
        var converted = GValue()
        g_value_init(&converted, own)
        defer { g_value_unset(&converted) }
        precondition(g_value_transform(&value, &converted) != 0, "property '\(name)' does not take this type")
        g_object_set_property(object.assumingMemoryBound(to: GObject.self), name, &converted)
    }
}
