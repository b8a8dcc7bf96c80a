/* The part of cairo, Pango and gdk-pixbuf the wall display draws with,
 * opened with dlopen the first time it is used rather than linked: an
 * answerer without screens (a home server, --sink fakesink) then never maps
 * them, nor X11, fontconfig, FreeType and HarfBuzz behind them (2.8 MB
 * resident when idle).
 *
 * The declarations follow the libraries' public API (cairo 1.16, Pango
 * 1.50, gdk-pixbuf 2.42): each function here is a trampoline of the same
 * name and signature, hidden inside the binary, that calls the library's
 * own. Add a function to both lists (here and in screen_libraries.c). */
#ifndef C1NK_SCREEN_LIBRARIES_H
#define C1NK_SCREEN_LIBRARIES_H

typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
typedef struct _cairo_pattern cairo_pattern_t;
typedef enum _cairo_format { CAIRO_FORMAT_ARGB32 = 0, CAIRO_FORMAT_RGB24 = 1 } cairo_format_t;
typedef enum _cairo_line_join { CAIRO_LINE_JOIN_MITER = 0, CAIRO_LINE_JOIN_ROUND = 1 } cairo_line_join_t;
typedef enum _cairo_line_cap { CAIRO_LINE_CAP_BUTT = 0, CAIRO_LINE_CAP_ROUND = 1 } cairo_line_cap_t;

typedef struct _PangoLayout PangoLayout;
typedef struct _PangoFontDescription PangoFontDescription;
typedef struct _PangoAttrList PangoAttrList;
typedef struct _PangoAttribute PangoAttribute;
typedef struct _PangoRectangle { int x; int y; int width; int height; } PangoRectangle;
typedef enum { PANGO_ALIGN_LEFT = 0, PANGO_ALIGN_CENTER = 1, PANGO_ALIGN_RIGHT = 2 } PangoAlignment;
typedef enum { PANGO_ELLIPSIZE_NONE = 0, PANGO_ELLIPSIZE_END = 3 } PangoEllipsizeMode;
typedef enum { PANGO_WEIGHT_NORMAL = 400, PANGO_WEIGHT_MEDIUM = 500, PANGO_WEIGHT_SEMIBOLD = 600,
               PANGO_WEIGHT_BOLD = 700 } PangoWeight;

typedef struct _GdkPixbuf GdkPixbuf;
typedef enum { GDK_COLORSPACE_RGB = 0 } GdkColorspace;

/* Pango's unit: 1024 to a pixel (PANGO_SCALE). */
static inline int c1nk_pango_scale(void) { return 1024; }

/* Opens the libraries now, if not yet. 1 when they are there; 0 with
 * `*error` naming what is missing (a static string, valid for the process).
 * A trampoline used while they are missing ends the process with that. */
__attribute__((visibility("hidden"))) int c1nk_screen_libraries_load(const char **error);

#define C1NK_HIDDEN __attribute__((visibility("hidden")))

