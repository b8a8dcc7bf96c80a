/* The GLib half of c1nk-gst's C surface: GLib, GObject, GIO and libsoup,
 * plus static inline wrappers for what Swift cannot call (macros, variadic
 * functions). No GStreamer here: what links only this module (the local
 * signaling server) links no libgstreamer. */
#ifndef C1NK_GLIB_SHIM_H
#define C1NK_GLIB_SHIM_H

#include <glib.h>
#include <glib-unix.h>
#include <glib-object.h>
#include <gio/gio.h>
#include <libsoup/soup.h>

/* ---- GObject signals: g_signal_connect is a macro, emission is variadic ---- */

static inline gulong c1nk_signal_connect(gpointer instance, const char *signal,
                                         gpointer handler, gpointer data,
                                         GClosureNotify destroy) {
  return g_signal_connect_data(instance, signal, (GCallback)handler, data, destroy, 0);
}

static inline void c1nk_emit_pointer_pointer(gpointer instance, const char *signal,
                                             gpointer a, gpointer b) {
  g_signal_emit_by_name(instance, signal, a, b);
}

static inline void c1nk_emit_uint_string(gpointer instance, const char *signal,
                                         guint a, const char *b) {
  g_signal_emit_by_name(instance, signal, a, b);
}

static inline gboolean c1nk_emit_string_returns_bool(gpointer instance, const char *signal,
                                                     const char *value) {
  gboolean ok = FALSE;
  g_signal_emit_by_name(instance, signal, value, &ok);
  return ok;
}

/* ---- GObject properties of types Swift cannot set through strings ---- */

static inline void c1nk_object_set_pointer(gpointer object, const char *name, gpointer value) {
  g_object_set(object, name, value, NULL);
}

static inline gpointer c1nk_object_get_object(gpointer object, const char *name) {
  gpointer value = NULL;
  g_object_get(object, name, &value, NULL);
  return value;
}

static inline gint c1nk_object_get_int(gpointer object, const char *name) {
  gint value = 0;
  g_object_get(object, name, &value, NULL);
  return value;
}

static inline gchar *c1nk_object_get_string(gpointer object, const char *name) {
  gchar *value = NULL;
  g_object_get(object, name, &value, NULL);
  return value;
}

static inline gboolean c1nk_object_has_property(gpointer object, const char *name) {
  return g_object_class_find_property(G_OBJECT_GET_CLASS(object), name) != NULL;
}

static inline GType c1nk_object_type(gpointer object) { return G_OBJECT_TYPE(object); }

/* ---- GValue types by property: the G_TYPE_* constants are macros ---- */

static inline GType c1nk_property_type(gpointer object, const char *name) {
  GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
  return spec ? spec->value_type : G_TYPE_INVALID;
}
static inline GType c1nk_type_int64(void) { return G_TYPE_INT64; }
static inline GType c1nk_type_double(void) { return G_TYPE_DOUBLE; }
static inline GType c1nk_type_boolean(void) { return G_TYPE_BOOLEAN; }
static inline GType c1nk_type_string(void) { return G_TYPE_STRING; }
static inline gboolean c1nk_type_is_object(GType type) { return g_type_is_a(type, G_TYPE_OBJECT); }
static inline gboolean c1nk_object_is_a(gpointer object, GType type) { return G_TYPE_CHECK_INSTANCE_TYPE(object, type); }

/* ---- libsoup: soup_server_new is variadic ---- */

static inline SoupServer *c1nk_soup_server_new(const char *server_header) {
  return soup_server_new("server-header", server_header, NULL);
}

/* ThreadSanitizer annotations (no-ops unless the TSan runtime is linked:
 * the symbols are weak). GLib's GMutex is a futex, invisible to TSan, so an
 * object made on one thread and handed to a streaming thread through a GLib
 * or GStreamer lock (a pad probe, a signal) looks unordered. The maker calls
 * c1nk_tsan_release(object) once it is complete, the streaming side
 * c1nk_tsan_acquire(object) before reading it: that declares exactly the
 * hand-off the C lock performs, and no more. */
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));
static inline void c1nk_tsan_acquire(const void *addr) { if (__tsan_acquire) __tsan_acquire((void *)addr); }
static inline void c1nk_tsan_release(const void *addr) { if (__tsan_release) __tsan_release((void *)addr); }

/* Returns the free memory at the top of glibc's heaps (every arena) to the
 * system: malloc_trim(0). Returns 1 if some was released. */
#include <malloc.h>
static inline int c1nk_malloc_trim(void) { return malloc_trim(0); }
/* At most `count` malloc arenas (mallopt M_ARENA_MAX), for threads yet to allocate. */
static inline int c1nk_malloc_arena_max(int count) { return mallopt(M_ARENA_MAX, count); }
/* Bytes allocated with malloc and not freed (small chunks and mmapped ones). */
static inline size_t c1nk_malloc_in_use(void) { struct mallinfo2 m = mallinfo2(); return m.uordblks + m.hblkhd; }
/* Bytes malloc holds from the system (every arena, and mmapped chunks). */
static inline size_t c1nk_malloc_held(void) { struct mallinfo2 m = mallinfo2(); return m.arena + m.hblkhd; }

#endif
