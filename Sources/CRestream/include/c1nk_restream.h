#ifndef C1NK_RESTREAM_H
#define C1NK_RESTREAM_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* The door's live restream over RTSP (gst-rtsp-server), `rtsp://host:port/door`.
 *
 * The server's listening socket is attached to one GMainContext (the
 * answerer's); each client is served on the server's thread pool, so a
 * client that waits (a DESCRIBE while the media prepares) never holds that
 * context. While a call is on, the mount serves one shared media: the
 * call's received RTP, re-payloaded without decoding, pushed by pad probes
 * on the call's input pads into the media's `appsrc`s, which are leaky (the
 * oldest packets go when a client is slow): the call never waits for a
 * client. A client that starts playing starts at a keyframe of the door's,
 * asked for then and again each second until one reaches the media (a
 * WebRTC door sends one only when asked, and may drop a request). Between calls there is no mount: an authenticated DESCRIBE gets
 * 404 Not Found, and the clients of the call that ended are disconnected. */
typedef struct C1nkRestream C1nkRestream;

/* A server on `port` (0: any free port) of `address` (NULL: every IPv4
 * address, "0.0.0.0"), attached to
 * `context`. With `user`, every request must authenticate (Digest) as
 * `user`/`password`; with `user` NULL it is open to anyone. NULL when the
 * port cannot be bound (`error` set). */
C1nkRestream *c1nk_restream_new (const gchar *address, guint port, const gchar *user, const gchar *password, GMainContext *context, GError **error);

/* The port the server listens on. */
gint c1nk_restream_port (C1nkRestream *restream);

/* Mounts the call's media, built from `launch` (a gst-rtsp-server launch
 * line whose sources are `appsrc name=video` and `appsrc name=audio`): the
 * buffers entering `video_pad` and `audio_pad` (either may be NULL) go to
 * them. `silence`: the audio payload that stands for the door's while the
 * audio is closed ("opus", "pcmu" or "pcma"). Replaces a call mounted before. */
void c1nk_restream_start (C1nkRestream *restream, const gchar *launch, GstPad *video_pad, GstPad *audio_pad,
                          const gchar *silence);

/* Whether the door's audio reaches the clients; while closed, its packets
 * keep their timing and carry silence. Closed at each start. */
void c1nk_restream_set_audio_open (C1nkRestream *restream, gboolean open);

/* Unmounts the call's media and disconnects its clients. */
void c1nk_restream_stop (C1nkRestream *restream);

/* Packets pushed to the clients' media since the start (video, audio). */
guint64 c1nk_restream_packets (C1nkRestream *restream, gboolean audio);

/* Stops, closes every client and the listening socket, and lets go. */
void c1nk_restream_free (C1nkRestream *restream);

G_END_DECLS

#endif
