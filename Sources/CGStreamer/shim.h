/* The C surface of c1nk-gst: the headers Swift imports, plus static inline
 * wrappers for what Swift cannot call itself (macros, casts, variadic
 * functions). Keep it small: anything with logic belongs in Swift. */
#ifndef C1NK_SHIM_H
#define C1NK_SHIM_H

#define GST_USE_UNSTABLE_API 1
/* GLib, GObject, GIO, libsoup and the helpers over them (the CGLib module). */
#include "../CGLib/glib_shim.h"
#include <glib.h>
#include <glib-unix.h>
#include <glib-object.h>
#include <gio/gio.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/pbutils/pbutils.h>
#include <gst/sdp/sdp.h>
#include <gst/rtp/rtp.h>
#include <gst/video/video.h>
#include <gst/webrtc/webrtc.h>
#include <gst/controller/controller.h>
#include <gst/video/navigation.h>
#include <linux/input.h>
#include <sys/ioctl.h>

/* "get-transceivers" returns a GArray of GstWebRTCRTPTransceiver*. */
static inline GArray *c1nk_emit_get_transceivers(gpointer webrtcbin) {
  GArray *result = NULL;
  g_signal_emit_by_name(webrtcbin, "get-transceivers", &result);
  return result;
}

/* "add-transceiver" (direction, caps) returns a new reference to the transceiver. */
static inline gpointer c1nk_emit_add_transceiver(gpointer webrtcbin, GstWebRTCRTPTransceiverDirection direction,
                                                 GstCaps *caps) {
  GstWebRTCRTPTransceiver *result = NULL;
  g_signal_emit_by_name(webrtcbin, "add-transceiver", direction, caps, &result);
  return result;
}

/* From the per-packet report rtpsession sends upstream after each
 * transport-wide feedback ("RTPTWCCPackets"): the largest one-way delay of
 * a received packet above the smallest ever seen (*minimum_offset, kept by
 * the caller between reports; start it at G_MAXINT64), in ms. FALSE when
 * the event is not such a report or holds no received packet. */
static inline gboolean c1nk_twcc_queue_delay(GstEvent *event, gint64 *minimum_offset, double *delay_ms) {
  const GstStructure *report = gst_event_get_structure(event);
  if (!report || !gst_structure_has_name(report, "RTPTWCCPackets")) return FALSE;
  const GValue *packets = gst_structure_get_value(report, "packets");
  if (!packets || !G_VALUE_HOLDS(packets, G_TYPE_VALUE_ARRAY)) return FALSE;
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GValueArray *array = g_value_get_boxed(packets);
  gint64 largest = G_MININT64;
  for (guint i = 0; array && i < array->n_values; i++) {
    const GstStructure *packet = gst_value_get_structure(g_value_array_get_nth(array, i));
    guint64 local = 0, remote = 0;
    gboolean lost = FALSE;
    gst_structure_get_boolean(packet, "lost", &lost);
    if (lost || !gst_structure_get_uint64(packet, "local-ts", &local) || !gst_structure_get_uint64(packet, "remote-ts", &remote) ||
        !GST_CLOCK_TIME_IS_VALID(local) || !GST_CLOCK_TIME_IS_VALID(remote)) continue;
    gint64 offset = (gint64)remote - (gint64)local;
    if (offset < *minimum_offset) *minimum_offset = offset;
    if (offset > largest) largest = offset;
  }
G_GNUC_END_IGNORE_DEPRECATIONS
  if (largest == G_MININT64) return FALSE;
  *delay_ms = (largest - *minimum_offset) / 1e6;
  return TRUE;
}

/* The figures of the last transport-wide congestion feedback a sender got
 * (the rtpsession element's "twcc-stats", 1.22): FALSE while there is none. */
static inline gboolean c1nk_twcc_stats(gpointer session, double *bitrate_sent, double *bitrate_received,
                                       double *loss_percent, double *delta_of_delta_ms) {
  GstStructure *stats = NULL;
  g_object_get(session, "twcc-stats", &stats, NULL);
  if (!stats) return FALSE;
  guint sent = 0, received = 0;
  gdouble loss = 0;
  gint64 delta = 0;
  gboolean ok = gst_structure_get_uint(stats, "bitrate-sent", &sent) && gst_structure_get_uint(stats, "bitrate-recv", &received);
  gst_structure_get_double(stats, "packet-loss-pct", &loss);
  if (!gst_structure_get_int64(stats, "avg-delta-of-delta", &delta) || delta == G_MININT64) delta = 0;
  gst_structure_free(stats);
  *bitrate_sent = sent;
  *bitrate_received = received;
  *loss_percent = loss;
  *delta_of_delta_ms = delta / 1e6;
  return ok && sent > 0;
}

