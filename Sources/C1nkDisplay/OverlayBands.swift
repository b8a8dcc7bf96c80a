/// Cuts a full-screen transparent picture down to the rectangles where the
/// layout drew (the door name, the open button, each round button with its
/// caption), at most `limit` of them: premultiplied BGRA cuts for
/// `PictureBlend`, or a straight-alpha RGBA band for `gdkpixbufoverlay` (the
/// pulse). Only those rectangles are blended per frame: blending costs per
/// pixel of the rectangle, transparent or not. The boxes come from the
/// layout, so no pixel is scanned to find them.
enum OverlayBands {
    struct Band: Equatable {
        var x: Int, y: Int
        var width: Int, height: Int
        /// RGBA, straight alpha.
        var rgba: [UInt8]
    }

    /// A rectangle of a picture as it was drawn: BGRA, premultiplied alpha.
    struct Cut: Equatable {
        var x: Int, y: Int
        var width: Int, height: Int
        var bgra: [UInt8]
    }

    struct Box: Equatable {
        var x0: Int, y0: Int, x1: Int, y1: Int // exclusive ends
        func union(_ other: Box) -> Box {
            Box(x0: min(x0, other.x0), y0: min(y0, other.y0), x1: max(x1, other.x1), y1: max(y1, other.y1))
        }
        func intersects(_ other: Box) -> Bool { x0 < other.x1 && other.x0 < x1 && y0 < other.y1 && other.y0 < y1 }
        var area: Int { max(0, x1 - x0) * max(0, y1 - y0) }
    }

    /// The boxes of what `layout` draws over video, merged down to `limit`.
    static func boxes(_ layout: ScreenLayout, limit: Int) -> [Box] {
        let margin = 3 * layout.unit + 2
        var boxes: [Box] = layout.items.compactMap { item in
            var rect: ScreenLayout.Rect
            switch item {
            case .text(_, let r, _, _, _), .haloText(_, let r, _, _, _), .icon(_, let r, _), .fill(let r, _, _), .gradient(let r, _, _):
                rect = r
                rect.y -= rect.height * 0.25
                rect.height *= 1.5
            case .circle(let x, let y, let radius, _):
                rect = .init(x: x - radius, y: y - radius, width: 2 * radius, height: 2 * radius)
            case .button(let button):
                rect = button.frame
                if button.caption != nil {
                    rect = .init(x: rect.midX - 60 * layout.unit, y: rect.y, width: 120 * layout.unit,
                                 height: rect.height + 6 * layout.unit + 13 * layout.unit * 1.6)
                }
            }
            let box = Box(x0: max(0, Int(rect.x - margin)), y0: max(0, Int(rect.y - margin)),
                          x1: min(layout.width, Int((rect.maxX + margin).rounded(.up))), y1: min(layout.height, Int((rect.maxY + margin).rounded(.up))))
            return box.area > 0 ? box : nil
        }
        // Overlapping boxes become one; then the cheapest merges until few enough.
        var merged = true
        while merged {
            merged = false
            outer: for i in boxes.indices {
                for j in boxes.indices where j > i && boxes[i].intersects(boxes[j]) {
                    boxes[i] = boxes[i].union(boxes[j])
                    boxes.remove(at: j)
                    merged = true
                    break outer
                }
            }
        }
        while boxes.count > limit {
            var best = (0, 1, Int.max)
            for i in boxes.indices {
                for j in boxes.indices where j > i {
                    let cost = boxes[i].union(boxes[j]).area - boxes[i].area - boxes[j].area
                    if cost < best.2 { best = (i, j, cost) }
                }
            }
            boxes[best.0] = boxes[best.0].union(boxes[best.1])
            boxes.remove(at: best.1)
        }
        return boxes
    }

    static func cuts(_ picture: Picture, layout: ScreenLayout, limit: Int) -> [Cut] {
        boxes(layout, limit: limit).map { cut(picture, $0) }
    }

    /// The box of a premultiplied BGRA picture, rows copied as they are.
    static func cut(_ picture: Picture, _ box: Box) -> Cut {
        let cutWidth = box.x1 - box.x0, cutHeight = box.y1 - box.y0
        var bgra = [UInt8](repeating: 0, count: cutWidth * cutHeight * 4)
        picture.bytes.withUnsafeBytes { source in
            bgra.withUnsafeMutableBytes { target in
                for row in 0..<cutHeight {
                    (target.baseAddress! + row * cutWidth * 4)
                        .copyMemory(from: source.baseAddress! + ((box.y0 + row) * picture.width + box.x0) * 4, byteCount: cutWidth * 4)
                }
            }
        }
        return Cut(x: box.x0, y: box.y0, width: cutWidth, height: cutHeight, bgra: bgra)
    }

    /// The box of a premultiplied BGRA picture as straight-alpha RGBA.
    static func crop(_ picture: Picture, _ box: Box) -> Band {
        let cut = cut(picture, box)
        var rgba = cut.bgra
        rgba.withUnsafeMutableBufferPointer { pixels in
            for i in stride(from: 0, to: pixels.count, by: 4) {
                let a = Int(pixels[i + 3])
                let b = Int(pixels[i]), r = Int(pixels[i + 2])
                guard a != 0 else { continue }
                pixels[i] = UInt8(min(255, (r * 255 + a / 2) / a))
                pixels[i + 1] = UInt8(min(255, (Int(pixels[i + 1]) * 255 + a / 2) / a))
                pixels[i + 2] = UInt8(min(255, (b * 255 + a / 2) / a))
            }
        }
        return Band(x: cut.x, y: cut.y, width: cut.width, height: cut.height, rgba: rgba)
    }

    /// A whole premultiplied picture as one band (the pulse ring).
    static func whole(_ picture: Picture) -> Band {
        crop(picture, Box(x0: 0, y0: 0, x1: picture.width, y1: picture.height))
    }
}
