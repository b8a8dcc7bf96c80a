#ifndef C1NK_DISPLAY_INPUT_H
#define C1NK_DISPLAY_INPUT_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* The wall display's video input: how a call's decoded frames reach the
 * display's compositor the moment they are decoded.
 *
 * A call's pipeline ends in the element `c1nkdisplayinput channel=NAME` (a
 * sink, registered in this process by c1nk_display_input_register). It hands
 * each frame, by reference, to the `appsrc` the display opened under NAME;
 * with no display open under NAME, frames are let go. The two pipelines keep
 * their own clocks, states and lifetimes: the call never waits for the
 * display, and the display never sees the call's events.
 *
 * On the way in, each frame is stamped for the compositor's next output
 * (its running time, lasting one display frame), so the compositor, which
 * waits for the video pad, composes as soon as a frame arrives instead of
 * picking the latest one up at its own rate. */

/* Registers `c1nkdisplayinput` in this process (once; thread-safe). */
gboolean c1nk_display_input_register (void);

/* Opens `channel`: frames sent to it go into `appsrc` (live, time format),
 * stamped for `mixer`'s next output, `frame_duration` long. Holds references
 * to both until closed. An open channel of the same name is replaced. */
void c1nk_display_input_open (const gchar *channel, GstElement *appsrc, GstElement *mixer, GstClockTime frame_duration);

/* Closes `channel`: its frames are let go from now on. */
void c1nk_display_input_close (const gchar *channel);

G_END_DECLS

#endif
