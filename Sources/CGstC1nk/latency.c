/* c1nklatency: GObject boilerplate. Reading the stamps and the statistics
 * are Swift (FrameStamp, LatencyStats). */
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "elements.h"
#include "swift-entry.h"

#define C1NK_LATENCY_FORMATS "{ I420, YV12, NV12, NV21, Y42B, Y444, GRAY8 }"

typedef struct {
  GstVideoFilter parent;
  guint interval_ms;
  gpointer meter; /* the Swift LatencyMeter; streaming thread only */
} C1nkLatency;

typedef struct {
  GstVideoFilterClass parent_class;
} C1nkLatencyClass;

enum { PROP_0, PROP_REPORT_INTERVAL };

G_DEFINE_TYPE(C1nkLatency, c1nk_latency, GST_TYPE_VIDEO_FILTER)

static GstFlowReturn c1nk_latency_transform_frame_ip(GstVideoFilter *filter, GstVideoFrame *frame) {
  C1nkLatency *self = (C1nkLatency *)filter;
  GST_OBJECT_LOCK(self);
  guint interval = self->interval_ms;
  GST_OBJECT_UNLOCK(self);
  c1nk_swift_latency_frame(GST_ELEMENT(self), &self->meter, GST_VIDEO_FRAME_PLANE_DATA(frame, 0),
                           GST_VIDEO_FRAME_PLANE_STRIDE(frame, 0), GST_VIDEO_FRAME_WIDTH(frame),
                           GST_VIDEO_FRAME_HEIGHT(frame), interval);
  return GST_FLOW_OK;
}

static gboolean c1nk_latency_sink_event(GstBaseTransform *transform, GstEvent *event) {
  C1nkLatency *self = (C1nkLatency *)transform;
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS && self->meter) c1nk_swift_latency_finish(GST_ELEMENT(self), self->meter);
  return GST_BASE_TRANSFORM_CLASS(c1nk_latency_parent_class)->sink_event(transform, event);
}

static gboolean c1nk_latency_stop(GstBaseTransform *transform) {
  C1nkLatency *self = (C1nkLatency *)transform;
  if (self->meter) c1nk_swift_latency_free(self->meter);
  self->meter = NULL;
  return TRUE;
}

static void c1nk_latency_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  C1nkLatency *self = (C1nkLatency *)object;
  switch (id) {
  case PROP_REPORT_INTERVAL:
    GST_OBJECT_LOCK(self);
    self->interval_ms = g_value_get_uint(value);
    GST_OBJECT_UNLOCK(self);
    break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  }
}

static void c1nk_latency_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  C1nkLatency *self = (C1nkLatency *)object;
  switch (id) {
  case PROP_REPORT_INTERVAL:
    GST_OBJECT_LOCK(self);
    g_value_set_uint(value, self->interval_ms);
    GST_OBJECT_UNLOCK(self);
    break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  }
}

static void c1nk_latency_finalize(GObject *object) {
  C1nkLatency *self = (C1nkLatency *)object;
  if (self->meter) c1nk_swift_latency_free(self->meter);
  G_OBJECT_CLASS(c1nk_latency_parent_class)->finalize(object);
}

static void c1nk_latency_class_init(C1nkLatencyClass *klass) {
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *transform_class = GST_BASE_TRANSFORM_CLASS(klass);
  object_class->set_property = c1nk_latency_set_property;
  object_class->get_property = c1nk_latency_get_property;
  object_class->finalize = c1nk_latency_finalize;
  g_object_class_install_property(object_class, PROP_REPORT_INTERVAL,
      g_param_spec_uint("report-interval", "Report interval",
                        "Milliseconds between two c1nk-latency element messages on the bus (0: only one, at the "
                        "end of the stream, with the figures of the whole stream)",
                        0, 3600000, 1000, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  GstCaps *caps = gst_caps_from_string(GST_VIDEO_CAPS_MAKE(C1NK_LATENCY_FORMATS));
  gst_element_class_add_pad_template(element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template(element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref(caps);
  gst_element_class_set_static_metadata(element_class, "c1nk latency", "Filter/Analyzer/Video",
      "Reads the time stamp c1nkstamp drew into each frame and posts glass-to-glass latency statistics as "
      "element messages named c1nk-latency (fields: frames, unreadable, p50-ms, p95-ms, p99-ms, max-ms, "
      "intact, sent, longest-freeze-ms, final); frames pass unchanged",
      C1NK_AUTHOR);
  transform_class->passthrough_on_same_caps = TRUE;
  transform_class->transform_ip_on_passthrough = TRUE;
  transform_class->sink_event = c1nk_latency_sink_event;
  transform_class->stop = c1nk_latency_stop;
  GST_VIDEO_FILTER_CLASS(klass)->transform_frame_ip = c1nk_latency_transform_frame_ip;
}

static void c1nk_latency_init(C1nkLatency *self) { self->interval_ms = 1000; }
