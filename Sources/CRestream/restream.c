#include "c1nk_restream.h"

#include <gst/app/gstappsrc.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/rtsp-server/rtsp-server.h>
#include <gst/video/video.h>
#include <string.h>

#define C1NK_RESTREAM_MOUNT "/door"
#define C1NK_RESTREAM_ROLE "viewer"

typedef struct {
  C1nkRestream *owner;
  gboolean audio;
  GstPad *pad;              /* the call's input pad (a reference), or NULL */
  gulong probe;
  GstElement *appsrc;       /* the shared media's source (a reference), or NULL; under owner->lock */
  gboolean want_keyframe;   /* a client waits for a keyframe to start from; under owner->lock */
  gint64 last_request;      /* monotonic time of the last keyframe asked for, 0 for none; under owner->lock */
  guint64 packets;          /* atomic */
} Tap;

/* A keyframe asked for and not seen in the media is asked for again this
 * often: a door may drop a request (one that comes too soon after another,
 * or a lost PLI), and a client that joined would wait for the door's next
 * keyframe, which a WebRTC door sends only when asked. */
#define C1NK_RESTREAM_KEYFRAME_RETRY_US (G_USEC_PER_SEC)

struct C1nkRestream {
  GMutex lock;
  GMainContext *context;
  GstRTSPServer *server;
  GstRTSPMountPoints *mounts;
  guint source;
  gboolean authenticated;
  GstRTSPMediaFactory *factory;
  gulong configure_handler;
  Tap video, audio;
  gint audio_open;          /* atomic */
  gchar silence[8];         /* the codec of the silence; written before the probes exist */
};

static C1nkRestream *restream_acquire (C1nkRestream *r) { return g_atomic_rc_box_acquire (r); }

static void restream_clear (C1nkRestream *r)
{
  g_mutex_clear (&r->lock);
  if (r->context) g_main_context_unref (r->context);
}

static void restream_release (gpointer r) { g_atomic_rc_box_release_full (r, (GDestroyNotify) restream_clear); }

/* A packet with `rtp`'s header and a silent payload (the door's voice not yet allowed out). */
static GstBuffer *silent_copy (GstBuffer *rtp, const gchar *codec)
{
  static const guint8 opus_silence[] = { 0xF8, 0xFF, 0xFE };
  GstRTPBuffer in = GST_RTP_BUFFER_INIT, out = GST_RTP_BUFFER_INIT;
  if (!gst_rtp_buffer_map (rtp, GST_MAP_READ, &in)) return NULL;
  gboolean opus = strcmp (codec, "opus") == 0;
  guint length = opus ? sizeof opus_silence : gst_rtp_buffer_get_payload_len (&in);
  GstBuffer *copy = gst_rtp_buffer_new_allocate (length, 0, 0);
  if (gst_rtp_buffer_map (copy, GST_MAP_WRITE, &out)) {
    gst_rtp_buffer_set_ssrc (&out, gst_rtp_buffer_get_ssrc (&in));
    gst_rtp_buffer_set_seq (&out, gst_rtp_buffer_get_seq (&in));
    gst_rtp_buffer_set_timestamp (&out, gst_rtp_buffer_get_timestamp (&in));
    gst_rtp_buffer_set_payload_type (&out, gst_rtp_buffer_get_payload_type (&in));
    gst_rtp_buffer_set_marker (&out, gst_rtp_buffer_get_marker (&in));
    guint8 *payload = gst_rtp_buffer_get_payload (&out);
    if (opus) memcpy (payload, opus_silence, length);
    else memset (payload, strcmp (codec, "pcma") == 0 ? 0xD5 : 0xFF, length);
    gst_rtp_buffer_unmap (&out);
  }
  gst_rtp_buffer_unmap (&in);
  return copy;
}

/* Streaming thread: one packet to the media. Never waits: the appsrc does not block and drops its oldest. */
static void tap_push (Tap *tap, GstElement *appsrc, GstBuffer *buffer)
{
  GstBuffer *copy;
  if (tap->audio && !g_atomic_int_get (&tap->owner->audio_open)) copy = silent_copy (buffer, tap->owner->silence);
  else copy = gst_buffer_copy (buffer);  /* the metadata; the memory is shared, not copied */
  if (!copy) return;
  /* Stamped again on arrival by the media's clock (do-timestamp). */
  GST_BUFFER_PTS (copy) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DTS (copy) = GST_CLOCK_TIME_NONE;
  if (gst_app_src_push_buffer (GST_APP_SRC (appsrc), copy) == GST_FLOW_OK) __atomic_fetch_add (&tap->packets, 1, __ATOMIC_RELAXED);
}

