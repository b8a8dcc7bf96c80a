/* Trampolines into cairo, Pango and gdk-pixbuf, opened on first use
 * (screen_libraries.h says why). */
#include "screen_libraries.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Functions with a result: (result, name, parameters, arguments, library). */
#define C1NK_RETURNING(X)                                                                                   \
  X(cairo_surface_t *, cairo_image_surface_create, (cairo_format_t format, int width, int height),           \
    (format, width, height), CAIRO)                                                                          \
  X(unsigned char *, cairo_image_surface_get_data, (cairo_surface_t * surface), (surface), CAIRO)            \
  X(int, cairo_image_surface_get_stride, (cairo_surface_t * surface), (surface), CAIRO)                      \
  X(cairo_t *, cairo_create, (cairo_surface_t * target), (target), CAIRO)                                    \
  X(cairo_pattern_t *, cairo_pattern_create_linear, (double x0, double y0, double x1, double y1),            \
    (x0, y0, x1, y1), CAIRO)                                                                                 \
  X(PangoLayout *, pango_cairo_create_layout, (cairo_t * cr), (cr), PANGO)                                   \
  X(PangoFontDescription *, pango_font_description_new, (void), (), PANGO)                                   \
  X(PangoAttrList *, pango_attr_list_new, (void), (), PANGO)                                                 \
  X(PangoAttribute *, pango_attr_letter_spacing_new, (int letter_spacing), (letter_spacing), PANGO)          \
  X(GdkPixbuf *, gdk_pixbuf_new, (GdkColorspace colorspace, int has_alpha, int bits, int width, int height), \
    (colorspace, has_alpha, bits, width, height), PIXBUF)                                                    \
  X(int, gdk_pixbuf_get_rowstride, (const GdkPixbuf *pixbuf), (pixbuf), PIXBUF)                              \
  X(unsigned char *, gdk_pixbuf_get_pixels, (const GdkPixbuf *pixbuf), (pixbuf), PIXBUF)

/* Functions without one: (name, parameters, arguments, library). */
#define C1NK_VOID(X)                                                                                          \
  X(cairo_surface_flush, (cairo_surface_t * surface), (surface), CAIRO)                                       \
  X(cairo_surface_destroy, (cairo_surface_t * surface), (surface), CAIRO)                                     \
  X(cairo_destroy, (cairo_t * cr), (cr), CAIRO)                                                               \
  X(cairo_save, (cairo_t * cr), (cr), CAIRO)                                                                  \
  X(cairo_restore, (cairo_t * cr), (cr), CAIRO)                                                               \
  X(cairo_translate, (cairo_t * cr, double tx, double ty), (cr, tx, ty), CAIRO)                               \
  X(cairo_scale, (cairo_t * cr, double sx, double sy), (cr, sx, sy), CAIRO)                                   \
  X(cairo_rotate, (cairo_t * cr, double angle), (cr, angle), CAIRO)                                           \
  X(cairo_move_to, (cairo_t * cr, double x, double y), (cr, x, y), CAIRO)                                     \
  X(cairo_line_to, (cairo_t * cr, double x, double y), (cr, x, y), CAIRO)                                     \
  X(cairo_curve_to, (cairo_t * cr, double x1, double y1, double x2, double y2, double x3, double y3),          \
    (cr, x1, y1, x2, y2, x3, y3), CAIRO)                                                                      \
  X(cairo_arc, (cairo_t * cr, double xc, double yc, double radius, double angle1, double angle2),             \
    (cr, xc, yc, radius, angle1, angle2), CAIRO)                                                              \
  X(cairo_rectangle, (cairo_t * cr, double x, double y, double width, double height), (cr, x, y, width, height), \
    CAIRO)                                                                                                    \
  X(cairo_new_sub_path, (cairo_t * cr), (cr), CAIRO)                                                          \
  X(cairo_close_path, (cairo_t * cr), (cr), CAIRO)                                                            \
  X(cairo_clip, (cairo_t * cr), (cr), CAIRO)                                                                  \
  X(cairo_fill, (cairo_t * cr), (cr), CAIRO)                                                                  \
  X(cairo_stroke, (cairo_t * cr), (cr), CAIRO)                                                                \
  X(cairo_paint, (cairo_t * cr), (cr), CAIRO)                                                                 \
  X(cairo_set_line_width, (cairo_t * cr, double width), (cr, width), CAIRO)                                   \
  X(cairo_set_line_join, (cairo_t * cr, cairo_line_join_t line_join), (cr, line_join), CAIRO)                 \
  X(cairo_set_line_cap, (cairo_t * cr, cairo_line_cap_t line_cap), (cr, line_cap), CAIRO)                     \
  X(cairo_set_source_rgba, (cairo_t * cr, double red, double green, double blue, double alpha),               \
    (cr, red, green, blue, alpha), CAIRO)                                                                     \
  X(cairo_set_source, (cairo_t * cr, cairo_pattern_t * source), (cr, source), CAIRO)                          \
  X(cairo_pattern_add_color_stop_rgba,                                                                        \
    (cairo_pattern_t * pattern, double offset, double red, double green, double blue, double alpha),          \
    (pattern, offset, red, green, blue, alpha), CAIRO)                                                        \
  X(cairo_pattern_destroy, (cairo_pattern_t * pattern), (pattern), CAIRO)                                     \
  X(pango_cairo_show_layout, (cairo_t * cr, PangoLayout * layout), (cr, layout), PANGO)                       \
  X(pango_cairo_layout_path, (cairo_t * cr, PangoLayout * layout), (cr, layout), PANGO)                       \
  X(pango_layout_set_text, (PangoLayout * layout, const char *text, int length), (layout, text, length), PANGO) \
  X(pango_layout_set_width, (PangoLayout * layout, int width), (layout, width), PANGO)                        \
  X(pango_layout_set_alignment, (PangoLayout * layout, PangoAlignment alignment), (layout, alignment), PANGO)  \
  X(pango_layout_set_ellipsize, (PangoLayout * layout, PangoEllipsizeMode mode), (layout, mode), PANGO)       \
  X(pango_layout_set_single_paragraph_mode, (PangoLayout * layout, int setting), (layout, setting), PANGO)    \
  X(pango_layout_set_font_description, (PangoLayout * layout, const PangoFontDescription *desc),              \
    (layout, desc), PANGO)                                                                                    \
  X(pango_layout_set_attributes, (PangoLayout * layout, PangoAttrList * attrs), (layout, attrs), PANGO)       \
  X(pango_layout_get_pixel_extents, (PangoLayout * layout, PangoRectangle * ink, PangoRectangle * logical),   \
    (layout, ink, logical), PANGO)                                                                            \
  X(pango_font_description_free, (PangoFontDescription * desc), (desc), PANGO)                                \
  X(pango_font_description_set_family, (PangoFontDescription * desc, const char *family), (desc, family),     \
    PANGO)                                                                                                    \
  X(pango_font_description_set_weight, (PangoFontDescription * desc, PangoWeight weight), (desc, weight),     \
    PANGO)                                                                                                    \
  X(pango_font_description_set_absolute_size, (PangoFontDescription * desc, double size), (desc, size), PANGO) \
  X(pango_attr_list_insert, (PangoAttrList * list, PangoAttribute * attr), (list, attr), PANGO)               \
  X(pango_attr_list_unref, (PangoAttrList * list), (list), PANGO)

