import C1nkGLib
import CGStreamer
import CScreenLibraries

/// One line of text with Pango in Inter: cut with an ellipsis when it does
/// not fit (long names, emoji, right-to-left text alike), never wrapped,
/// never drawn outside its rectangle.
enum TextPainter {
    static func draw(_ string: String, in rect: ScreenLayout.Rect, font: DisplayFont, color: DisplayColor,
                     alignment: ScreenLayout.Alignment, halo: Double = 0, on canvas: Canvas) {
        let cr = canvas.cr
        makeLayout(cr, string, font: font)?.withOpaque { layout in
            let scale = Double(c1nk_pango_scale())
            pango_layout_set_width(layout, Int32(max(1, rect.width) * scale))
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
            switch alignment {
            case .leading: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
            case .center: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
            case .trailing: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
            }
            var ink = PangoRectangle()
            var logical = PangoRectangle()
            pango_layout_get_pixel_extents(layout, &ink, &logical)
            cairo_save(cr)
            defer { cairo_restore(cr) }
            cairo_rectangle(cr, rect.x, rect.y - rect.height * 0.25, rect.width, rect.height * 1.5)
            cairo_clip(cr)
            cairo_move_to(cr, rect.x, rect.y + (rect.height - Double(logical.height)) / 2)
            if halo > 0 {
                cairo_save(cr)
                pango_cairo_layout_path(cr, layout)
                canvas.setColor(DisplayColor.black.opacity(0.55))
                cairo_set_line_width(cr, halo)
                cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
                cairo_stroke(cr)
                cairo_restore(cr)
                cairo_move_to(cr, rect.x, rect.y + (rect.height - Double(logical.height)) / 2)
            }
            canvas.setColor(color)
            pango_cairo_show_layout(cr, layout)
        }
    }

    /// The natural width of `string` in pixels, as drawn on `canvas`.
    static func width(of string: String, font: DisplayFont, on canvas: Canvas) -> Double {
        makeLayout(canvas.cr, string, font: font)?.withOpaque { layout in
            var logical = PangoRectangle()
            pango_layout_get_pixel_extents(layout, nil, &logical)
            return Double(logical.width)
        } ?? 0
    }

    /// A layout of `string` as one line in `font`, for `cr`.
    private static func makeLayout(_ cr: OpaquePointer, _ string: String, font: DisplayFont) -> GObjectReference? {
        // Control characters (a newline in a door name) would break the line.
        let clean = String(string.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        guard let made = pango_cairo_create_layout(cr) else { return nil }
        let layout = GObjectReference(adopting: made)
        let description = pango_font_description_new()
        defer { pango_font_description_free(description) }
        pango_font_description_set_family(description, "Inter")
        switch font.weight {
        case .medium: pango_font_description_set_weight(description, PANGO_WEIGHT_MEDIUM)
        case .semibold: pango_font_description_set_weight(description, PANGO_WEIGHT_SEMIBOLD)
        case .bold: pango_font_description_set_weight(description, PANGO_WEIGHT_BOLD)
        }
        let scale = Double(c1nk_pango_scale())
        pango_font_description_set_absolute_size(description, max(1, font.size) * scale)
        pango_layout_set_font_description(made, description)
        pango_layout_set_single_paragraph_mode(made, 1)
        pango_layout_set_text(made, clean, -1)
        if font.tracking != 0 {
            let attributes = pango_attr_list_new()
            pango_attr_list_insert(attributes, pango_attr_letter_spacing_new(Int32(font.tracking * scale)))
            pango_layout_set_attributes(made, attributes)
            pango_attr_list_unref(attributes)
        }
        return layout
    }
}
