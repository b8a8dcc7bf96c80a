#include "test_decoders.h"

/* A bin around vp8dec whose sink probe either fails the stream after a
 * number of buffers or sleeps on each: what a failing or hung hardware
 * decoder does to a pipeline. Test-only: never part of a product. */

typedef struct {
    GstBin parent;
    guint fail_after;
    guint seen;
    gboolean hang;
} C1nkTestDecoder;

typedef struct {
    GstBinClass parent_class;
} C1nkTestDecoderClass;

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("video/x-vp8"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("video/x-raw"));

enum { PROP_0, PROP_FAIL_AFTER };

static GstPadProbeReturn on_buffer(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    C1nkTestDecoder *self = data;
    (void) pad;
    if (self->hang) {
        g_usleep(5 * G_USEC_PER_SEC);
        return GST_PAD_PROBE_OK;
    }
    if (++self->seen <= self->fail_after) return GST_PAD_PROBE_OK;
    if (self->seen == self->fail_after + 1)
        GST_ELEMENT_ERROR(self, STREAM, DECODE, ("the test decoder failed on purpose"), ("after %u frames", self->fail_after));
    GST_PAD_PROBE_INFO_FLOW_RETURN(info) = GST_FLOW_ERROR;
    gst_mini_object_unref(GST_PAD_PROBE_INFO_DATA(info));
    GST_PAD_PROBE_INFO_DATA(info) = NULL;
    return GST_PAD_PROBE_HANDLED;
}

static void set_property(GObject *object, guint id, const GValue *value, GParamSpec *spec) {
    C1nkTestDecoder *self = (C1nkTestDecoder *) object;
    if (id == PROP_FAIL_AFTER) self->fail_after = g_value_get_uint(value);
    else G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

static void get_property(GObject *object, guint id, GValue *value, GParamSpec *spec) {
    C1nkTestDecoder *self = (C1nkTestDecoder *) object;
    if (id == PROP_FAIL_AFTER) g_value_set_uint(value, self->fail_after);
    else G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

static void build(C1nkTestDecoder *self) {
    GstElement *decoder = gst_element_factory_make("vp8dec", NULL);
    gst_bin_add(GST_BIN(self), decoder);
    GstPad *sink = gst_element_get_static_pad(decoder, "sink");
    GstPad *src = gst_element_get_static_pad(decoder, "src");
    gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, self, NULL);
    gst_element_add_pad(GST_ELEMENT(self), gst_ghost_pad_new_from_template("sink", sink, gst_static_pad_template_get(&sink_template)));
    gst_element_add_pad(GST_ELEMENT(self), gst_ghost_pad_new_from_template("src", src, gst_static_pad_template_get(&src_template)));
    gst_object_unref(sink);
    gst_object_unref(src);
}

static void class_init_common(GstElementClass *element_class, const char *name, const char *what) {
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(element_class, name, "Codec/Decoder/Video/Hardware", what, "c1nk-gst tests");
}

/* The failing one. */
typedef C1nkTestDecoder C1nkFailingDecoder;
typedef C1nkTestDecoderClass C1nkFailingDecoderClass;
G_DEFINE_TYPE(C1nkFailingDecoder, c1nk_failing_decoder, GST_TYPE_BIN)

static void c1nk_failing_decoder_class_init(C1nkFailingDecoderClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->set_property = set_property;
    object_class->get_property = get_property;
    g_object_class_install_property(object_class, PROP_FAIL_AFTER,
        g_param_spec_uint("fail-after", "Fail after", "frames decoded before the error", 0, G_MAXUINT, 45,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
    class_init_common(GST_ELEMENT_CLASS(klass), "Failing VP8 decoder (test)", "decodes VP8, then fails");
}

static void c1nk_failing_decoder_init(C1nkFailingDecoder *self) {
    self->fail_after = 45;
    build(self);
}

/* The hanging one. */
typedef C1nkTestDecoder C1nkHangingDecoder;
typedef C1nkTestDecoderClass C1nkHangingDecoderClass;
G_DEFINE_TYPE(C1nkHangingDecoder, c1nk_hanging_decoder, GST_TYPE_BIN)

static void c1nk_hanging_decoder_class_init(C1nkHangingDecoderClass *klass) {
    class_init_common(GST_ELEMENT_CLASS(klass), "Hanging VP8 decoder (test)", "holds each frame for 5 s");
}

static void c1nk_hanging_decoder_init(C1nkHangingDecoder *self) {
    self->hang = TRUE;
    build(self);
}

void c1nk_test_decoders_register(void) {
    gst_element_register(NULL, "c1nkfailingvp8dec", GST_RANK_NONE, c1nk_failing_decoder_get_type());
    gst_element_register(NULL, "c1nkhangingvp8dec", GST_RANK_NONE, c1nk_hanging_decoder_get_type());
}
