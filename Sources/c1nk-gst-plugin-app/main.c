/* c1nk-gst-plugin-app: a small C application that answers one call with the
 * c1nkdoorbin element of libgstc1nk.so, over GObject only, as an integrator's
 * app would: it accepts on `ringing`, mutes the microphone once the first
 * frame is shown, opens the door once the `levels` event says muted, hangs up
 * on `door-opened`, and exits when `ended` comes.
 *
 * It never iterates GLib's default main context: its only loop pops the bus
 * (gst_bus_timed_pop). The element must therefore run on a context of its own.
 * The tests use it; it does not link the c1nk-gst library, only GStreamer.
 *
 *   GST_PLUGIN_PATH=.build/debug c1nk-gst-plugin-app ws://127.0.0.1:8765/ws DEVICE_ID_FILE
 */
#include <gst/gst.h>
#include <stdio.h>
#include <string.h>

static volatile gint ended = 0;

static void on_ringing(GstElement *door, const gchar *call_id, const gchar *door_name, gpointer data) {
  (void)data;
  printf("ringing %s %s\n", call_id, door_name);
  fflush(stdout);
  g_signal_emit_by_name(door, "accept");
}

static void on_door_opened(GstElement *door, const gchar *call_id, gpointer data) {
  (void)data;
  printf("door-opened %s\n", call_id);
  fflush(stdout);
  g_signal_emit_by_name(door, "hangup");
}

static void on_ended(GstElement *door, const gchar *call_id, const gchar *reason, gpointer data) {
  (void)door; (void)data;
  printf("ended %s %s\n", call_id, reason);
  fflush(stdout);
  g_atomic_int_set(&ended, 1);
}

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  if (argc != 3) {
    fprintf(stderr, "usage: c1nk-gst-plugin-app SERVER_URL DEVICE_ID_FILE\n");
    return 2;
  }
  gchar *description = g_strdup_printf(
      "c1nkdoorbin name=door answer=manual stun-server=none ice-local-ip=127.0.0.1 server=\"%s\" "
      "device-id-file=\"%s\" door.video ! fakesink door.audio ! fakesink "
      "audiotestsrc is-live=true wave=sine freq=1000 volume=0.5 ! door.mic", argv[1], argv[2]);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch(description, &error);
  g_free(description);
  if (!pipeline) {
    fprintf(stderr, "c1nk-gst-plugin-app: %s\n", error ? error->message : "no pipeline");
    return 1;
  }
  GstElement *door = gst_bin_get_by_name(GST_BIN(pipeline), "door");
  g_signal_connect(door, "ringing", G_CALLBACK(on_ringing), NULL);
  g_signal_connect(door, "door-opened", G_CALLBACK(on_door_opened), NULL);
  g_signal_connect(door, "ended", G_CALLBACK(on_ended), NULL);
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    fprintf(stderr, "c1nk-gst-plugin-app: the pipeline did not start\n");
    return 1;
  }
  GstBus *bus = gst_element_get_bus(pipeline);
  int status = 1;
  gboolean opening = FALSE;
  gint64 deadline = g_get_monotonic_time() + 60 * G_TIME_SPAN_SECOND;
  while (g_get_monotonic_time() < deadline) {
    if (g_atomic_int_get(&ended)) { status = 0; break; }
    GstMessage *message = gst_bus_timed_pop(bus, 100 * GST_MSECOND);
    if (!message) continue;
    const GstStructure *structure = gst_message_get_structure(message);
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
      GError *failure = NULL;
      gst_message_parse_error(message, &failure, NULL);
      fprintf(stderr, "c1nk-gst-plugin-app: %s\n", failure->message);
      g_error_free(failure);
      gst_message_unref(message);
      break;
    }
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ELEMENT && gst_structure_has_name(structure, "c1nk-event")) {
      const gchar *event = gst_structure_get_string(structure, "event");
      printf("event %s\n", event);
      fflush(stdout);
      if (g_strcmp0(event, "registered") == 0) {
        printf("ready\n");
        fflush(stdout);
      }
      /* Mute once the door is seen; open it once the answerer reports the microphone muted. */
      if (g_strcmp0(event, "first-frame") == 0) g_signal_emit_by_name(door, "mute", TRUE);
      gboolean muted = FALSE;
      if (g_strcmp0(event, "levels") == 0 && gst_structure_get_boolean(structure, "muted", &muted) && muted &&
          !opening) {
        printf("muted\n");
        fflush(stdout);
        opening = TRUE;
        g_signal_emit_by_name(door, "open-door");
      }
    }
    gst_message_unref(message);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(door);
  gst_object_unref(pipeline);
  return status;
}
