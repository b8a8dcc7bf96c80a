import C1nkGLib
import CGStreamer
import XCTest

/// `Element.floatingReference()`: what a signal handler returns when its
/// emitter sinks the element (webrtcbin's `request-aux-sender`).
final class ElementFloatingTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    func testTheFloatingReferenceIsTheOneLeftWhenTheWrapperGoes() throws {
        var handedOut: gpointer?
        do {
            let bin = Bin(named: "aux")
            handedOut = bin.floatingReference()
        }
        let object = try XCTUnwrap(handedOut).assumingMemoryBound(to: GObject.self)
        XCTAssertNotEqual(g_object_is_floating(object), 0, "floating, as a fresh element is")
        XCTAssertEqual(object.pointee.ref_count, 1, "the wrapper dropped its own")
        // The emitter sinks it: then the element is its alone.
        let sunk = Element(retaining: UnsafeMutableRawPointer(object).assumingMemoryBound(to: GstElement.self))
        XCTAssertEqual(g_object_is_floating(object), 0)
        XCTAssertEqual(sunk.pointer.withMemoryRebound(to: GObject.self, capacity: 1) { $0.pointee.ref_count }, 1)
    }
}
