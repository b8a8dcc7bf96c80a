import C1nkGLib
import CGStreamer
import XCTest

final class ControlBindingTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    private func referenceCount(_ element: Element) -> UInt32 {
        element.pointer.withMemoryRebound(to: GObject.self, capacity: 1) { $0.pointee.ref_count }
    }

    func testABoundPropertyFollowsTheSourceUntilTheBindingIsReleased() throws {
        let volume = try XCTUnwrap(Element.make("volume"))
        let object = volume.pointer.withMemoryRebound(to: GstObject.self, capacity: 1) { $0 }
        let source = InterpolationControlSource()
        source.set(0.2, at: 0)
        source.set(0.8, at: 1_000_000_000)
        XCTAssertEqual(source.value(atSeconds: 0.5), 0.5, accuracy: 1e-9)
        var binding: ControlBinding? = ControlBinding(volume, property: "volume", source: source)
        XCTAssertNotEqual(gst_object_has_active_control_bindings(object), 0)
        _ = gst_object_sync_values(object, 250_000_000)
        XCTAssertEqual(volume[double: "volume"], 0.35, accuracy: 1e-6)
        XCTAssertEqual(referenceCount(volume), 1, "the binding does not keep the element")
        binding = nil
        XCTAssertEqual(gst_object_has_active_control_bindings(object), 0, "released, it is unbound")
        volume[double: "volume"] = 0.9
        _ = gst_object_sync_values(object, 250_000_000)
        XCTAssertEqual(volume[double: "volume"], 0.9, accuracy: 1e-6)
        withExtendedLifetime(binding) {}
    }
}
