/// Casts between GStreamer's C types (a `GstElement` seen as the `GstBin`
/// or `GObject` it also is) for code that must call a C function the
/// wrappers do not cover, on a pointer a wrapper owns. Prefer the
/// wrappers' own API (`Element`, `Bin`, `Pad`, `Caps`, `Buffer`); every use
/// of this is a place where a wrapper could grow.
public enum PointerCast {
    /// `pointer` as an untyped `gpointer` (a GObject instance, user data).
    public static func raw<T>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(pointer)
    }

    /// `pointer` as the C type `type` it also is (GstElement → GstBin, GstPad → GstObject…).
    public static func cast<T, U>(_ pointer: UnsafeMutablePointer<T>, to type: U.Type) -> UnsafeMutablePointer<U> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: type)
    }
}
