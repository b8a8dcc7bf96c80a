import CGStreamer

/// A pad that owns one reference. Probes are closures (`addProbe`), run on
/// streaming threads: keep them to measurement and post the rest to the
/// main context.
public final class Pad: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstPad>

    /// Takes a reference the caller owns (`gst_element_get_static_pad`, …).
    public init(adopting pointer: UnsafeMutablePointer<GstPad>) { self.pointer = pointer }

    /// Adds a reference of its own to a borrowed pad (a signal's argument).
    public convenience init(retaining pointer: UnsafeMutablePointer<GstPad>) {
        gst_object_ref(UnsafeMutableRawPointer(pointer))
        self.init(adopting: pointer)
    }

    /// The pad behind a signal's `gpointer` argument (`pad-added`), retained.
    public convenience init?(retaining object: gpointer?) {
        guard let object else { return nil }
        self.init(retaining: object.assumingMemoryBound(to: GstPad.self))
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var name: String { Gst.name(pointer) }

    /// The element the pad belongs to.
    public var parent: Element? {
        gst_pad_get_parent_element(pointer).map { Element(adopting: $0) }
    }

    /// The pad it is linked to.
    public var peer: Pad? { gst_pad_get_peer(pointer).map { Pad(adopting: $0) } }

    public var isLinked: Bool { gst_pad_is_linked(pointer) != 0 }

    public var direction: GstPadDirection { gst_pad_get_direction(pointer) }

    @discardableResult
    public func link(_ sink: Pad) -> GstPadLinkReturn { gst_pad_link(pointer, sink.pointer) }

    @discardableResult
    public func unlink(_ sink: Pad) -> Bool { gst_pad_unlink(pointer, sink.pointer) != 0 }

    /// The negotiated caps, or what the pad could take when none are yet.
    public var caps: Caps? {
        (gst_pad_get_current_caps(pointer) ?? gst_pad_query_caps(pointer, nil)).map { Caps(adopting: $0) }
    }

    /// The negotiated caps only.
    public var currentCaps: Caps? { gst_pad_get_current_caps(pointer).map { Caps(adopting: $0) } }

    /// Sends an event through the pad (upstream on a sink pad); takes the event's reference.
    @discardableResult
    public func sendEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { gst_pad_send_event(pointer, event) != 0 }

    /// Pushes an event downstream from a source pad; takes the event's reference.
    @discardableResult
    public func pushEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { gst_pad_push_event(pointer, event) != 0 }

    /// Adds a probe; the id removes it (`removeProbe`).
    @discardableResult
    public func addProbe(_ mask: GstPadProbeType, _ callback: @escaping PadProbe.Callback) -> gulong {
        PadProbe.add(pointer, mask, callback)
    }

    public func removeProbe(_ id: gulong) { gst_pad_remove_probe(pointer, id) }

    /// Calls `body` on the main context when the first buffer passes.
    public func onFirstBuffer(_ body: @escaping () -> Void) { PadProbe.onFirstBuffer(pointer, body) }
}

extension Pad: Equatable {
    public static func == (lhs: Pad, rhs: Pad) -> Bool { lhs.pointer == rhs.pointer }
}