C1NK_HIDDEN cairo_surface_t *cairo_image_surface_create(cairo_format_t format, int width, int height);
C1NK_HIDDEN unsigned char *cairo_image_surface_get_data(cairo_surface_t *surface);
C1NK_HIDDEN int cairo_image_surface_get_stride(cairo_surface_t *surface);
C1NK_HIDDEN void cairo_surface_flush(cairo_surface_t *surface);
C1NK_HIDDEN void cairo_surface_destroy(cairo_surface_t *surface);
C1NK_HIDDEN cairo_t *cairo_create(cairo_surface_t *target);
C1NK_HIDDEN void cairo_destroy(cairo_t *cr);
C1NK_HIDDEN void cairo_save(cairo_t *cr);
C1NK_HIDDEN void cairo_restore(cairo_t *cr);
C1NK_HIDDEN void cairo_translate(cairo_t *cr, double tx, double ty);
C1NK_HIDDEN void cairo_scale(cairo_t *cr, double sx, double sy);
C1NK_HIDDEN void cairo_rotate(cairo_t *cr, double angle);
C1NK_HIDDEN void cairo_move_to(cairo_t *cr, double x, double y);
C1NK_HIDDEN void cairo_line_to(cairo_t *cr, double x, double y);
C1NK_HIDDEN void cairo_curve_to(cairo_t *cr, double x1, double y1, double x2, double y2, double x3, double y3);
C1NK_HIDDEN void cairo_arc(cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2);
C1NK_HIDDEN void cairo_rectangle(cairo_t *cr, double x, double y, double width, double height);
C1NK_HIDDEN void cairo_new_sub_path(cairo_t *cr);
C1NK_HIDDEN void cairo_close_path(cairo_t *cr);
C1NK_HIDDEN void cairo_clip(cairo_t *cr);
C1NK_HIDDEN void cairo_fill(cairo_t *cr);
C1NK_HIDDEN void cairo_stroke(cairo_t *cr);
C1NK_HIDDEN void cairo_paint(cairo_t *cr);
C1NK_HIDDEN void cairo_set_line_width(cairo_t *cr, double width);
C1NK_HIDDEN void cairo_set_line_join(cairo_t *cr, cairo_line_join_t line_join);
C1NK_HIDDEN void cairo_set_line_cap(cairo_t *cr, cairo_line_cap_t line_cap);
C1NK_HIDDEN void cairo_set_source_rgba(cairo_t *cr, double red, double green, double blue, double alpha);
C1NK_HIDDEN void cairo_set_source(cairo_t *cr, cairo_pattern_t *source);
C1NK_HIDDEN cairo_pattern_t *cairo_pattern_create_linear(double x0, double y0, double x1, double y1);
C1NK_HIDDEN void cairo_pattern_add_color_stop_rgba(cairo_pattern_t *pattern, double offset, double red, double green,
                                                   double blue, double alpha);
C1NK_HIDDEN void cairo_pattern_destroy(cairo_pattern_t *pattern);

C1NK_HIDDEN PangoLayout *pango_cairo_create_layout(cairo_t *cr);
C1NK_HIDDEN void pango_cairo_show_layout(cairo_t *cr, PangoLayout *layout);
C1NK_HIDDEN void pango_cairo_layout_path(cairo_t *cr, PangoLayout *layout);
C1NK_HIDDEN void pango_layout_set_text(PangoLayout *layout, const char *text, int length);
C1NK_HIDDEN void pango_layout_set_width(PangoLayout *layout, int width);
C1NK_HIDDEN void pango_layout_set_alignment(PangoLayout *layout, PangoAlignment alignment);
C1NK_HIDDEN void pango_layout_set_ellipsize(PangoLayout *layout, PangoEllipsizeMode ellipsize);
C1NK_HIDDEN void pango_layout_set_single_paragraph_mode(PangoLayout *layout, int setting);
C1NK_HIDDEN void pango_layout_set_font_description(PangoLayout *layout, const PangoFontDescription *desc);
C1NK_HIDDEN void pango_layout_set_attributes(PangoLayout *layout, PangoAttrList *attrs);
C1NK_HIDDEN void pango_layout_get_pixel_extents(PangoLayout *layout, PangoRectangle *ink_rect, PangoRectangle *logical_rect);
C1NK_HIDDEN PangoFontDescription *pango_font_description_new(void);
C1NK_HIDDEN void pango_font_description_free(PangoFontDescription *desc);
C1NK_HIDDEN void pango_font_description_set_family(PangoFontDescription *desc, const char *family);
C1NK_HIDDEN void pango_font_description_set_weight(PangoFontDescription *desc, PangoWeight weight);
C1NK_HIDDEN void pango_font_description_set_absolute_size(PangoFontDescription *desc, double size);
C1NK_HIDDEN PangoAttrList *pango_attr_list_new(void);
C1NK_HIDDEN void pango_attr_list_insert(PangoAttrList *list, PangoAttribute *attr);
C1NK_HIDDEN void pango_attr_list_unref(PangoAttrList *list);
C1NK_HIDDEN PangoAttribute *pango_attr_letter_spacing_new(int letter_spacing);

C1NK_HIDDEN GdkPixbuf *gdk_pixbuf_new(GdkColorspace colorspace, int has_alpha, int bits_per_sample, int width, int height);
C1NK_HIDDEN int gdk_pixbuf_get_rowstride(const GdkPixbuf *pixbuf);
C1NK_HIDDEN unsigned char *gdk_pixbuf_get_pixels(const GdkPixbuf *pixbuf);

#endif
