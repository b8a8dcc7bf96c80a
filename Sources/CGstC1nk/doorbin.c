/* c1nkdoorbin: GObject boilerplate of the element that answers a C1nk door.
 * Its behaviour is the answering core (Answerer), driven from Swift
 * (Sources/GstC1nk/Doorbin*.swift) on the plugin's own main context.
 *
 * Inside: intervideosrc and interaudiosrc feed the always src pads `video`
 * and `audio`; each call's pipeline renders into intervideosink and
 * interaudiosink of the same channels, so the pads keep flowing between
 * calls (black frames, silence). The request pad `mic` goes through
 * queue ! audioconvert ! audioresample into an interaudiosink that each call reads
 * with interaudiosrc. Channel names are unique per element instance. */
#include <gst/gst.h>
#include <unistd.h>
#include "elements.h"
#include "gstc1nk.h"
#include "swift-entry.h"

typedef struct {
  GstBin parent;
  GstElement *video_source, *audio_source;
  GstElement *mic_queue, *mic_convert, *mic_resample, *mic_sink;
  GstPad *mic_pad;
  gchar *video_channel, *audio_channel, *mic_channel;
  /* properties, under the object lock */
  gchar *server, *device_id_file, *trust_ca, *answer, *stun_server, *turn_server, *ice_local_ip, *door_name;
  gdouble answer_delay;
  gint latency, repair_window;
  gboolean started;
} C1nkDoorbin;

typedef struct {
  GstBinClass parent_class;
  void (*accept)(C1nkDoorbin *self);
  void (*reject)(C1nkDoorbin *self);
  void (*open_door)(C1nkDoorbin *self);
  void (*hangup)(C1nkDoorbin *self);
  void (*mute)(C1nkDoorbin *self, gboolean muted);
} C1nkDoorbinClass;

enum {
  PROP_0, PROP_SERVER, PROP_DEVICE_ID_FILE, PROP_TRUST_CA, PROP_ANSWER, PROP_ANSWER_DELAY, PROP_LATENCY,
  PROP_REPAIR_WINDOW, PROP_STUN_SERVER, PROP_TURN_SERVER, PROP_ICE_LOCAL_IP, PROP_DOOR_NAME
};

enum { SIGNAL_RINGING, SIGNAL_ENDED, SIGNAL_DOOR_OPENED, SIGNAL_ACCEPT, SIGNAL_REJECT, SIGNAL_OPEN_DOOR,
       SIGNAL_HANGUP, SIGNAL_MUTE, SIGNAL_COUNT };
static guint c1nk_doorbin_signals[SIGNAL_COUNT];

G_DEFINE_TYPE(C1nkDoorbin, c1nk_doorbin, GST_TYPE_BIN)

static GstStaticPadTemplate video_template =
    GST_STATIC_PAD_TEMPLATE("video", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw"));
static GstStaticPadTemplate audio_template =
    GST_STATIC_PAD_TEMPLATE("audio", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS("audio/x-raw"));
static GstStaticPadTemplate mic_template =
    GST_STATIC_PAD_TEMPLATE("mic", GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS("audio/x-raw"));

/* ---- properties ---- */

static gchar **c1nk_doorbin_string_slot(C1nkDoorbin *self, guint id) {
  switch (id) {
  case PROP_SERVER: return &self->server;
  case PROP_DEVICE_ID_FILE: return &self->device_id_file;
  case PROP_TRUST_CA: return &self->trust_ca;
  case PROP_ANSWER: return &self->answer;
  case PROP_STUN_SERVER: return &self->stun_server;
  case PROP_TURN_SERVER: return &self->turn_server;
  case PROP_ICE_LOCAL_IP: return &self->ice_local_ip;
  case PROP_DOOR_NAME: return &self->door_name;
  default: return NULL;
  }
}

static void c1nk_doorbin_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  C1nkDoorbin *self = (C1nkDoorbin *)object;
  GST_OBJECT_LOCK(self);
  gchar **slot = c1nk_doorbin_string_slot(self, id);
  if (slot) {
    g_free(*slot);
    *slot = g_value_dup_string(value);
  } else if (id == PROP_ANSWER_DELAY) {
    self->answer_delay = g_value_get_double(value);
  } else if (id == PROP_LATENCY) {
    self->latency = g_value_get_int(value);
  } else if (id == PROP_REPAIR_WINDOW) {
    self->repair_window = g_value_get_int(value);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  }
  GST_OBJECT_UNLOCK(self);
}

