#include "c1nk_display_input.h"

#include <gst/app/gstappsrc.h>
#include <gst/base/gstaggregator.h>
#include <gst/base/gstbasesink.h>

/* ---- The open channels ------------------------------------------------- */

typedef struct {
  gint refs;
  GstElement *appsrc;
  GstElement *mixer;
  GstPad *pad; /* the appsrc's src pad, where frames are stamped */
  gulong probe;
  GstClockTime frame;
  GstClockTime last; /* the last stamp; the display's streaming thread only */
} Input;

static GMutex inputs_lock;
static GHashTable *inputs; /* channel → Input */

static Input *
input_ref (Input *input)
{
  g_atomic_int_inc (&input->refs);
  return input;
}

static void
input_unref (gpointer data)
{
  Input *input = data;
  if (!g_atomic_int_dec_and_test (&input->refs))
    return;
  gst_object_unref (input->pad);
  gst_object_unref (input->appsrc);
  gst_object_unref (input->mixer);
  g_free (input);
}

/* The running time of the compositor's next output: where its last output
 * ended (or the current running time before the first one). */
static GstClockTime
next_output (Input *input)
{
  GstAggregatorPad *source = GST_AGGREGATOR_PAD (GST_AGGREGATOR (input->mixer)->srcpad);
  GST_OBJECT_LOCK (source);
  GstSegment *segment = &source->segment;
  GstClockTime running = GST_CLOCK_TIME_NONE;
  if (segment->format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID (segment->position))
    running = gst_segment_to_running_time (segment, GST_FORMAT_TIME, MAX (segment->position, segment->start));
  GST_OBJECT_UNLOCK (source);
  if (!GST_CLOCK_TIME_IS_VALID (running))
    running = gst_element_get_current_running_time (input->mixer);
  return running;
}

/* Stamps each frame for the compositor's next output, one display frame
 * long: the compositor (live, waiting for every pad) then composes it at
 * once. A frame that comes while the previous one still waits for its
 * output takes the output after it. */
static GstPadProbeReturn
stamp (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  Input *input = data;
  GstClockTime time = next_output (input);
  if (!GST_CLOCK_TIME_IS_VALID (time))
    return GST_PAD_PROBE_OK;
  if (GST_CLOCK_TIME_IS_VALID (input->last) && input->last + input->frame > time)
    time = input->last + input->frame;
  input->last = time;
  GstBuffer *buffer = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = buffer;
  GST_BUFFER_PTS (buffer) = time;
  GST_BUFFER_DTS (buffer) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buffer) = input->frame;
  return GST_PAD_PROBE_OK;
}

void
c1nk_display_input_open (const gchar *channel, GstElement *appsrc, GstElement *mixer, GstClockTime frame_duration)
{
  Input *input = g_new0 (Input, 1);
  input->refs = 1;
  input->appsrc = gst_object_ref (appsrc);
  input->mixer = gst_object_ref (mixer);
  input->pad = gst_element_get_static_pad (appsrc, "src");
  input->frame = frame_duration;
  input->last = GST_CLOCK_TIME_NONE;
  input->probe = gst_pad_add_probe (input->pad, GST_PAD_PROBE_TYPE_BUFFER, stamp, input_ref (input), input_unref);
  g_mutex_lock (&inputs_lock);
  if (!inputs)
    inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, input_unref);
  g_hash_table_replace (inputs, g_strdup (channel), input);
  g_mutex_unlock (&inputs_lock);
}

void
c1nk_display_input_close (const gchar *channel)
{
  g_mutex_lock (&inputs_lock);
  Input *input = inputs ? g_hash_table_lookup (inputs, channel) : NULL;
  if (input) {
    gst_pad_remove_probe (input->pad, input->probe);
    g_hash_table_remove (inputs, channel);
  }
  g_mutex_unlock (&inputs_lock);
}

/* The appsrc open under `channel`, referenced; NULL when none is. */
static GstElement *
lookup (const gchar *channel)
{
  GstElement *appsrc = NULL;
  g_mutex_lock (&inputs_lock);
  Input *input = inputs && channel ? g_hash_table_lookup (inputs, channel) : NULL;
  if (input)
    appsrc = gst_object_ref (input->appsrc);
  g_mutex_unlock (&inputs_lock);
  return appsrc;
}

/* ---- c1nkdisplayinput: the call's end of a channel --------------------- */

typedef struct {
  GstBaseSink parent;
  gchar *channel; /* under the object lock */
  GstCaps *caps;  /* streaming thread only */
} C1nkDisplayInputSink;

typedef struct {
  GstBaseSinkClass parent_class;
} C1nkDisplayInputSinkClass;

