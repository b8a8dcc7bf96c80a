import C1nkGLib
import CGStreamer
import CPictureBlend

/// The screen's drawing over video: still pictures blended onto every display
/// frame by a C pad probe (`CPictureBlend`), set from Swift once per state
/// change. Blending in place costs a multiply and an add per pixel and plane;
/// `gdkpixbufoverlay`, which unpacks and repacks every row it touches, cost
/// about ten times that here.
final class PictureBlend {
    private let blend: OpaquePointer

    init() { blend = c1nk_picture_blend_new() }

    deinit { c1nk_picture_blend_unref(blend) }

    /// Blends onto every frame `pad` pushes (the probe keeps its own reference).
    func attach(to pad: Pad) {
        _ = c1nk_picture_blend_attach(blend, pad.pointer)
    }

    /// What to draw from the next frame on: premultiplied BGRA cuts, none to
    /// let the frames pass untouched.
    func show(_ cuts: [OverlayBands.Cut]) {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(cuts.reduce(0) { $0 + $1.bgra.count })
        for cut in cuts { pixels.append(contentsOf: cut.bgra) }
        pixels.withUnsafeBufferPointer { all in
            var offset = 0
            let pictures = cuts.map { cut in
                defer { offset += cut.bgra.count }
                return C1nkBlendPicture(x: gint(cut.x), y: gint(cut.y), width: gint(cut.width), height: gint(cut.height),
                                        bgra: all.baseAddress.map { $0 + offset })
            }
            c1nk_picture_blend_set(blend, guint(pictures.count), pictures) // copies the pixels
        }
    }
}