static void c1nk_doorbin_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  C1nkDoorbin *self = (C1nkDoorbin *)object;
  GST_OBJECT_LOCK(self);
  gchar **slot = c1nk_doorbin_string_slot(self, id);
  if (slot) {
    g_value_set_string(value, *slot);
  } else if (id == PROP_ANSWER_DELAY) {
    g_value_set_double(value, self->answer_delay);
  } else if (id == PROP_LATENCY) {
    g_value_set_int(value, self->latency);
  } else if (id == PROP_REPAIR_WINDOW) {
    g_value_set_int(value, self->repair_window);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  }
  GST_OBJECT_UNLOCK(self);
}

void c1nk_doorbin_set_door_name(void *doorbin, const char *name) {
  C1nkDoorbin *self = doorbin;
  GST_OBJECT_LOCK(self);
  g_free(self->door_name);
  self->door_name = g_strdup(name);
  GST_OBJECT_UNLOCK(self);
  g_object_notify(G_OBJECT(self), "door-name");
}

void c1nk_doorbin_emit(void *doorbin, const char *signal, const char *first, const char *second) {
  if (second) g_signal_emit_by_name(doorbin, signal, first, second);
  else g_signal_emit_by_name(doorbin, signal, first);
}

/* ---- action signals ---- */

static void c1nk_doorbin_accept(C1nkDoorbin *self) { c1nk_swift_doorbin_command(GST_ELEMENT(self), "accept"); }
static void c1nk_doorbin_reject(C1nkDoorbin *self) { c1nk_swift_doorbin_command(GST_ELEMENT(self), "reject"); }
static void c1nk_doorbin_open_door(C1nkDoorbin *self) { c1nk_swift_doorbin_command(GST_ELEMENT(self), "open"); }
static void c1nk_doorbin_hangup(C1nkDoorbin *self) { c1nk_swift_doorbin_command(GST_ELEMENT(self), "hangup"); }
static void c1nk_doorbin_mute(C1nkDoorbin *self, gboolean muted) {
  c1nk_swift_doorbin_command(GST_ELEMENT(self), muted ? "mute" : "unmute");
}

/* ---- the microphone pad ---- */

static GstPad *c1nk_doorbin_request_new_pad(GstElement *element, GstPadTemplate *templ, const gchar *name,
                                            const GstCaps *caps) {
  C1nkDoorbin *self = (C1nkDoorbin *)element;
  (void)name; (void)caps;
  if (self->mic_pad) {
    GST_WARNING_OBJECT(self, "the mic pad is requested already: one microphone per element");
    return NULL;
  }
  /* The queue lets the pipeline's latency (interaudiosrc reports 100 ms) be buffered on this branch too. */
  GstElement *queue = gst_element_factory_make("queue", NULL);
  GstElement *convert = gst_element_factory_make("audioconvert", NULL);
  GstElement *resample = gst_element_factory_make("audioresample", NULL);
  GstElement *sink = gst_element_factory_make("interaudiosink", NULL);
  if (!queue || !convert || !resample || !sink) {
    GST_ELEMENT_ERROR(self, CORE, MISSING_PLUGIN,
                      ("the mic pad needs audioconvert, audioresample (gstreamer1.0-plugins-base) and "
                       "interaudiosink (gstreamer1.0-plugins-bad)"), (NULL));
    if (queue) gst_object_unref(queue);
    if (convert) gst_object_unref(convert);
    if (resample) gst_object_unref(resample);
    if (sink) gst_object_unref(sink);
    return NULL;
  }
  /* Not synchronised: the microphone is a live source, and the call reads the channel at its own pace. */
  g_object_set(sink, "channel", self->mic_channel, "sync", FALSE, NULL);
  gst_bin_add_many(GST_BIN(self), queue, convert, resample, sink, NULL);
  gst_element_link_many(queue, convert, resample, sink, NULL);
  gst_element_sync_state_with_parent(queue);
  gst_element_sync_state_with_parent(convert);
  gst_element_sync_state_with_parent(resample);
  gst_element_sync_state_with_parent(sink);
  GstPad *target = gst_element_get_static_pad(queue, "sink");
  GstPad *pad = gst_ghost_pad_new_from_template("mic", target, templ);
  gst_object_unref(target);
  gst_pad_set_active(pad, TRUE);
  gst_element_add_pad(element, pad);
  self->mic_queue = gst_object_ref(queue);
  self->mic_convert = gst_object_ref(convert);
  self->mic_resample = gst_object_ref(resample);
  self->mic_sink = gst_object_ref(sink);
  self->mic_pad = pad;
  return pad;
}

