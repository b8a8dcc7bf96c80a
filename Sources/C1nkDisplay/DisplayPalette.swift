/// The C1nk colours, exactly: the panel and its surfaces, text and dimmed
/// text, the one green accent, danger.
struct DisplayColor: Equatable, Sendable {
    var red: Double, green: Double, blue: Double, alpha: Double

    init(hex: UInt32, alpha: Double = 1) {
        red = Double((hex >> 16) & 0xFF) / 255
        green = Double((hex >> 8) & 0xFF) / 255
        blue = Double(hex & 0xFF) / 255
        self.alpha = alpha
    }

    func opacity(_ alpha: Double) -> DisplayColor {
        var copy = self
        copy.alpha = alpha
        return copy
    }

    /// 8-bit red, green and blue, for pixel assertions.
    var rgb: (UInt8, UInt8, UInt8) {
        (UInt8((red * 255).rounded()), UInt8((green * 255).rounded()), UInt8((blue * 255).rounded()))
    }

    static let panel = DisplayColor(hex: 0x0A0C10)
    static let surface = DisplayColor(hex: 0x0E1116)
    static let surface2 = DisplayColor(hex: 0x13171E)
    static let line = DisplayColor(hex: 0xFFFFFF, alpha: 0.14)
    static let text = DisplayColor(hex: 0xF2F5F9)
    static let textDim = DisplayColor(hex: 0x8B94A3)
    static let green = DisplayColor(hex: 0x2AE98D)
    static let greenDim = DisplayColor(hex: 0x1FBF73)
    static let danger = DisplayColor(hex: 0xF05A5A)
    static let black = DisplayColor(hex: 0x000000)
}

/// The C1nk type scale in points, set in Inter (Debian's fonts-inter;
/// the panel's Montserrat is not packaged), scaled to the display.
struct DisplayFont: Equatable, Sendable {
    enum Weight: Sendable { case medium, semibold, bold }
    var size: Double
    var weight: Weight
    /// Letter spacing in points (1.2 on overlines).
    var tracking: Double = 0

    static let display = DisplayFont(size: 28, weight: .bold)
    static let title = DisplayFont(size: 20, weight: .semibold)
    static let body = DisplayFont(size: 16, weight: .medium)
    static let label = DisplayFont(size: 14, weight: .medium)
    static let caption = DisplayFont(size: 13, weight: .medium)
    static let overline = DisplayFont(size: 12, weight: .semibold, tracking: 1.2)

    func scaled(_ factor: Double) -> DisplayFont {
        DisplayFont(size: size * factor, weight: weight, tracking: tracking * factor)
    }
}
