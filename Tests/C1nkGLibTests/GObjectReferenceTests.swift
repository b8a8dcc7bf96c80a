import C1nkGLib
import CGStreamer
import XCTest

final class GObjectReferenceTests: XCTestCase {
    func testAnObjectReferenceDropsItsReferenceWhenReleased() throws {
        let made = try XCTUnwrap(gdk_pixbuf_new(GDK_COLORSPACE_RGB, 1, 8, 2, 2))
        let object = UnsafeMutableRawPointer(made)
        g_object_ref(object) // the test's own, to look at the count
        var reference: GObjectReference? = GObjectReference(adopting: made)
        XCTAssertEqual(reference?.withOpaque { gdk_pixbuf_get_width($0) }, 2)
        XCTAssertEqual(object.assumingMemoryBound(to: GObject.self).pointee.ref_count, 2)
        reference = nil
        XCTAssertEqual(object.assumingMemoryBound(to: GObject.self).pointee.ref_count, 1)
        g_object_unref(object)
        withExtendedLifetime(reference) {}
    }
}
