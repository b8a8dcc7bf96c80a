#include "c1nk_playout_delay.h"

#include <gst/rtp/rtp.h>

/* The probe's data: the extension's id in the low byte, the maximum (10 ms units) above. */
#define PACK(id, max) GUINT_TO_POINTER (((max) << 8) | (id))
#define ID_OF(data) (GPOINTER_TO_UINT (data) & 0xff)
#define MAX_OF(data) (GPOINTER_TO_UINT (data) >> 8)

gboolean
c1nk_playout_delay_mark (GstBuffer *buffer, guint id, guint max_ms)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  if (!gst_rtp_buffer_map (buffer, GST_MAP_READWRITE, &rtp)) return FALSE;
  /* 12 bits of minimum (0), 12 of maximum, in 10 ms units. */
  guint max = MIN (max_ms / 10, 0xfff);
  const guint8 delay[3] = { 0, (guint8) (max >> 8), (guint8) (max & 0xff) };
  gboolean added = gst_rtp_buffer_add_extension_onebyte_header (&rtp, (guint8) id, delay, sizeof delay);
  gst_rtp_buffer_unmap (&rtp);
  return added;
}

static gboolean
mark_in_list (GstBuffer **buffer, guint index, gpointer data)
{
  (void) index;
  *buffer = gst_buffer_make_writable (*buffer);
  c1nk_playout_delay_mark (*buffer, ID_OF (data), MAX_OF (data) * 10);
  return TRUE;
}

static GstPadProbeReturn
mark_packets (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  (void) pad;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buffer = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
    c1nk_playout_delay_mark (buffer, ID_OF (data), MAX_OF (data) * 10);
    GST_PAD_PROBE_INFO_DATA (info) = buffer;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *list = gst_buffer_list_make_writable (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
    gst_buffer_list_foreach (list, mark_in_list, data);
    GST_PAD_PROBE_INFO_DATA (info) = list;
  }
  return GST_PAD_PROBE_OK;
}

gulong
c1nk_playout_delay_attach (GstPad *pad, guint id, guint max_ms)
{
  if (id < 1 || id > 14) return 0;
  return gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, mark_packets,
                            PACK (id, MIN (max_ms / 10, 0xfff)), NULL);
}