/* pangocairo's handle finds cairo's and Pango's functions too (its dependencies). */
#define C1NK_LIBRARY_CAIRO 0
#define C1NK_LIBRARY_PANGO 0
#define C1NK_LIBRARY_PIXBUF 1
static const char *const library_names[] = {"libpangocairo-1.0.so.0", "libgdk_pixbuf-2.0.so.0"};

static struct {
#define C1NK_POINTER_RETURNING(result, name, parameters, arguments, library) result(*name) parameters;
#define C1NK_POINTER_VOID(name, parameters, arguments, library) void(*name) parameters;
  C1NK_RETURNING(C1NK_POINTER_RETURNING)
  C1NK_VOID(C1NK_POINTER_VOID)
} real;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error;
static char load_error_text[512];

static void *find(void *const *handles, int library, const char *name) {
  void *found = dlsym(handles[library], name);
  if (found == NULL && load_error == NULL) {
    snprintf(load_error_text, sizeof load_error_text, "%s has no %s (cairo 1.16, Pango 1.50 or newer needed)",
             library_names[library], name);
    load_error = load_error_text;
  }
  return found;
}

static void load(void) {
  void *handles[2];
  for (int index = 0; index < 2; index++) {
    handles[index] = dlopen(library_names[index], RTLD_NOW | RTLD_LOCAL);
    if (handles[index] == NULL) {
      const char *why = dlerror();
      snprintf(load_error_text, sizeof load_error_text,
               "the screens draw with cairo, Pango and gdk-pixbuf: %s (sudo apt install libpangocairo-1.0-0 "
               "libgdk-pixbuf-2.0-0)",
               why ? why : library_names[index]);
      load_error = load_error_text;
      return;
    }
  }
#define C1NK_FIND_RETURNING(result, name, parameters, arguments, library) \
  *(void **)&real.name = find(handles, C1NK_LIBRARY_##library, #name);
#define C1NK_FIND_VOID(name, parameters, arguments, library) \
  *(void **)&real.name = find(handles, C1NK_LIBRARY_##library, #name);
  C1NK_RETURNING(C1NK_FIND_RETURNING)
  C1NK_VOID(C1NK_FIND_VOID)
}

int c1nk_screen_libraries_load(const char **error) {
  pthread_once(&load_once, load);
  if (load_error != NULL && error != NULL) *error = load_error;
  return load_error == NULL;
}

static void ensure_loaded(void) {
  const char *error = NULL;
  if (!c1nk_screen_libraries_load(&error)) {
    fprintf(stderr, "c1nk: %s\n", error);
    abort();
  }
}

#define C1NK_TRAMPOLINE_RETURNING(result, name, parameters, arguments, library) \
  result name parameters {                                                      \
    ensure_loaded();                                                            \
    return real.name arguments;                                                 \
  }
#define C1NK_TRAMPOLINE_VOID(name, parameters, arguments, library) \
  void name parameters {                                           \
    ensure_loaded();                                               \
    real.name arguments;                                           \
  }
C1NK_RETURNING(C1NK_TRAMPOLINE_RETURNING)
C1NK_VOID(C1NK_TRAMPOLINE_VOID)
