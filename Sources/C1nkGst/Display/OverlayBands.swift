/// Cuts a full-screen transparent picture down to the rectangles that have
/// ink (the door name, the open button, each round button and caption), at
/// most `limit` of them. Overlays then blend only those rectangles per frame:
/// blending is per pixel of the rectangle, transparent or not (a 1280x440
/// band costs a quarter of a core at 30 fps here; the open button alone 2.5 %).
enum OverlayBands {
    struct Band: Equatable {
        var x: Int, y: Int
        var picture: Picture
    }

    struct Box: Equatable {
        var x0: Int, y0: Int, x1: Int, y1: Int // inclusive
        func union(_ other: Box) -> Box {
            Box(x0: min(x0, other.x0), y0: min(y0, other.y0), x1: max(x1, other.x1), y1: max(y1, other.y1))
        }
        var area: Int { (x1 - x0 + 1) * (y1 - y0 + 1) }
    }

    static func split(_ picture: Picture, limit: Int = 6) -> [Band] {
        boxes(picture, limit: limit).map { crop(picture, $0) }
    }

    static func boxes(_ picture: Picture, limit: Int) -> [Box] {
        let width = picture.width, height = picture.height
        func ink(_ x: Int, _ y: Int) -> Bool { picture.bytes[(y * width + x) * 4 + 3] != 0 }
        // Rows with ink, grouped into bands separated by empty rows.
        var rowHasInk = [Bool](repeating: false, count: height)
        for y in 0..<height { rowHasInk[y] = (0..<width).contains { ink($0, y) } }
        var bands: [(Int, Int)] = []
        var y = 0
        while y < height {
            guard rowHasInk[y] else { y += 1; continue }
            let start = y
            while y < height && rowHasInk[y] { y += 1 }
            bands.append((start, y - 1))
        }
        // Each band into pieces separated by at least 8 empty columns.
        var perBand: [[Box]] = []
        for (top, bottom) in bands {
            var columns = [Bool](repeating: false, count: width)
            for x in 0..<width { columns[x] = (top...bottom).contains { ink(x, $0) } }
            var pieces: [Box] = []
            var x = 0
            while x < width {
                guard columns[x] else { x += 1; continue }
                let start = x
                var end = x
                while x < width {
                    if columns[x] { end = x; x += 1; continue }
                    var gap = x
                    while gap < width && !columns[gap] { gap += 1 }
                    if gap - x >= 8 || gap == width { break }
                    x = gap
                }
                pieces.append(Box(x0: start, y0: top, x1: end, y1: bottom))
                x = max(x, end + 1)
            }
            perBand.append(pieces)
        }
        var result = perBand.flatMap { $0 }
        if result.count > limit {
            // Too many: one box per band, then merge the closest bands.
            result = perBand.map { $0.dropFirst().reduce($0[0]) { $0.union($1) } }
            while result.count > limit {
                let index = (0..<(result.count - 1)).min { a, b in
                    result[a].union(result[a + 1]).area - result[a].area - result[a + 1].area
                        < result[b].union(result[b + 1]).area - result[b].area - result[b + 1].area
                }!
                result[index] = result[index].union(result[index + 1])
                result.remove(at: index + 1)
            }
        }
        return result
    }

    static func crop(_ picture: Picture, _ box: Box) -> Band {
        let bandWidth = box.x1 - box.x0 + 1, bandHeight = box.y1 - box.y0 + 1
        var bytes = [UInt8](repeating: 0, count: bandWidth * bandHeight * 4)
        for row in 0..<bandHeight {
            let source = ((box.y0 + row) * picture.width + box.x0) * 4
            bytes[(row * bandWidth * 4)..<((row + 1) * bandWidth * 4)] = picture.bytes[source..<(source + bandWidth * 4)]
        }
        return Band(x: box.x0, y: box.y0, picture: Picture(width: bandWidth, height: bandHeight, hasAlpha: true, bytes: bytes))
    }
}
