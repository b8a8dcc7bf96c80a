import CGStreamer
import CScreenLibraries

/// A still picture for one layer of the display, in GStreamer's byte order:
/// `BGRx` (opaque) or `BGRA` with premultiplied alpha (Cairo's), rows of
/// `width × 4` bytes.
struct Picture: Equatable, Sendable {
    let width: Int
    let height: Int
    let hasAlpha: Bool
    let bytes: [UInt8]

    var format: String { hasAlpha ? "BGRA" : "BGRx" }

    /// Raw video caps that describe this picture.
    var caps: String {
        "video/x-raw,format=\(format),width=\(width),height=\(height),framerate=0/1,interlace-mode=progressive,pixel-aspect-ratio=1/1"
    }
}

/// A Cairo surface to draw one picture on (Swift, once per state change).
final class Canvas {
    let width: Int
    let height: Int
    let hasAlpha: Bool
    let surface: OpaquePointer
    let cr: OpaquePointer

    init(width: Int, height: Int, alpha: Bool) {
        self.width = width
        self.height = height
        hasAlpha = alpha
        surface = cairo_image_surface_create(alpha ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24, Int32(width), Int32(height))
        cr = cairo_create(surface)
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    func setColor(_ color: DisplayColor) {
        cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    }

    /// The finished picture, as Cairo keeps it: `BGRx`, or `BGRA` with
    /// premultiplied alpha (`OverlayBands` straightens the parts it uses).
    func picture() -> Picture {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        bytes.withUnsafeMutableBytes { out in
            if stride == width * 4 {
                out.baseAddress!.copyMemory(from: data, byteCount: width * height * 4)
            } else {
                for row in 0..<height {
                    (out.baseAddress! + row * width * 4).copyMemory(from: data + row * stride, byteCount: width * 4)
                }
            }
        }
        return Picture(width: width, height: height, hasAlpha: hasAlpha, bytes: bytes)
    }
}
