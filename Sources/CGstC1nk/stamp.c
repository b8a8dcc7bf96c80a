/* c1nkstamp: GObject boilerplate. The drawing is Swift (FrameStamp, shared
 * with the simulated door's camera). */
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "elements.h"
#include "swift-entry.h"

#define C1NK_STAMP_FORMATS "{ I420, YV12, NV12, NV21, Y42B, Y444, GRAY8 }"

typedef struct {
  GstVideoFilter parent;
  guint64 sequence;
} C1nkStamp;

typedef struct {
  GstVideoFilterClass parent_class;
} C1nkStampClass;

G_DEFINE_TYPE(C1nkStamp, c1nk_stamp, GST_TYPE_VIDEO_FILTER)

static gboolean c1nk_stamp_start(GstBaseTransform *transform) {
  ((C1nkStamp *)transform)->sequence = 0;
  return TRUE;
}

static GstFlowReturn c1nk_stamp_transform_frame_ip(GstVideoFilter *filter, GstVideoFrame *frame) {
  C1nkStamp *self = (C1nkStamp *)filter;
  self->sequence++;
  c1nk_swift_stamp_frame(GST_VIDEO_FRAME_PLANE_DATA(frame, 0), GST_VIDEO_FRAME_PLANE_STRIDE(frame, 0),
                         GST_VIDEO_FRAME_WIDTH(frame), GST_VIDEO_FRAME_HEIGHT(frame), self->sequence);
  return GST_FLOW_OK;
}

static void c1nk_stamp_class_init(C1nkStampClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstCaps *caps = gst_caps_from_string(GST_VIDEO_CAPS_MAKE(C1NK_STAMP_FORMATS));
  gst_element_class_add_pad_template(element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template(element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref(caps);
  gst_element_class_set_static_metadata(element_class, "c1nk time stamp", "Filter/Effect/Video",
      "Draws the time of the monotonic clock (ms) and the frame's sequence number as two rows of black and "
      "white blocks near the bottom of each frame; c1nklatency reads them back after any coding, network or "
      "processing to measure glass-to-glass latency on one machine",
      C1NK_AUTHOR);
  GST_BASE_TRANSFORM_CLASS(klass)->start = c1nk_stamp_start;
  GST_VIDEO_FILTER_CLASS(klass)->transform_frame_ip = c1nk_stamp_transform_frame_ip;
}

static void c1nk_stamp_init(C1nkStamp *self) { (void)self; }
