import CGLib
import CGStreamer

/// A GStreamer element that owns one reference and drops it in `deinit`.
///
/// Made from a factory (`Element.make`), adopted from a call that returns a
/// reference (`init(adopting:)`: `gst_bin_get_by_name`,
/// `gst_element_factory_make` once sunk), or retained from a borrowed
/// pointer (`init(retaining:)`: a signal's argument). `pointer` is borrowed:
/// valid while this object lives. Properties by type, signals as tokens
/// (`SignalConnection`), pads as `Pad`.
public class Element: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstElement>

    /// Takes a (non-floating) reference the caller owns.
    public required init(adopting pointer: UnsafeMutablePointer<GstElement>) {
        self.pointer = pointer
    }

    /// Adds a reference of its own (sinking a floating one).
    public convenience init(retaining pointer: UnsafeMutablePointer<GstElement>) {
        gst_object_ref_sink(UnsafeMutableRawPointer(pointer))
        self.init(adopting: pointer)
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// A new element of `factory`, or nil when that element is not installed.
    public static func make(_ factory: String, name: String? = nil) -> Self? {
        guard let made = gst_element_factory_make(factory, name) else { return nil }
        gst_object_ref_sink(UnsafeMutableRawPointer(made))
        return Self(adopting: made)
    }

    /// The element as an untyped GObject pointer (for `SignalConnection`, `ObjectProperty`).
    public var object: gpointer { UnsafeMutableRawPointer(pointer) }

    public var name: String {
        get { Gst.name(pointer) }
        set { gst_object_set_name(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self), newValue) }
    }

    /// The name of the factory that made it ("decodebin"), if any.
    public var factoryName: String? { Gst.factoryName(pointer) }

    /// Whether this element is a bin (then `asBin` gives it as one).
    public var isBin: Bool { c1nk_object_is_a(object, c1nk_type_bin()) != 0 }

    /// The same element as a `Bin`, when it is one.
    public var asBin: Bin? { isBin ? Bin(retaining: pointer) : nil }

    /// The containing bin, if any.
    public var parent: Element? {
        guard let parent = gst_object_get_parent(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self)) else { return nil }
        return Element(adopting: UnsafeMutableRawPointer(parent).assumingMemoryBound(to: GstElement.self))
    }

    // MARK: State

    /// Sets a state; false when the change failed at once.
    @discardableResult
    public func setState(_ state: GstState) -> Bool {
        gst_element_set_state(pointer, state) != GST_STATE_CHANGE_FAILURE
    }

    /// The current state (without waiting for a change in progress).
    public var currentState: GstState {
        var current = GST_STATE_VOID_PENDING
        var pending = GST_STATE_VOID_PENDING
        gst_element_get_state(pointer, &current, &pending, 0)
        return current
    }

    @discardableResult
    public func syncStateWithParent() -> Bool { gst_element_sync_state_with_parent(pointer) != 0 }

    /// Keeps (or stops keeping) the element out of its parent's state changes.
    public func setLockedState(_ locked: Bool) { gst_element_set_locked_state(pointer, locked ? 1 : 0) }

    // MARK: Pads and links

    public func staticPad(_ name: String) -> Pad? {
        gst_element_get_static_pad(pointer, name).map { Pad(adopting: $0) }
    }

    /// A pad from a request template ("sink_%u"); release it with `releaseRequestPad`.
    public func requestPad(_ template: String) -> Pad? {
        gst_element_request_pad_simple(pointer, template).map { Pad(adopting: $0) }
    }

    public func releaseRequestPad(_ pad: Pad) { gst_element_release_request_pad(pointer, pad.pointer) }

    /// Links this element's pads to `downstream`'s, as gst-launch's `!` does.
    @discardableResult
    public func link(_ downstream: Element) -> Bool { gst_element_link(pointer, downstream.pointer) != 0 }

    /// Links through a caps filter.
    @discardableResult
    public func link(_ downstream: Element, filter: Caps) -> Bool {
        gst_element_link_filtered(pointer, downstream.pointer, filter.pointer) != 0
    }

    public func unlink(_ downstream: Element) { gst_element_unlink(pointer, downstream.pointer) }

    // MARK: Events and messages

    /// Sends an event into the element; takes the event's reference.
    @discardableResult
    public func sendEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { gst_element_send_event(pointer, event) != 0 }

    /// Posts an element message with `structure` (taken) on the element's bus.
    @discardableResult
    public func postElementMessage(_ structure: UnsafeMutablePointer<GstStructure>) -> Bool {
        let message = gst_message_new_element(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self), structure)
        return gst_element_post_message(pointer, message) != 0
    }

    // MARK: Signals

    /// Connects a handler with no arguments; disconnects when the token is released.
    public func connect(_ signal: String, _ handler: @escaping () -> Void) -> SignalConnection {
        SignalConnection.connect(object, signal, handler)
    }

    /// Connects a handler with one pointer argument (a pad, an element…).
    public func connect(_ signal: String, _ handler: @escaping (gpointer?) -> Void) -> SignalConnection {
        SignalConnection.connect(object, signal, handler)
    }

    /// Connects a handler with two pointer arguments.
    public func connect(_ signal: String, _ handler: @escaping (gpointer?, gpointer?) -> Void) -> SignalConnection {
        SignalConnection.connect(object, signal, handler)
    }
}

extension Element: Equatable {
    /// The same GStreamer element.
    public static func == (lhs: Element, rhs: Element) -> Bool { lhs.pointer == rhs.pointer }
}
