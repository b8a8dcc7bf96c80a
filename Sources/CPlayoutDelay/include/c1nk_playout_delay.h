#ifndef C1NK_PLAYOUT_DELAY_H
#define C1NK_PLAYOUT_DELAY_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* The URI of libwebrtc's playout-delay RTP header extension. */
#define C1NK_PLAYOUT_DELAY_URI "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"

/* The delay one pad's packets say, changeable while they flow
 * (reference-counted: the probe holds one reference, the caller another). */
typedef struct _C1nkPlayoutDelay C1nkPlayoutDelay;

/* Marks every RTP packet that `pad` pushes from now on with the
 * playout-delay header extension (one-byte form, `id` 1–14) saying
 * minimum `min_ms`, maximum `max_ms` (10 ms steps, at most 40950): with a
 * minimum of 0 the receiver shows each frame as soon as it is decoded; a
 * minimum holds each frame that long, so one completed late by a
 * retransmission is still shown, in its turn. Per packet, in native code
 * (a pad probe on buffers and buffer lists). Returns the caller's
 * reference, NULL for an id the one-byte form cannot carry. */
C1nkPlayoutDelay *c1nk_playout_delay_attach (GstPad *pad, guint id, guint min_ms, guint max_ms);

/* What the packets pushed from now on say (any thread). */
void c1nk_playout_delay_set (C1nkPlayoutDelay *delay, guint min_ms, guint max_ms);

/* The minimum the packets say now, in ms. */
guint c1nk_playout_delay_minimum (C1nkPlayoutDelay *delay);

void c1nk_playout_delay_unref (C1nkPlayoutDelay *delay);

/* Adds the extension to one RTP packet (the probe's work, for tests);
 * FALSE when it is not an RTP packet or has no room. */
gboolean c1nk_playout_delay_mark (GstBuffer *buffer, guint id, guint min_ms, guint max_ms);

G_END_DECLS

#endif