static void c1nk_doorbin_release_pad(GstElement *element, GstPad *pad) {
  C1nkDoorbin *self = (C1nkDoorbin *)element;
  if (pad != self->mic_pad) return;
  gst_element_remove_pad(element, pad);
  self->mic_pad = NULL;
  GstElement *elements[] = {self->mic_queue, self->mic_convert, self->mic_resample, self->mic_sink};
  for (guint i = 0; i < G_N_ELEMENTS(elements); i++) {
    /* At dispose the bin has dropped its children already: ours are held by a reference of their own. */
    if (GST_OBJECT_PARENT(elements[i]) == GST_OBJECT(self)) {
      gst_element_set_locked_state(elements[i], TRUE);
      gst_element_set_state(elements[i], GST_STATE_NULL);
      gst_bin_remove(GST_BIN(self), elements[i]);
    }
    gst_object_unref(elements[i]);
  }
  self->mic_queue = self->mic_convert = self->mic_resample = self->mic_sink = NULL;
}

/* ---- states ---- */

static GstStateChangeReturn c1nk_doorbin_change_state(GstElement *element, GstStateChange transition) {
  C1nkDoorbin *self = (C1nkDoorbin *)element;
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    if (!self->video_source || !self->audio_source) {
      GST_ELEMENT_ERROR(self, CORE, MISSING_PLUGIN,
                        ("c1nkdoorbin needs intervideosrc and interaudiosrc: install gstreamer1.0-plugins-bad"), (NULL));
      return GST_STATE_CHANGE_FAILURE;
    }
    char *error = NULL;
    if (!c1nk_swift_doorbin_start(element, self->video_channel, self->audio_channel, self->mic_channel, &error)) {
      GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", error ? error : "c1nkdoorbin could not start"), (NULL));
      g_free(error);
      return GST_STATE_CHANGE_FAILURE;
    }
    self->started = TRUE;
  }
  GstStateChangeReturn result = GST_ELEMENT_CLASS(c1nk_doorbin_parent_class)->change_state(element, transition);
  if ((transition == GST_STATE_CHANGE_READY_TO_NULL ||
       (transition == GST_STATE_CHANGE_NULL_TO_READY && result == GST_STATE_CHANGE_FAILURE)) && self->started) {
    c1nk_swift_doorbin_stop(element);
    self->started = FALSE;
  }
  return result;
}

/* ---- life ---- */

/* A src pad left unlinked drops what reaches it, rather than stopping the
 * pipeline with not-linked: `c1nkdoorbin ! fakesink` takes the video alone. */
static GstFlowReturn c1nk_doorbin_chain(GstPad *pad, GstObject *parent, GstBuffer *buffer) {
  GstFlowReturn result = gst_proxy_pad_chain_default(pad, parent, buffer);
  return result == GST_FLOW_NOT_LINKED ? GST_FLOW_OK : result;
}

static GstFlowReturn c1nk_doorbin_chain_list(GstPad *pad, GstObject *parent, GstBufferList *list) {
  GstFlowReturn result = gst_proxy_pad_chain_list_default(pad, parent, list);
  return result == GST_FLOW_NOT_LINKED ? GST_FLOW_OK : result;
}

static GstElement *c1nk_doorbin_add_source(C1nkDoorbin *self, const char *factory, const char *channel,
                                           const char *pad_name, GstStaticPadTemplate *templ) {
  GstElement *source = gst_element_factory_make(factory, NULL);
  GstPad *ghost;
  if (source) {
    g_object_set(source, "channel", channel, NULL);
    gst_bin_add(GST_BIN(self), source);
    GstPad *target = gst_element_get_static_pad(source, "src");
    ghost = gst_ghost_pad_new_from_template(pad_name, target, gst_static_pad_template_get(templ));
    gst_object_unref(target);
    GstProxyPad *internal = gst_proxy_pad_get_internal(GST_PROXY_PAD(ghost));
    gst_pad_set_chain_function(GST_PAD(internal), c1nk_doorbin_chain);
    gst_pad_set_chain_list_function(GST_PAD(internal), c1nk_doorbin_chain_list);
    gst_object_unref(internal);
  } else {
    ghost = gst_ghost_pad_new_no_target_from_template(pad_name, gst_static_pad_template_get(templ));
  }
  gst_element_add_pad(GST_ELEMENT(self), ghost);
  return source;
}