static gboolean tap_push_each (GstBuffer **buffer, guint index, gpointer data)
{
  Tap *tap = ((gpointer *) data)[0];
  tap_push (tap, ((gpointer *) data)[1], *buffer);
  return TRUE;
}

/* Whether a packet pushed now gets a time the media can send by. The appsrc
 * stamps a packet on arrival with its clock less its base time; while the
 * media first goes to PLAYING, the clock reaches the appsrc before the base
 * time does, and a packet stamped then carries the clock's absolute time
 * (hours). The server's TCP sink, which waits for each packet's time, then
 * held that stream for the rest of the call, for every client: the door's
 * audio never reached them. Such a packet is dropped instead. */
static gboolean media_clock_ready (GstElement *appsrc)
{
  GST_OBJECT_LOCK (appsrc);
  gboolean ready = GST_ELEMENT_CLOCK (appsrc) == NULL || GST_ELEMENT_CAST (appsrc)->base_time != 0;
  GST_OBJECT_UNLOCK (appsrc);
  return ready;
}

static GstPadProbeReturn tap_probe (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  Tap *tap = data;
  C1nkRestream *r = tap->owner;
  gint64 now = g_get_monotonic_time ();
  g_mutex_lock (&r->lock);
  GstElement *appsrc = tap->appsrc ? gst_object_ref (tap->appsrc) : NULL;
  gboolean keyframe = tap->want_keyframe
      && (tap->last_request == 0 || now - tap->last_request >= C1NK_RESTREAM_KEYFRAME_RETRY_US);
  g_mutex_unlock (&r->lock);
  if (!appsrc) return GST_PAD_PROBE_OK;
  if (!media_clock_ready (appsrc)) {
    gst_object_unref (appsrc);
    return GST_PAD_PROBE_OK;
  }

  GstCaps *caps = gst_pad_get_current_caps (pad);
  if (caps) {
    GstCaps *current = gst_app_src_get_caps (GST_APP_SRC (appsrc));
    if (!current || !gst_caps_is_equal (current, caps)) gst_app_src_set_caps (GST_APP_SRC (appsrc), caps);
    if (current) gst_caps_unref (current);
    gst_caps_unref (caps);
  }
  guint64 before = __atomic_load_n (&tap->packets, __ATOMIC_RELAXED);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    tap_push (tap, appsrc, GST_PAD_PROBE_INFO_BUFFER (info));
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    gpointer pair[2] = { tap, appsrc };
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info), tap_push_each, pair);
  }
  if (keyframe && __atomic_load_n (&tap->packets, __ATOMIC_RELAXED) != before) {
    /* The media takes packets now: a new client starts at a keyframe of the
     * door's, asked for now and again until one reaches the media (keyframe_seen). */
    g_mutex_lock (&r->lock);
    tap->last_request = now;
    g_mutex_unlock (&r->lock);
    gst_pad_push_event (pad, gst_video_event_new_upstream_force_key_unit (GST_CLOCK_TIME_NONE, TRUE, 0));
  }
  gst_object_unref (appsrc);
  return GST_PAD_PROBE_OK;
}

static void tap_release (gpointer tap) { restream_release (((Tap *) tap)->owner); }

static void tap_attach (Tap *tap, GstPad *pad)
{
  if (!pad) return;
  tap->pad = gst_object_ref (pad);
  restream_acquire (tap->owner);  /* released when the probe goes */
  tap->probe = gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, tap_probe, tap,
                                  tap_release);
}

/* With the probe removed, a call of it still running holds no more than `owner` (released by the caller last). */
static void tap_detach (Tap *tap)
{
  if (tap->pad) {
    gst_pad_remove_probe (tap->pad, tap->probe);
    gst_object_unref (tap->pad);
  }
  tap->pad = NULL;
  tap->probe = 0;
  g_mutex_lock (&tap->owner->lock);
  GstElement *appsrc = tap->appsrc;
  tap->appsrc = NULL;
  g_mutex_unlock (&tap->owner->lock);
  if (appsrc) gst_object_unref (appsrc);
}