enum { PROP_0, PROP_CHANNEL };

GType c1nk_display_input_sink_get_type (void);
G_DEFINE_TYPE (C1nkDisplayInputSink, c1nk_display_input_sink, GST_TYPE_BASE_SINK)

/* The frames as the display composes them: BT.709 (its colorimetry, its
 * chroma siting). The pixels are not converted, only labelled: otherwise the
 * compositor converts every frame of an SD call (a decoder says BT.601 below
 * 720 rows), 2-4 % of a core at 640x480, where a sink fed by the call would
 * show the same pixels unconverted. */
static GstCaps *
as_displayed (GstCaps *caps)
{
  GstCaps *labelled = gst_caps_copy (caps);
  for (guint i = 0; i < gst_caps_get_size (labelled); i++) {
    GstStructure *structure = gst_caps_get_structure (labelled, i);
    gst_structure_set (structure, "colorimetry", G_TYPE_STRING, "bt709", NULL);
    gst_structure_remove_field (structure, "chroma-site");
  }
  return labelled;
}

static gboolean
set_caps (GstBaseSink *sink, GstCaps *caps)
{
  C1nkDisplayInputSink *self = (C1nkDisplayInputSink *) sink;
  GstCaps *labelled = as_displayed (caps);
  gst_caps_replace (&self->caps, labelled);
  gst_caps_unref (labelled);
  return TRUE;
}

static GstFlowReturn
render (GstBaseSink *sink, GstBuffer *buffer)
{
  C1nkDisplayInputSink *self = (C1nkDisplayInputSink *) sink;
  GST_OBJECT_LOCK (self);
  GstElement *appsrc = lookup (self->channel);
  GST_OBJECT_UNLOCK (self);
  if (!appsrc)
    return GST_FLOW_OK;
  GstCaps *current = gst_app_src_get_caps (GST_APP_SRC (appsrc));
  if (self->caps && (!current || !gst_caps_is_equal (current, self->caps)))
    gst_app_src_set_caps (GST_APP_SRC (appsrc), self->caps);
  if (current)
    gst_caps_unref (current);
  /* Never waits: the display's queue drops its oldest frame when full. */
  gst_app_src_push_buffer (GST_APP_SRC (appsrc), gst_buffer_ref (buffer));
  gst_object_unref (appsrc);
  return GST_FLOW_OK;
}

static void
set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  C1nkDisplayInputSink *self = (C1nkDisplayInputSink *) object;
  if (id != PROP_CHANNEL) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    return;
  }
  GST_OBJECT_LOCK (self);
  g_free (self->channel);
  self->channel = g_value_dup_string (value);
  GST_OBJECT_UNLOCK (self);
}

static void
get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  C1nkDisplayInputSink *self = (C1nkDisplayInputSink *) object;
  if (id != PROP_CHANNEL) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    return;
  }
  GST_OBJECT_LOCK (self);
  g_value_set_string (value, self->channel);
  GST_OBJECT_UNLOCK (self);
}

static void
finalize (GObject *object)
{
  C1nkDisplayInputSink *self = (C1nkDisplayInputSink *) object;
  g_free (self->channel);
  gst_caps_replace (&self->caps, NULL);
  G_OBJECT_CLASS (c1nk_display_input_sink_parent_class)->finalize (object);
}

static void
c1nk_display_input_sink_class_init (C1nkDisplayInputSinkClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS (klass);
  object_class->set_property = set_property;
  object_class->get_property = get_property;
  object_class->finalize = finalize;
  g_object_class_install_property (object_class, PROP_CHANNEL,
      g_param_spec_string ("channel", "Channel", "The wall display's input to send the frames to", NULL,
                           G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  GstCaps *caps = gst_caps_from_string ("video/x-raw");
  gst_element_class_add_pad_template (element_class, gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (element_class, "c1nk display input", "Sink/Video",
      "Hands a call's video to the wall display's compositor in the same process, frame by frame as decoded",
      "c1nk-gst");
  sink_class->set_caps = set_caps;
  sink_class->render = render;
}

static void
c1nk_display_input_sink_init (C1nkDisplayInputSink *self)
{
  /* Like a video sink: the frame is shown at once unless told to sync. */
  gst_base_sink_set_qos_enabled (GST_BASE_SINK (self), FALSE);
}

gboolean
c1nk_display_input_register (void)
{
  static gsize registered = 0;
  static gboolean result = FALSE;
  if (g_once_init_enter (&registered)) {
    result = gst_element_register (NULL, "c1nkdisplayinput", GST_RANK_NONE, c1nk_display_input_sink_get_type ());
    g_once_init_leave (&registered, 1);
  }
  return result;
}