static void c1nk_doorbin_init(C1nkDoorbin *self) {
  static gint instances = 0;
  gint number = g_atomic_int_add(&instances, 1);
  guint pid = (guint)getpid();
  self->video_channel = g_strdup_printf("c1nkdoorbin-%u-%d-video", pid, number);
  self->audio_channel = g_strdup_printf("c1nkdoorbin-%u-%d-audio", pid, number);
  self->mic_channel = g_strdup_printf("c1nkdoorbin-%u-%d-mic", pid, number);
  self->answer = g_strdup("manual");
  self->latency = 20;
  self->repair_window = 100;
  self->video_source = c1nk_doorbin_add_source(self, "intervideosrc", self->video_channel, "video", &video_template);
  self->audio_source = c1nk_doorbin_add_source(self, "interaudiosrc", self->audio_channel, "audio", &audio_template);
}

static void c1nk_doorbin_finalize(GObject *object) {
  C1nkDoorbin *self = (C1nkDoorbin *)object;
  g_free(self->video_channel);
  g_free(self->audio_channel);
  g_free(self->mic_channel);
  for (guint id = PROP_SERVER; id <= PROP_DOOR_NAME; id++) {
    gchar **slot = c1nk_doorbin_string_slot(self, id);
    if (slot) g_free(*slot);
  }
  G_OBJECT_CLASS(c1nk_doorbin_parent_class)->finalize(object);
}

static void c1nk_doorbin_install_string(GObjectClass *klass, guint id, const char *name, const char *nick,
                                        const char *blurb, const char *fallback, GParamFlags access) {
  g_object_class_install_property(klass, id, g_param_spec_string(name, nick, blurb, fallback,
                                                                 access | G_PARAM_STATIC_STRINGS));
}

