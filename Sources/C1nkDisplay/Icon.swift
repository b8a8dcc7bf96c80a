import CGStreamer
import CScreenLibraries
import FoundationEssentials

/// The display's icons, drawn as simple vector shapes in a 24-unit box
/// (the phone app's SF Symbols are Apple's and do not ship here).
enum Icon: String, Equatable, Sendable, CaseIterable {
    case phone, phoneDown, lock, lockOpen, mic, micSlash, house, bell

    /// Draws the icon filling `rect` in the current source colour.
    func draw(_ cr: OpaquePointer, in rect: ScreenLayout.Rect) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_translate(cr, rect.x, rect.y)
        cairo_scale(cr, rect.width / 24, rect.height / 24)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        switch self {
        case .phone:
            cairo_translate(cr, 12, 12)
            cairo_rotate(cr, -0.75 * Double.pi)
            Self.handset(cr)
        case .phoneDown:
            cairo_translate(cr, 12, 13)
            Self.handset(cr)
        case .lock, .lockOpen:
            Self.roundedRect(cr, x: 4.5, y: 11, width: 15, height: 10.5, radius: 2)
            cairo_fill(cr)
            cairo_set_line_width(cr, 2.4)
            if self == .lock {
                cairo_move_to(cr, 7.5, 11.5)
                cairo_line_to(cr, 7.5, 8)
                cairo_arc(cr, 12, 8, 4.5, Double.pi, 2 * Double.pi)
                cairo_line_to(cr, 16.5, 11.5)
            } else {
                cairo_move_to(cr, 16, 11.5)
                cairo_line_to(cr, 16, 6.5)
                cairo_arc(cr, 19.5 - 0.5, 6.5, 3.5, Double.pi, 2 * Double.pi)
                cairo_line_to(cr, 22.5, 8.5)
            }
            cairo_stroke(cr)
        case .mic, .micSlash:
            Self.roundedRect(cr, x: 9, y: 2.5, width: 6, height: 12, radius: 3)
            cairo_fill(cr)
            cairo_set_line_width(cr, 2)
            cairo_new_sub_path(cr)
            cairo_arc(cr, 12, 10.5, 6, 0, Double.pi)
            cairo_stroke(cr)
            cairo_move_to(cr, 12, 16.5)
            cairo_line_to(cr, 12, 20.5)
            cairo_move_to(cr, 8.5, 21)
            cairo_line_to(cr, 15.5, 21)
            cairo_stroke(cr)
            if self == .micSlash {
                cairo_set_line_width(cr, 2.4)
                cairo_move_to(cr, 4, 3.5)
                cairo_line_to(cr, 20, 20.5)
                cairo_stroke(cr)
            }
        case .house:
            let points: [(Double, Double)] = [(12, 2.5), (22.5, 12), (19.5, 12), (19.5, 21.5), (14.5, 21.5), (14.5, 15),
                                              (9.5, 15), (9.5, 21.5), (4.5, 21.5), (4.5, 12), (1.5, 12)]
            cairo_move_to(cr, points[0].0, points[0].1)
            for point in points.dropFirst() { cairo_line_to(cr, point.0, point.1) }
            cairo_close_path(cr)
            cairo_fill(cr)
        case .bell:
            cairo_move_to(cr, 4, 18)
            cairo_line_to(cr, 6, 15.5)
            cairo_line_to(cr, 6, 10.5)
            cairo_curve_to(cr, 6, 6.5, 8.7, 4, 12, 4)
            cairo_curve_to(cr, 15.3, 4, 18, 6.5, 18, 10.5)
            cairo_line_to(cr, 18, 15.5)
            cairo_line_to(cr, 20, 18)
            cairo_close_path(cr)
            cairo_fill(cr)
            cairo_arc(cr, 12, 20, 2.2, 0, 2 * Double.pi)
            cairo_fill(cr)
            cairo_arc(cr, 12, 3.2, 1.3, 0, 2 * Double.pi)
            cairo_fill(cr)
        }
    }

    /// A handset lying as an arch, ends down, centred on the origin.
    private static func handset(_ cr: OpaquePointer) {
        cairo_set_line_width(cr, 3.6)
        cairo_move_to(cr, -7.5, 1)
        cairo_curve_to(cr, -4.5, -5.5, 4.5, -5.5, 7.5, 1)
        cairo_stroke(cr)
        roundedRect(cr, x: -10.5, y: -0.5, width: 6.5, height: 5, radius: 1.8)
        cairo_fill(cr)
        roundedRect(cr, x: 4, y: -0.5, width: 6.5, height: 5, radius: 1.8)
        cairo_fill(cr)
    }

    static func roundedRect(_ cr: OpaquePointer, x: Double, y: Double, width: Double, height: Double, radius: Double) {
        let r = max(0, min(radius, width / 2, height / 2))
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + width - r, y + r, r, -Double.pi / 2, 0)
        cairo_arc(cr, x + width - r, y + height - r, r, 0, Double.pi / 2)
        cairo_arc(cr, x + r, y + height - r, r, Double.pi / 2, Double.pi)
        cairo_arc(cr, x + r, y + r, r, Double.pi, 1.5 * Double.pi)
        cairo_close_path(cr)
    }
}