static gboolean is_keyframe (GstBuffer **buffer, guint index, gpointer found)
{
  if (!GST_BUFFER_FLAG_IS_SET (*buffer, GST_BUFFER_FLAG_DELTA_UNIT)) *(gboolean *) found = TRUE;
  return !*(gboolean *) found;
}

/* The media's streaming thread, after its leaky source and the depayloader
 * (which marks each frame a keyframe or not, whatever the codec): the
 * keyframe a client waits for has reached the media. */
static GstPadProbeReturn keyframe_seen (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  Tap *tap = data;
  gboolean found = FALSE;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
    is_keyframe (&buffer, 0, &found);
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info), is_keyframe, &found);
  if (found) {
    g_mutex_lock (&tap->owner->lock);
    tap->want_keyframe = FALSE;
    tap->last_request = 0;
    g_mutex_unlock (&tap->owner->lock);
  }
  return GST_PAD_PROBE_OK;
}

/* Watches the output of the element `appsrc` feeds (the depayloader) for keyframes. */
static void watch_keyframes (Tap *tap, GstElement *appsrc)
{
  GstPad *source = gst_element_get_static_pad (appsrc, "src");
  GstPad *peer = source ? gst_pad_get_peer (source) : NULL;
  GstElement *depayloader = peer ? gst_pad_get_parent_element (peer) : NULL;
  GstPad *output = depayloader ? gst_element_get_static_pad (depayloader, "src") : NULL;
  if (output) {
    restream_acquire (tap->owner);  /* released when the probe goes with the media */
    gst_pad_add_probe (output, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, keyframe_seen, tap, tap_release);
    gst_object_unref (output);
  }
  if (depayloader) gst_object_unref (depayloader);
  if (peer) gst_object_unref (peer);
  if (source) gst_object_unref (source);
}

/* A client's thread: the shared media is being made (the first client of a call, or the first after all left). */
static void media_configure (GstRTSPMediaFactory *factory, GstRTSPMedia *media, gpointer data)
{
  C1nkRestream *r = data;
  GstElement *element = gst_rtsp_media_get_element (media);
  GstElement *video = gst_bin_get_by_name_recurse_up (GST_BIN (element), "video");
  GstElement *audio = gst_bin_get_by_name_recurse_up (GST_BIN (element), "audio");
  g_mutex_lock (&r->lock);
  GstElement *old[2] = { r->video.appsrc, r->audio.appsrc };
  r->video.appsrc = video;
  r->audio.appsrc = audio;
  r->video.want_keyframe = video != NULL;
  r->video.last_request = 0;
  g_mutex_unlock (&r->lock);
  for (int i = 0; i < 2; i++) if (old[i]) gst_object_unref (old[i]);
  if (video) watch_keyframes (&r->video, video);
  gst_object_unref (element);
}

/* A client's thread: a client starts playing; it decodes from the door's next keyframe, asked for now. */
static void play_request (GstRTSPClient *client, GstRTSPContext *ctx, gpointer data)
{
  C1nkRestream *r = data;
  g_mutex_lock (&r->lock);
  r->video.want_keyframe = r->video.appsrc != NULL;
  r->video.last_request = 0;
  g_mutex_unlock (&r->lock);
}

static void client_connected (GstRTSPServer *server, GstRTSPClient *client, gpointer data)
{
  g_signal_connect_data (client, "play-request", G_CALLBACK (play_request), restream_acquire (data),
                         (GClosureNotify) restream_release, 0);
}

static GstRTSPFilterResult close_client (GstRTSPServer *server, GstRTSPClient *client, gpointer data)
{
  return GST_RTSP_FILTER_REMOVE;
}

