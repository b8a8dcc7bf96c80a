import CGLib
import CGStreamer

/// Ghost and proxy pads: how a bin's boundary is crossed, inward to the
/// element a ghost pad stands for, outward from the element inside.
extension Pad {
    /// Whether it is a bin's ghost pad.
    public var isGhost: Bool { c1nk_object_is_a(object, gst_ghost_pad_get_type()) != 0 }

    /// Whether it is a proxy pad: a ghost pad, or the internal pad on the
    /// inner side of one.
    public var isProxy: Bool { c1nk_object_is_a(object, gst_proxy_pad_get_type()) != 0 }

    /// A ghost pad's target inside its bin; nil for another pad, or a ghost without one.
    public var ghostTarget: Pad? {
        guard isGhost else { return nil }
        return gst_ghost_pad_get_target(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstGhostPad.self))
            .map { Pad(adopting: $0) }
    }

    /// A proxy pad's twin across the bin's boundary (the ghost pad of an
    /// internal pad, the internal pad of a ghost); nil for another pad.
    public var internalPad: Pad? {
        guard isProxy else { return nil }
        return gst_proxy_pad_get_internal(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstProxyPad.self))
            .map { Pad(adopting: UnsafeMutableRawPointer($0).assumingMemoryBound(to: GstPad.self)) }
    }
}

extension Element {
    /// Gives this bin an active ghost pad `name` for `target`, a pad of an
    /// element inside it; false when the bin refuses it.
    @discardableResult
    public func addGhostPad(_ name: String, target: Pad) -> Bool {
        guard let ghost = gst_ghost_pad_new(name, target.pointer) else { return false }
        gst_pad_set_active(ghost, 1)
        return gst_element_add_pad(pointer, ghost) != 0 // takes the new pad's floating reference
    }
}
