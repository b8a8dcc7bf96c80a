import C1nkGLib
import CGStreamer
import XCTest

final class GObjectReferenceTests: XCTestCase {
    func testAnObjectReferenceDropsItsReferenceWhenReleased() throws {
        let made = try XCTUnwrap(g_object_new_with_properties(g_object_get_type(), 0, nil, nil))
        let object = UnsafeMutableRawPointer(made)
        g_object_ref(object) // the test's own, to look at the count
        var reference: GObjectReference? = GObjectReference(adopting: OpaquePointer(made))
        XCTAssertEqual(reference?.withOpaque { UnsafeMutableRawPointer($0) }, object)
        XCTAssertEqual(object.assumingMemoryBound(to: GObject.self).pointee.ref_count, 2)
        reference = nil
        XCTAssertEqual(object.assumingMemoryBound(to: GObject.self).pointee.ref_count, 1)
        g_object_unref(object)
        withExtendedLifetime(reference) {}
    }
}