C1nkRestream *c1nk_restream_new (const gchar *address, guint port, const gchar *user, const gchar *password, GMainContext *context, GError **error)
{
  C1nkRestream *r = g_atomic_rc_box_new0 (C1nkRestream);
  g_mutex_init (&r->lock);
  r->context = context ? g_main_context_ref (context) : NULL;
  r->video.owner = r;
  r->audio.owner = r;
  r->audio.audio = TRUE;
  strcpy (r->silence, "opus");
  r->server = gst_rtsp_server_new ();
  gchar *service = g_strdup_printf ("%u", port);
  gst_rtsp_server_set_service (r->server, service);
  g_free (service);
  if (address)
    gst_rtsp_server_set_address (r->server, address);
  if (user) {
    GstRTSPAuth *auth = gst_rtsp_auth_new ();
    gst_rtsp_auth_set_supported_methods (auth, GST_RTSP_AUTH_DIGEST);
    GstRTSPToken *token = gst_rtsp_token_new (GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE, G_TYPE_STRING, C1NK_RESTREAM_ROLE, NULL);
    gst_rtsp_auth_add_digest (auth, user, password ? password : "", token);
    gst_rtsp_token_unref (token);
    gst_rtsp_server_set_auth (r->server, auth);
    g_object_unref (auth);
    r->authenticated = TRUE;
  }
  r->mounts = gst_rtsp_server_get_mount_points (r->server);
  g_signal_connect_data (r->server, "client-connected", G_CALLBACK (client_connected), restream_acquire (r),
                         (GClosureNotify) restream_release, 0);
  GSource *source = gst_rtsp_server_create_source (r->server, NULL, error);
  if (!source) {
    g_object_unref (r->mounts);
    g_object_unref (r->server);
    restream_release (r);
    return NULL;
  }
  r->source = g_source_attach (source, context);
  g_source_unref (source);
  return r;
}

gint c1nk_restream_port (C1nkRestream *r) { return gst_rtsp_server_get_bound_port (r->server); }

void c1nk_restream_start (C1nkRestream *r, const gchar *launch, GstPad *video_pad, GstPad *audio_pad, const gchar *silence)
{
  c1nk_restream_stop (r);
  g_atomic_int_set (&r->audio_open, FALSE);
  g_strlcpy (r->silence, silence ? silence : "opus", sizeof r->silence);
  __atomic_store_n (&r->video.packets, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&r->audio.packets, 0, __ATOMIC_RELAXED);
  r->factory = gst_rtsp_media_factory_new ();
  gst_rtsp_media_factory_set_launch (r->factory, launch);
  gst_rtsp_media_factory_set_shared (r->factory, TRUE);
  if (r->authenticated) {
    gst_rtsp_media_factory_add_role (r->factory, C1NK_RESTREAM_ROLE, GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
                                     GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, NULL);
  }
  r->configure_handler = g_signal_connect_data (r->factory, "media-configure", G_CALLBACK (media_configure),
                                                restream_acquire (r), (GClosureNotify) restream_release, 0);
  tap_attach (&r->video, video_pad);
  tap_attach (&r->audio, audio_pad);
  gst_rtsp_mount_points_add_factory (r->mounts, C1NK_RESTREAM_MOUNT, g_object_ref (r->factory));
}

void c1nk_restream_set_audio_open (C1nkRestream *r, gboolean open) { g_atomic_int_set (&r->audio_open, open); }

void c1nk_restream_stop (C1nkRestream *r)
{
  if (!r->factory) return;
  gst_rtsp_mount_points_remove_factory (r->mounts, C1NK_RESTREAM_MOUNT);
  tap_detach (&r->video);
  tap_detach (&r->audio);
  g_signal_handler_disconnect (r->factory, r->configure_handler);
  g_object_unref (r->factory);
  r->factory = NULL;
  gst_rtsp_server_client_filter (r->server, close_client, NULL);
}

guint64 c1nk_restream_packets (C1nkRestream *r, gboolean audio)
{
  return __atomic_load_n (audio ? &r->audio.packets : &r->video.packets, __ATOMIC_RELAXED);
}

void c1nk_restream_free (C1nkRestream *r)
{
  c1nk_restream_stop (r);
  gst_rtsp_server_client_filter (r->server, close_client, NULL);
  GSource *source = g_main_context_find_source_by_id (r->context, r->source);
  if (source) g_source_destroy (source);
  g_object_unref (r->mounts);
  g_object_unref (r->server);
  restream_release (r);
}
