#include "c1nk_playout_delay.h"

#include <gst/rtp/rtp.h>

struct _C1nkPlayoutDelay {
  guint id;
  /* Minimum in the high 16 bits, maximum in the low, each in 10 ms units:
   * one word, so a packet never says a new minimum with an old maximum. */
  gint packed;
};

static guint
units (guint ms)
{
  return MIN (ms / 10, 0xfff);
}

gboolean
c1nk_playout_delay_mark (GstBuffer *buffer, guint id, guint min_ms, guint max_ms)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  if (!gst_rtp_buffer_map (buffer, GST_MAP_READWRITE, &rtp)) return FALSE;
  /* 12 bits of minimum, 12 of maximum, in 10 ms units. */
  guint max = units (max_ms), min = MIN (units (min_ms), max);
  const guint8 delay[3] = { (guint8) (min >> 4), (guint8) (((min & 0xf) << 4) | (max >> 8)), (guint8) (max & 0xff) };
  gboolean added = gst_rtp_buffer_add_extension_onebyte_header (&rtp, (guint8) id, delay, sizeof delay);
  gst_rtp_buffer_unmap (&rtp);
  return added;
}

static void
mark (GstBuffer *buffer, C1nkPlayoutDelay *delay)
{
  guint packed = (guint) g_atomic_int_get (&delay->packed);
  c1nk_playout_delay_mark (buffer, delay->id, (packed >> 16) * 10, (packed & 0xffff) * 10);
}

static gboolean
mark_in_list (GstBuffer **buffer, guint index, gpointer data)
{
  (void) index;
  *buffer = gst_buffer_make_writable (*buffer);
  mark (*buffer, data);
  return TRUE;
}

static GstPadProbeReturn
mark_packets (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  (void) pad;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buffer = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
    mark (buffer, data);
    GST_PAD_PROBE_INFO_DATA (info) = buffer;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *list = gst_buffer_list_make_writable (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
    gst_buffer_list_foreach (list, mark_in_list, data);
    GST_PAD_PROBE_INFO_DATA (info) = list;
  }
  return GST_PAD_PROBE_OK;
}

void
c1nk_playout_delay_set (C1nkPlayoutDelay *delay, guint min_ms, guint max_ms)
{
  guint max = units (max_ms), min = MIN (units (min_ms), max);
  g_atomic_int_set (&delay->packed, (gint) ((min << 16) | max));
}

guint
c1nk_playout_delay_minimum (C1nkPlayoutDelay *delay)
{
  return ((guint) g_atomic_int_get (&delay->packed) >> 16) * 10;
}

void
c1nk_playout_delay_unref (C1nkPlayoutDelay *delay)
{
  g_atomic_rc_box_release (delay);
}

static void
release (gpointer data)
{
  g_atomic_rc_box_release (data);
}

C1nkPlayoutDelay *
c1nk_playout_delay_attach (GstPad *pad, guint id, guint min_ms, guint max_ms)
{
  if (id < 1 || id > 14) return NULL;
  C1nkPlayoutDelay *delay = g_atomic_rc_box_new0 (C1nkPlayoutDelay);
  delay->id = id;
  c1nk_playout_delay_set (delay, min_ms, max_ms);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, mark_packets,
                     g_atomic_rc_box_acquire (delay), release);
  return delay;
}