/* ---- GStreamer type checks: GST_TYPE_* and GST_IS_* are macros ---- */

static inline GType c1nk_type_bin(void) { return GST_TYPE_BIN; }
static inline GType c1nk_type_caps(void) { return GST_TYPE_CAPS; }
static inline GType c1nk_type_element(void) { return GST_TYPE_ELEMENT; }

/* ---- GStreamer debug categories: GST_CAT_* and gst_debug_log are macros/variadic ---- */

static inline GstDebugCategory *c1nk_debug_category_new(const char *name, const char *description) {
  return _gst_debug_category_new(name, 0, description);
}

static inline void c1nk_debug_log(GstDebugCategory *category, GstDebugLevel level,
                                  const char *file, const char *function, gint line,
                                  const char *message) {
  gst_debug_log(category, level, file, function, line, NULL, "%s", message);
}

/* ---- Buffers and video frames: macros in the headers ---- */

/* Makes the probed buffer writable (copying it if shared) and puts it back into the probe info. */
static inline GstBuffer *c1nk_probe_writable_buffer(GstPadProbeInfo *info) {
  GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
  GST_PAD_PROBE_INFO_DATA(info) = buffer;
  return buffer;
}

/* Appends `size` bytes to the probed buffer (one more packet in a compound
 * RTCP packet) and puts the result back into the probe info. */
static inline void c1nk_probe_append_bytes(GstPadProbeInfo *info, const guint8 *bytes, gsize size) {
  GstBuffer *extra = gst_buffer_new_allocate(NULL, size, NULL);
  gst_buffer_fill(extra, 0, bytes, size);
  GST_PAD_PROBE_INFO_DATA(info) = gst_buffer_append(GST_PAD_PROBE_INFO_BUFFER(info), extra);
}

/* Asks an rtpsession element's session for an RTCP packet as soon as it may
 * send one (RTPSession's "send-rtcp" action; AVPF allows it early). */
static inline void c1nk_rtpsession_request_rtcp(GstElement *rtpsession) {
  GObject *session = NULL;
  g_object_get(rtpsession, "internal-session", &session, NULL);
  if (session == NULL) return;
  g_signal_emit_by_name(session, "send-rtcp", (guint64)0);
  g_object_unref(session);
}

static inline GstVideoMeta *c1nk_buffer_video_meta(GstBuffer *buffer) {
  return gst_buffer_get_video_meta(buffer);
}

/* EVIOCGABS is a macro: the range of an absolute axis of an input device. */
static inline int c1nk_evdev_abs_range(int fd, unsigned axis, int *minimum, int *maximum) {
  struct input_absinfo info;
  if (ioctl(fd, EVIOCGABS(axis), &info) < 0) return -1;
  *minimum = info.minimum;
  *maximum = info.maximum;
  return 0;
}

/* ---- Branch guard: a failing side branch (the recording) must not stop the call ----
 * An element error inside the branch makes its streaming thread return
 * GST_FLOW_ERROR upstream, and a tee passes that on to the whole pipeline.
 * The guard's bus sync handler sees the error in the posting thread, before
 * the flow return travels up, and from then on its pad probes at the branch's
 * entry drop buffers (so the tee gets GST_FLOW_OK). Plain C: it runs per
 * buffer. Elements are compared by address only, never dereferenced. */
typedef struct {
  gint failed;
  guint count;
  gpointer elements[32];
} C1nkBranchGuard;

static inline void c1nk_branch_guard_release(gpointer guard) { g_atomic_rc_box_release(guard); }

static inline GstBusSyncReply c1nk_branch_guard_sync(GstBus *bus, GstMessage *message, gpointer data) {
  (void)bus;
  C1nkBranchGuard *guard = data;
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR && GST_MESSAGE_SRC(message)) {
    for (guint i = 0; i < guard->count; i++) {
      if (GST_MESSAGE_SRC(message) == guard->elements[i] ||
          gst_object_has_as_ancestor(GST_MESSAGE_SRC(message), guard->elements[i])) {
        g_atomic_int_set(&guard->failed, 1);
      }
    }
  }
  return GST_BUS_PASS;
}

static inline GstPadProbeReturn c1nk_branch_guard_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
  (void)pad; (void)info;
  C1nkBranchGuard *guard = data;
  return g_atomic_int_get(&guard->failed) ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

/* A guard for `count` elements (at most 32) on `pipeline`'s bus; returns NULL
 * when the bus already has a sync handler. Released with the bus. */
