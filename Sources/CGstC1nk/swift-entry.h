/* The behaviour of the elements, written in Swift (Sources/GstC1nk, as
 * @_cdecl functions) and called by the C boilerplate. */
#ifndef C1NK_SWIFT_ENTRY_H
#define C1NK_SWIFT_ENTRY_H

#include <gst/gst.h>

/* c1nkstamp: writes the time stamp and `sequence` into a frame's luma plane. */
void c1nk_swift_stamp_frame(guint8 *luma, gint stride, gint width, gint height, guint64 sequence);

/* c1nklatency: reads the stamp of a frame; `*meter` is the element's state (NULL at first). */
void c1nk_swift_latency_frame(GstElement *element, gpointer *meter, const guint8 *luma, gint stride,
                              gint width, gint height, guint interval_ms);
/* Posts the statistics of the whole stream (end of stream). */
void c1nk_swift_latency_finish(GstElement *element, gpointer meter);
void c1nk_swift_latency_free(gpointer meter);

/* c1nkdoorbin: starts the answering core (NULL -> READY) from the element's
 * properties; on failure returns FALSE and a message naming the property in
 * *error (g_free it). */
gboolean c1nk_swift_doorbin_start(GstElement *doorbin, const char *video_channel, const char *audio_channel,
                                  const char *mic_channel, char **error);
/* Hangs up a call in progress and stops the core (READY -> NULL). */
void c1nk_swift_doorbin_stop(GstElement *doorbin);
/* accept, reject, open, hangup, mute, unmute. */
void c1nk_swift_doorbin_command(GstElement *doorbin, const char *command);

#endif
