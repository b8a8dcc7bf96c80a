import CGStreamer
import CScreenLibraries
import FoundationEssentials

/// Paints a `ScreenLayout` with Cairo and Pango (Inter), once per state
/// change. The display pipeline composes the pictures with the door's video
/// natively, frame by frame.
enum ScreenPainter {
    /// The pictures of one layout: `base` (opaque, the panel and, on screens
    /// without video, everything else) and `overlay` (transparent, the items
    /// over the door's video; nil when the base carries them).
    struct Layers: Equatable, Sendable {
        var base: Picture
        var overlay: Picture?
    }

    static func paint(_ layout: ScreenLayout) -> Layers {
        let base = Canvas(width: layout.width, height: layout.height, alpha: false)
        base.setColor(.panel)
        cairo_paint(base.cr)
        switch layout.background {
        case .panel:
            draw(layout.items, on: base, unit: layout.unit)
            return Layers(base: base.picture(), overlay: nil)
        case .video:
            let overlay = Canvas(width: layout.width, height: layout.height, alpha: true)
            draw(layout.items, on: overlay, unit: layout.unit)
            return Layers(base: base.picture(), overlay: overlay.picture())
        }
    }

    /// The pulse ring at its largest size, which the pipeline scales
    /// and fades natively: a soft text-coloured ring, not a second green.
    static func pulseRing(diameter: Int) -> Picture {
        let size = max(8, diameter)
        let canvas = Canvas(width: size, height: size, alpha: true)
        let radius = Double(size) / 2
        canvas.setColor(DisplayColor.text.opacity(0.22))
        cairo_arc(canvas.cr, radius, radius, radius - 1, 0, 2 * Double.pi)
        cairo_fill(canvas.cr)
        canvas.setColor(DisplayColor.text.opacity(0.9))
        cairo_set_line_width(canvas.cr, max(2, Double(size) / 80))
        cairo_arc(canvas.cr, radius, radius, radius - max(2, Double(size) / 80), 0, 2 * Double.pi)
        cairo_stroke(canvas.cr)
        return canvas.picture()
    }

    // MARK: - Items

    static func draw(_ items: [ScreenLayout.Item], on canvas: Canvas, unit: Double) {
        let cr = canvas.cr
        for item in items {
            switch item {
            case let .fill(rect, color, radius):
                canvas.setColor(color)
                Icon.roundedRect(cr, x: rect.x, y: rect.y, width: rect.width, height: rect.height, radius: radius)
                cairo_fill(cr)
            case let .circle(x, y, radius, color):
                canvas.setColor(color)
                cairo_new_sub_path(cr)
                cairo_arc(cr, x, y, radius, 0, 2 * Double.pi)
                cairo_fill(cr)
            case let .gradient(rect, top, bottom):
                let pattern = cairo_pattern_create_linear(0, rect.y, 0, rect.maxY)!
                cairo_pattern_add_color_stop_rgba(pattern, 0, top.red, top.green, top.blue, top.alpha)
                cairo_pattern_add_color_stop_rgba(pattern, 1, bottom.red, bottom.green, bottom.blue, bottom.alpha)
                cairo_set_source(cr, pattern)
                cairo_rectangle(cr, rect.x, rect.y, rect.width, rect.height)
                cairo_fill(cr)
                cairo_pattern_destroy(pattern)
            case let .text(string, rect, font, color, alignment):
                TextPainter.draw(string, in: rect, font: font, color: color, alignment: alignment, on: canvas)
            case let .haloText(string, rect, font, color, alignment):
                TextPainter.draw(string, in: rect, font: font, color: color, alignment: alignment, halo: 2 * unit, on: canvas)
            case let .icon(icon, rect, color):
                canvas.setColor(color)
                icon.draw(cr, in: rect)
            case .button(let button):
                drawButton(button, on: canvas, unit: unit)
            }
        }
    }

    private static func drawButton(_ button: ScreenLayout.Button, on canvas: Canvas, unit: Double) {
        let cr = canvas.cr
        let frame = button.frame
        let fill: DisplayColor
        let ink: DisplayColor
        switch button.style {
        case .primary: (fill, ink) = (.green, .panel)
        case .danger: (fill, ink) = (.danger, .text)
        case .round(let active): (fill, ink) = active ? (.text, .panel) : (.surface2, .text)
        case .roundDanger: (fill, ink) = (.danger, .text)
        }
        canvas.setColor(fill)
        switch button.style {
        case .primary, .danger:
            Icon.roundedRect(cr, x: frame.x, y: frame.y, width: frame.width, height: frame.height, radius: 10 * unit)
        case .round, .roundDanger:
            cairo_new_sub_path(cr)
            cairo_arc(cr, frame.midX, frame.midY, frame.width / 2, 0, 2 * Double.pi)
        }
        cairo_fill(cr)

        let iconSize = 26 * unit
        guard let title = button.title else {
            canvas.setColor(ink)
            button.icon.draw(cr, in: .init(x: frame.midX - iconSize / 2, y: frame.midY - iconSize / 2, width: iconSize, height: iconSize))
            if let caption = button.caption {
                let font = DisplayFont.caption.scaled(unit)
                TextPainter.draw(caption, in: .init(x: frame.midX - 60 * unit, y: frame.maxY + 6 * unit, width: 120 * unit, height: font.size * 1.25),
                                 font: font, color: .text, alignment: .center, halo: 2 * unit, on: canvas)
            }
            return
        }
        let font = DisplayFont(size: 16, weight: .bold, tracking: 1.2).scaled(unit)
        let natural = TextPainter.width(of: title, font: font, on: canvas) + 2 * unit
        let padding = 16 * unit, gap = 10 * unit
        // The key hint sits at the right edge when the title still fits beside it.
        let hintWidth = 48 * unit
        let showHint = button.keyHint != nil && frame.width >= 2 * padding + iconSize + gap + natural + 2 * hintWidth
        let available = frame.width - 2 * padding - iconSize - gap
        let textWidth = min(max(1, available), natural)
        let start = frame.midX - (iconSize + gap + textWidth) / 2
        canvas.setColor(ink)
        button.icon.draw(cr, in: .init(x: start, y: frame.midY - iconSize / 2, width: iconSize, height: iconSize))
        TextPainter.draw(title, in: .init(x: start + iconSize + gap, y: frame.midY - font.size * 0.625, width: textWidth + 1, height: font.size * 1.25),
                         font: font, color: ink, alignment: .leading, on: canvas)
        if showHint, let hint = button.keyHint {
            let hintFont = DisplayFont.caption.scaled(unit)
            TextPainter.draw(hint, in: .init(x: frame.maxX - padding - hintWidth, y: frame.midY - hintFont.size * 0.625, width: hintWidth, height: hintFont.size * 1.25),
                             font: hintFont, color: ink.opacity(0.6), alignment: .trailing, on: canvas)
        }
    }
}
