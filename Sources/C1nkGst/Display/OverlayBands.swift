/// Cuts a full-screen transparent picture down to the parts that have ink:
/// at most two bands (e.g. the door name at the top and the controls at the
/// bottom of the call screen), each trimmed left and right. The overlays
/// then blend only those rectangles per frame, not the whole screen.
enum OverlayBands {
    struct Band: Equatable {
        var x: Int, y: Int
        var picture: Picture
    }

    static func split(_ picture: Picture) -> [Band] {
        let width = picture.width, height = picture.height
        var rows: [(Int, Int)?] = Array(repeating: nil, count: height)
        picture.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<height {
                var low = Int.max, high = -1
                for x in 0..<width where bytes[(y * width + x) * 4 + 3] != 0 {
                    low = min(low, x)
                    high = x
                }
                if high >= 0 { rows[y] = (low, high) }
            }
        }
        guard let first = rows.firstIndex(where: { $0 != nil }), let last = rows.lastIndex(where: { $0 != nil }) else { return [] }
        // The longest run of empty rows between first and last.
        var gap = (start: 0, length: 0), run = 0
        for y in first...last {
            if rows[y] == nil { run += 1 } else {
                if run > gap.length { gap = (y - run, run) }
                run = 0
            }
        }
        let ranges = gap.length > height / 10 ? [first..<gap.start, (gap.start + gap.length)..<(last + 1)] : [first..<(last + 1)]
        return ranges.map { range in
            let spans = range.compactMap { rows[$0] }
            let x0 = spans.map(\.0).min()!, x1 = spans.map(\.1).max()!
            let bandWidth = x1 - x0 + 1
            var bytes = [UInt8](repeating: 0, count: bandWidth * range.count * 4)
            for (row, y) in range.enumerated() {
                let source = (y * width + x0) * 4
                bytes[(row * bandWidth * 4)..<((row + 1) * bandWidth * 4)] = picture.bytes[source..<(source + bandWidth * 4)]
            }
            return Band(x: x0, y: range.lowerBound, picture: Picture(width: bandWidth, height: range.count, hasAlpha: true, bytes: bytes))
        }
    }
}