static void c1nk_doorbin_class_init(C1nkDoorbinClass *klass) {
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  object_class->set_property = c1nk_doorbin_set_property;
  object_class->get_property = c1nk_doorbin_get_property;
  object_class->finalize = c1nk_doorbin_finalize;
  const GParamFlags settable = G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY;

  c1nk_doorbin_install_string(object_class, PROP_SERVER, "server", "Server",
      "The C1nk signaling server, ws://host:port/path or wss://…; required (READY fails without it)", NULL, settable);
  c1nk_doorbin_install_string(object_class, PROP_DEVICE_ID_FILE, "device-id-file", "Device id file",
      "Where this answerer's device id is kept (created on first use); NULL: $XDG_STATE_HOME/c1nk/device-id. "
      "Two elements in one process need two files", NULL, settable);
  c1nk_doorbin_install_string(object_class, PROP_TRUST_CA, "trust-ca", "Trusted CA",
      "A PEM certificate authority to trust for wss:// besides the system's", NULL, settable);
  c1nk_doorbin_install_string(object_class, PROP_ANSWER, "answer", "Answer",
      "auto: accept each ring after answer-delay seconds; manual: wait for the accept action signal", "manual",
      settable);
  g_object_class_install_property(object_class, PROP_ANSWER_DELAY,
      g_param_spec_double("answer-delay", "Answer delay", "answer=auto: seconds between the ring and the accept",
                          0, 3600, 0, settable | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(object_class, PROP_LATENCY,
      g_param_spec_int("latency", "Latency",
                       "Jitterbuffer latency of the door's media in ms, 0 to 10000 (more for a lossy Wi-Fi link)",
                       G_MININT, G_MAXINT, 20, settable | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(object_class, PROP_REPAIR_WINDOW,
      g_param_spec_int("repair-window", "Repair window",
                       "How long the door's video waits for a lost packet's retransmission in ms, 0 to 10000 "
                       "(packets in order are never held; the audio keeps the latency)",
                       G_MININT, G_MAXINT, 100, settable | G_PARAM_STATIC_STRINGS));
  c1nk_doorbin_install_string(object_class, PROP_STUN_SERVER, "stun-server", "STUN server",
      "stun:host:port, or none for no STUN server; NULL: the default public STUN servers", NULL, settable);
  c1nk_doorbin_install_string(object_class, PROP_TURN_SERVER, "turn-server", "TURN server",
      "turn://user:password@host:port (or turns://) to relay media through when no direct path works", NULL,
      settable);
  c1nk_doorbin_install_string(object_class, PROP_ICE_LOCAL_IP, "ice-local-ip", "ICE local IP",
      "Offer ICE candidates of this local IP address only (e.g. 127.0.0.1); NULL: every address", NULL, settable);
  c1nk_doorbin_install_string(object_class, PROP_DOOR_NAME, "door-name", "Door name",
      "The name of the door ringing or in a call now (read-only, set at each ring)", NULL, G_PARAM_READABLE);

  /* Signals: the events of a call, each also posted as a c1nk-event element message. */
  c1nk_doorbin_signals[SIGNAL_RINGING] = g_signal_new("ringing", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
      NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  c1nk_doorbin_signals[SIGNAL_ENDED] = g_signal_new("ended", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
      NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  c1nk_doorbin_signals[SIGNAL_DOOR_OPENED] = g_signal_new("door-opened", G_TYPE_FROM_CLASS(klass),
      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* Action signals: what the resident does. */
  c1nk_doorbin_signals[SIGNAL_ACCEPT] = g_signal_new("accept", G_TYPE_FROM_CLASS(klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_STRUCT_OFFSET(C1nkDoorbinClass, accept), NULL, NULL, NULL, G_TYPE_NONE, 0);
  c1nk_doorbin_signals[SIGNAL_REJECT] = g_signal_new("reject", G_TYPE_FROM_CLASS(klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_STRUCT_OFFSET(C1nkDoorbinClass, reject), NULL, NULL, NULL, G_TYPE_NONE, 0);
  c1nk_doorbin_signals[SIGNAL_OPEN_DOOR] = g_signal_new("open-door", G_TYPE_FROM_CLASS(klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_STRUCT_OFFSET(C1nkDoorbinClass, open_door), NULL, NULL, NULL, G_TYPE_NONE, 0);
  c1nk_doorbin_signals[SIGNAL_HANGUP] = g_signal_new("hangup", G_TYPE_FROM_CLASS(klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_STRUCT_OFFSET(C1nkDoorbinClass, hangup), NULL, NULL, NULL, G_TYPE_NONE, 0);
  c1nk_doorbin_signals[SIGNAL_MUTE] = g_signal_new("mute", G_TYPE_FROM_CLASS(klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_STRUCT_OFFSET(C1nkDoorbinClass, mute), NULL, NULL, NULL, G_TYPE_NONE, 1,
      G_TYPE_BOOLEAN);
  klass->accept = c1nk_doorbin_accept;
  klass->reject = c1nk_doorbin_reject;
  klass->open_door = c1nk_doorbin_open_door;
  klass->hangup = c1nk_doorbin_hangup;
  klass->mute = c1nk_doorbin_mute;

  gst_element_class_add_static_pad_template(element_class, &video_template);
  gst_element_class_add_static_pad_template(element_class, &audio_template);
  gst_element_class_add_static_pad_template(element_class, &mic_template);
  element_class->request_new_pad = c1nk_doorbin_request_new_pad;
  element_class->release_pad = c1nk_doorbin_release_pad;
  element_class->change_state = c1nk_doorbin_change_state;
  gst_element_class_set_static_metadata(element_class, "c1nk door bell", "Source/Network/Video/Audio",
      "Answers a C1nk door over WebRTC: raw video on `video`, the door's voice on `audio` (both flow between "
      "calls: black frames and silence), the resident's voice into the request pad `mic`. "
      "Signals: ringing(call-id, door-name) when a door rings; ended(call-id, reason) when a call ends; "
      "door-opened(call-id) when the door confirms it opened. "
      "Action signals: accept, reject, open-door, hangup, mute(boolean). "
      "Every event (ringing, accepted, media-connected, first-frame, door-opened, ended, error, …) is also "
      "posted as an element message named c1nk-event with the fields of the events log",
      C1NK_AUTHOR);
}
