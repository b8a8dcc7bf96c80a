#ifndef C1NK_PLAYOUT_DELAY_H
#define C1NK_PLAYOUT_DELAY_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* The URI of libwebrtc's playout-delay RTP header extension. */
#define C1NK_PLAYOUT_DELAY_URI "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"

/* Marks every RTP packet that `pad` pushes from now on with the
 * playout-delay header extension (one-byte form, `id` 1–14) saying
 * minimum 0, maximum `max_ms` (10 ms steps, at most 40950): on a clean
 * link the receiver shows each frame as soon as it is decoded; on loss and
 * jitter its jitter buffer may grow up to the maximum. Per packet, in
 * native code (a pad probe on buffers and buffer lists); returns the
 * probe's id, 0 for an id the one-byte form cannot carry. */
gulong c1nk_playout_delay_attach (GstPad *pad, guint id, guint max_ms);

/* Adds the extension to one RTP packet (the probe's work, for tests);
 * FALSE when it is not an RTP packet or has no room. */
gboolean c1nk_playout_delay_mark (GstBuffer *buffer, guint id, guint max_ms);

G_END_DECLS

#endif
