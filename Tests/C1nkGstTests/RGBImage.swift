@testable import C1nkDisplay

/// An RGB frame read back from the display, for pixel facts (the display's
/// own tests, in C1nkDisplayTests, have the same).
struct RGBImage {
    let width: Int
    let height: Int
    let bytes: [UInt8]

    func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let stride = (width * 3 + 3) & ~3
        let i = y * stride + x * 3
        return (Int(bytes[i]), Int(bytes[i + 1]), Int(bytes[i + 2]))
    }

    /// The share of pixels within ±6 per channel of `color` (in `rect`).
    func fraction(of color: DisplayColor, in rect: ScreenLayout.Rect? = nil) -> Double {
        let r = rect ?? .init(x: 0, y: 0, width: Double(width), height: Double(height))
        let (cr, cg, cb) = color.rgb
        var hits = 0, total = 0
        for y in stride(from: max(0, Int(r.y)), to: min(height, Int(r.maxY)), by: 2) {
            for x in stride(from: max(0, Int(r.x)), to: min(width, Int(r.maxX)), by: 2) {
                let p = pixel(x, y)
                total += 1
                if abs(p.0 - Int(cr)) <= 6 && abs(p.1 - Int(cg)) <= 6 && abs(p.2 - Int(cb)) <= 6 { hits += 1 }
            }
        }
        return total == 0 ? 0 : Double(hits) / Double(total)
    }
}
