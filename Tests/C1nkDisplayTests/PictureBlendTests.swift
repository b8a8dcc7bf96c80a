import CGStreamer
import CPictureBlend
import XCTest
@testable import C1nkGLib

/// The display's drawing over video (`CPictureBlend`): the colours it blends
/// onto I420 frames, and that a frame shared with someone else is copied
/// before it is drawn on.
final class PictureBlendTests: XCTestCase {
    /// The accent #2AE98D as Cairo keeps it (BGRA, premultiplied) at `alpha`.
    func accent(alpha: Int, count: Int) -> [UInt8] {
        let premultiplied = [0x8D, 0xE9, 0x2A].map { UInt8(($0 * alpha + 127) / 255) }
        return Array((0..<count).map { _ in premultiplied + [UInt8(alpha)] }.joined())
    }

    /// An 8×8 black I420 frame (Y 16, Cb/Cr 128) with `pictures` blended on it.
    func blendOntoBlack(_ pictures: [(x: Int, y: Int, width: Int, height: Int, alpha: Int)]) -> (y: [UInt8], cb: [UInt8], cr: [UInt8]) {
        let blend = c1nk_picture_blend_new()
        defer { c1nk_picture_blend_unref(blend) }
        let pixels = pictures.map { accent(alpha: $0.alpha, count: $0.width * $0.height) }
        var described: [C1nkBlendPicture] = []
        for (index, picture) in pictures.enumerated() {
            pixels[index].withUnsafeBufferPointer { bytes in
                described.append(C1nkBlendPicture(x: gint(picture.x), y: gint(picture.y), width: gint(picture.width),
                                                  height: gint(picture.height), bgra: bytes.baseAddress))
            }
        }
        // The pointers above are used while `pixels` is alive; set copies them.
        withExtendedLifetime(pixels) { c1nk_picture_blend_set(blend, guint(described.count), described) }
        var y = [UInt8](repeating: 16, count: 64), cb = [UInt8](repeating: 128, count: 16), cr = cb
        y.withUnsafeMutableBufferPointer { yp in
            cb.withUnsafeMutableBufferPointer { cbp in
                cr.withUnsafeMutableBufferPointer { crp in
                    var planes: [UnsafeMutablePointer<guint8>?] = [yp.baseAddress, cbp.baseAddress, crp.baseAddress]
                    let strides: [gint] = [8, 4, 4]
                    c1nk_picture_blend_frame(blend, &planes, strides, 8, 8)
                }
            }
        }
        return (y, cb, cr)
    }

    func testTheAccentIsBlendedInBT709() {
        // Opaque at (2,2) 4×2, half transparent at (2,6) 4×2.
        let frame = blendOntoBlack([(2, 2, 4, 2, 255), (2, 6, 4, 2, 128)])
        // #2AE98D in BT.709, limited range: Y 175.5, Cb 106.8, Cr 47.8.
        XCTAssertEqual(Double(frame.y[2 * 8 + 3]), 175.5, accuracy: 1)
        XCTAssertEqual(Double(frame.cb[1 * 4 + 1]), 106.8, accuracy: 1)
        XCTAssertEqual(Double(frame.cr[1 * 4 + 1]), 47.8, accuracy: 1)
        // Half of it over black: Y 16 + (175.5 − 16) × 128/255.
        XCTAssertEqual(Double(frame.y[6 * 8 + 3]), 16 + 159.5 * 128 / 255, accuracy: 1)
        // Outside the pictures the frame is untouched.
        XCTAssertEqual(frame.y[0], 16)
        XCTAssertEqual(frame.y[4 * 8 + 3], 16)
        XCTAssertEqual(frame.y[2 * 8 + 6], 16)
        XCTAssertEqual(frame.cb[0], 128)
    }

    func testAPictureAtAnOddPlaceOrPartlyOffTheFrame() {
        // x 3: aligned to 2 with a transparent column; the frame's edge cuts the rest.
        let frame = blendOntoBlack([(3, 1, 9, 3, 255)])
        XCTAssertEqual(frame.y[1 * 8 + 2], 16, "the column added for alignment is transparent")
        XCTAssertEqual(Double(frame.y[1 * 8 + 3]), 175.5, accuracy: 1)
        XCTAssertEqual(Double(frame.y[3 * 8 + 7]), 175.5, accuracy: 1)
        XCTAssertEqual(frame.y[4 * 8 + 7], 16)
        // Cb of the 2×2 block at (2,0)–(3,1): one of its four pixels drawn.
        XCTAssertEqual(Double(frame.cb[0 * 4 + 1]), 128 + (106.8 - 128) / 4, accuracy: 1)
    }

    /// A frame that another element still holds (intervideosrc keeps the
    /// call's last frame) is copied before the drawing goes on it.
    func testASharedFrameIsCopiedNotDrawnOn() throws {
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        let pipeline = try XCTUnwrap(gst_parse_launch(
            "appsrc name=src format=time caps=video/x-raw,format=I420,width=8,height=8,framerate=30/1 ! identity name=mark ! appsink name=out sync=false",
            &error))
        XCTAssertNil(error)
        defer { gst_element_set_state(pipeline, GST_STATE_NULL); gst_object_unref(UnsafeMutableRawPointer(pipeline)) }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        let mark = try XCTUnwrap(gst_bin_get_by_name(bin, "mark"))
        let source = try XCTUnwrap(gst_bin_get_by_name(bin, "src"))
        let sink = try XCTUnwrap(gst_bin_get_by_name(bin, "out"))
        defer { [mark, source, sink].forEach { gst_object_unref(UnsafeMutableRawPointer($0)) } }

        let blend = c1nk_picture_blend_new()
        defer { c1nk_picture_blend_unref(blend) }
        let pad = try XCTUnwrap(gst_element_get_static_pad(mark, "src"))
        _ = c1nk_picture_blend_attach(blend, pad)
        gst_object_unref(UnsafeMutableRawPointer(pad))
        let pixels = accent(alpha: 255, count: 8 * 8)
        pixels.withUnsafeBufferPointer { bytes in
            var picture = C1nkBlendPicture(x: 0, y: 0, width: 8, height: 8, bgra: bytes.baseAddress)
            c1nk_picture_blend_set(blend, 1, &picture)
        }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)

        let black = [UInt8](repeating: 16, count: 64) + [UInt8](repeating: 128, count: 32)
        let buffer = black.withUnsafeBytes { gst_buffer_new_memdup($0.baseAddress, gsize($0.count)) }!
        gst_mini_object_ref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self)) // still ours
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self)) }
        let appsrc = UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstAppSrc.self)
        XCTAssertEqual(gst_app_src_push_buffer(appsrc, buffer), GST_FLOW_OK)

        let appsink = UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstAppSink.self)
        let sample = try XCTUnwrap(gst_app_sink_try_pull_sample(appsink, 5_000_000_000), "no frame came through")
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(sample).assumingMemoryBound(to: GstMiniObject.self)) }
        let drawn = try XCTUnwrap(gst_sample_get_buffer(sample))
        XCTAssertNotEqual(drawn, buffer, "the shared frame was copied")
        var first: UInt8 = 0
        gst_buffer_extract(drawn, 0, &first, 1)
        XCTAssertEqual(Double(first), 175.5, accuracy: 1, "the copy carries the drawing")
        gst_buffer_extract(buffer, 0, &first, 1)
        XCTAssertEqual(first, 16, "the original is untouched")
    }
}
