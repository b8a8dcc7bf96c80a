#include "c1nk_playout_delay.h"

#include <gst/rtp/rtp.h>

gboolean
c1nk_playout_delay_mark (GstBuffer *buffer, guint id)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  if (!gst_rtp_buffer_map (buffer, GST_MAP_READWRITE, &rtp)) return FALSE;
  /* 12 bits of minimum, 12 of maximum, in 10 ms units: both 0. */
  static const guint8 zero_delay[3] = { 0, 0, 0 };
  gboolean added = gst_rtp_buffer_add_extension_onebyte_header (&rtp, (guint8) id, zero_delay, sizeof zero_delay);
  gst_rtp_buffer_unmap (&rtp);
  return added;
}

static gboolean
mark_in_list (GstBuffer **buffer, guint index, gpointer id)
{
  (void) index;
  *buffer = gst_buffer_make_writable (*buffer);
  c1nk_playout_delay_mark (*buffer, GPOINTER_TO_UINT (id));
  return TRUE;
}

static GstPadProbeReturn
mark_packets (GstPad *pad, GstPadProbeInfo *info, gpointer id)
{
  (void) pad;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buffer = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
    c1nk_playout_delay_mark (buffer, GPOINTER_TO_UINT (id));
    GST_PAD_PROBE_INFO_DATA (info) = buffer;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *list = gst_buffer_list_make_writable (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
    gst_buffer_list_foreach (list, mark_in_list, id);
    GST_PAD_PROBE_INFO_DATA (info) = list;
  }
  return GST_PAD_PROBE_OK;
}

gulong
c1nk_playout_delay_attach (GstPad *pad, guint id)
{
  if (id < 1 || id > 14) return 0;
  return gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, mark_packets,
                            GUINT_TO_POINTER (id), NULL);
}
