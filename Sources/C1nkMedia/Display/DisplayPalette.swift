/// The C1nk colours (seed 000 §9.2), exactly.
public struct DisplayColor: Equatable, Sendable {
    public var red: Double, green: Double, blue: Double, alpha: Double

    public init(hex: UInt32, alpha: Double = 1) {
        red = Double((hex >> 16) & 0xFF) / 255
        green = Double((hex >> 8) & 0xFF) / 255
        blue = Double(hex & 0xFF) / 255
        self.alpha = alpha
    }

    public func opacity(_ alpha: Double) -> DisplayColor {
        var copy = self
        copy.alpha = alpha
        return copy
    }

    /// 8-bit red, green and blue, for pixel assertions.
    public var rgb: (UInt8, UInt8, UInt8) {
        (UInt8((red * 255).rounded()), UInt8((green * 255).rounded()), UInt8((blue * 255).rounded()))
    }

    public static let panel = DisplayColor(hex: 0x0A0C10)
    public static let surface = DisplayColor(hex: 0x0E1116)
    public static let surface2 = DisplayColor(hex: 0x13171E)
    public static let line = DisplayColor(hex: 0xFFFFFF, alpha: 0.14)
    public static let text = DisplayColor(hex: 0xF2F5F9)
    public static let textDim = DisplayColor(hex: 0x8B94A3)
    public static let green = DisplayColor(hex: 0x2AE98D)
    public static let greenDim = DisplayColor(hex: 0x1FBF73)
    public static let danger = DisplayColor(hex: 0xF05A5A)
    public static let black = DisplayColor(hex: 0x000000)
}

/// The type scale of seed §9.3 in points, set in Inter (Debian's fonts-inter;
/// the panel's Montserrat is not packaged), scaled to the display.
public struct DisplayFont: Equatable, Sendable {
    public enum Weight: Sendable { case medium, semibold, bold }
    public var size: Double
    public var weight: Weight
    /// Letter spacing in points (seed: 1.2 on overlines).
    public var tracking: Double = 0

    public static let display = DisplayFont(size: 28, weight: .bold)
    public static let title = DisplayFont(size: 20, weight: .semibold)
    public static let body = DisplayFont(size: 16, weight: .medium)
    public static let label = DisplayFont(size: 14, weight: .medium)
    public static let caption = DisplayFont(size: 13, weight: .medium)
    public static let overline = DisplayFont(size: 12, weight: .semibold, tracking: 1.2)

    public func scaled(_ factor: Double) -> DisplayFont {
        DisplayFont(size: size * factor, weight: weight, tracking: tracking * factor)
    }
}