static inline C1nkBranchGuard *c1nk_branch_guard_new(GstElement *pipeline, GstElement **elements, guint count) {
  C1nkBranchGuard *guard = g_atomic_rc_box_new0(C1nkBranchGuard);
  guard->count = MIN(count, 32);
  for (guint i = 0; i < guard->count; i++) guard->elements[i] = elements[i];
  GstBus *bus = gst_element_get_bus(pipeline);
  gst_bus_set_sync_handler(bus, c1nk_branch_guard_sync, guard, c1nk_branch_guard_release);
  gst_object_unref(bus);
  return guard;
}

/* Drops the buffers pushed through `pad` once the guard's branch failed. */
static inline gulong c1nk_branch_guard_add_probe(C1nkBranchGuard *guard, GstPad *pad) {
  return gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
                           c1nk_branch_guard_probe, g_atomic_rc_box_acquire(guard), c1nk_branch_guard_release);
}

static inline gboolean c1nk_branch_guard_failed(C1nkBranchGuard *guard) { return g_atomic_int_get(&guard->failed); }

/* ---- Untimed buffers before a muxer ----
 * A depayloader that finishes two frames from one RTP packet (rtph264depay
 * when a STAP-A closes one access unit and holds the next) stamps only the
 * first: the second has neither PTS nor DTS. Decoders cope; mp4mux does not
 * (it never picks that pad again, the queue before it fills, the tee blocks
 * and video stops for the whole call). The probe gives such a buffer the end
 * of the previous one on the same pad. Plain C: it runs per buffer. */
typedef struct { GstClockTime next; } C1nkUntimedStamp;

static inline GstBuffer *c1nk_untimed_stamp_buffer(C1nkUntimedStamp *state, GstBuffer *buffer) {
  if (!GST_BUFFER_PTS_IS_VALID(buffer) && !GST_BUFFER_DTS_IS_VALID(buffer) && GST_CLOCK_TIME_IS_VALID(state->next)) {
    buffer = gst_buffer_make_writable(buffer);
    GST_BUFFER_PTS(buffer) = state->next;
  }
  GstClockTime time = GST_BUFFER_DTS_OR_PTS(buffer);
  if (GST_CLOCK_TIME_IS_VALID(time)) {
    GstClockTime duration = GST_BUFFER_DURATION_IS_VALID(buffer) ? GST_BUFFER_DURATION(buffer) : 0;
    if (!GST_CLOCK_TIME_IS_VALID(state->next) || time + duration > state->next) state->next = time + duration;
  }
  return buffer;
}

static inline gboolean c1nk_untimed_stamp_list_item(GstBuffer **buffer, guint index, gpointer data) {
  (void)index;
  *buffer = c1nk_untimed_stamp_buffer(data, *buffer);
  return TRUE;
}

static inline GstPadProbeReturn c1nk_untimed_stamp_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
  (void)pad;
  C1nkUntimedStamp *state = data;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    info->data = c1nk_untimed_stamp_buffer(state, GST_PAD_PROBE_INFO_BUFFER(info));
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *list = gst_buffer_list_make_writable(GST_PAD_PROBE_INFO_BUFFER_LIST(info));
    gst_buffer_list_foreach(list, c1nk_untimed_stamp_list_item, state);
    info->data = list;
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEventType type = GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info));
    if (type == GST_EVENT_FLUSH_STOP || type == GST_EVENT_SEGMENT) state->next = GST_CLOCK_TIME_NONE;
  }
  return GST_PAD_PROBE_OK;
}

/* Stamps the untimed buffers that enter `pad` (a muxer's sink pad). */
static inline gulong c1nk_untimed_stamp_add_probe(GstPad *pad) {
  C1nkUntimedStamp *state = g_new0(C1nkUntimedStamp, 1);
  state->next = GST_CLOCK_TIME_NONE;
  return gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
                           c1nk_untimed_stamp_probe, state, g_free);
}

/* Starts an aggregator's output (audiomixer's) at `position`, a running
 * time, in a fresh time segment: what start-time-selection=set promises.
 * That property is applied when the first input buffer arrives; a live
 * aggregator that times out before (an input with no buffer yet) starts
 * at zero instead, and then mixes as fast as it can from zero to now.
 * For an aggregator that has not produced anything since it started. */
#include <gst/base/gstaggregator.h>
static inline void c1nk_aggregator_start_at(GstElement *element, GstClockTime position) {
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    segment.position = position;
    gst_aggregator_update_segment(GST_AGGREGATOR(element), &segment);
}

#endif
