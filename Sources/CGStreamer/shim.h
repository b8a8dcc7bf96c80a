/* The C surface of c1nk-gst: the headers Swift imports, plus static inline
 * wrappers for what Swift cannot call itself (macros, casts, variadic
 * functions). Keep it small: anything with logic belongs in Swift. */
#ifndef C1NK_SHIM_H
#define C1NK_SHIM_H

#define GST_USE_UNSTABLE_API 1
#include <glib.h>
#include <glib-unix.h>
#include <glib-object.h>
#include <gio/gio.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/pbutils/pbutils.h>
#include <gst/sdp/sdp.h>
#include <gst/video/video.h>
#include <gst/webrtc/webrtc.h>
#include <libsoup/soup.h>
#include <gst/controller/controller.h>
#include <gst/video/navigation.h>
#include <cairo.h>
#include <pango/pangocairo.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <linux/input.h>
#include <sys/ioctl.h>

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

/* "get-transceivers" returns a GArray of GstWebRTCRTPTransceiver*. */
static inline GArray *c1nk_emit_get_transceivers(gpointer webrtcbin) {
  GArray *result = NULL;
  g_signal_emit_by_name(webrtcbin, "get-transceivers", &result);
  return result;
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

/* ---- GStreamer debug categories: GST_CAT_* and gst_debug_log are macros/variadic ---- */

static inline GstDebugCategory *c1nk_debug_category_new(const char *name, const char *description) {
  return _gst_debug_category_new(name, 0, description);
}

static inline void c1nk_debug_log(GstDebugCategory *category, GstDebugLevel level,
                                  const char *file, const char *function, gint line,
                                  const char *message) {
  gst_debug_log(category, level, file, function, line, NULL, "%s", message);
}

/* ---- libsoup: soup_server_new is variadic ---- */

static inline SoupServer *c1nk_soup_server_new(const char *server_header) {
  return soup_server_new("server-header", server_header, NULL);
}

/* ---- Buffers and video frames: macros in the headers ---- */

/* Makes the probed buffer writable (copying it if shared) and puts it back into the probe info. */
static inline GstBuffer *c1nk_probe_writable_buffer(GstPadProbeInfo *info) {
  GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
  GST_PAD_PROBE_INFO_DATA(info) = buffer;
  return buffer;
}

static inline GstVideoMeta *c1nk_buffer_video_meta(GstBuffer *buffer) {
  return gst_buffer_get_video_meta(buffer);
}

/* ---- The wall display: Pango's scale is a macro ---- */

static inline int c1nk_pango_scale(void) { return PANGO_SCALE; }

/* EVIOCGABS is a macro: the range of an absolute axis of an input device. */
static inline int c1nk_evdev_abs_range(int fd, unsigned axis, int *minimum, int *maximum) {
  struct input_absinfo info;
  if (ioctl(fd, EVIOCGABS(axis), &info) < 0) return -1;
  *minimum = info.minimum;
  *maximum = info.maximum;
  return 0;
}

#endif
