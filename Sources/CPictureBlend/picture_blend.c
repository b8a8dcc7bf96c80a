#include "c1nk_picture_blend.h"

#include <gst/video/video.h>
#include <string.h>

/* One picture converted for blending: per luma pixel the premultiplied Y and
 * 255 − alpha; per chroma pixel (2×2 luma pixels, averaged) the
 * premultiplied Cb, Cr and 255 − alpha. Its box is aligned to even
 * coordinates so the chroma planes line up. Per row, the span of columns
 * that are not fully transparent: only those are blended (a text's box is
 * wider than its words, a round button's square has corners). */
typedef struct {
  gint x, y, width, height;
  guint8 *luma, *luma_keep;
  guint8 *cb, *cr, *chroma_keep;
  gint *luma_span, *chroma_span; /* [from, to) per row, two ints each */
} Layer;

/* The span of each row of `rows` × `columns` where add or keep changes anything. */
static gint *
spans (const guint8 *add, const guint8 *keep, const guint8 *add2, gint columns, gint rows)
{
  gint *span = g_new (gint, 2 * (gsize) rows);
  for (gint row = 0; row < rows; row++) {
    gint from = columns, to = 0;
    for (gint column = 0; column < columns; column++) {
      gsize i = (gsize) row * columns + column;
      if (keep[i] != 255 || add[i] != 0 || (add2 && add2[i] != 0)) {
        from = MIN (from, column);
        to = column + 1;
      }
    }
    span[2 * row] = from;
    span[2 * row + 1] = MAX (from, to);
  }
  return span;
}

struct C1nkPictureBlend {
  gint refs;
  GMutex lock;
  Layer *layers;
  guint count;
  /* count, readable without the lock: a frame with nothing to blend is not
   * even mapped. */
  gint active;
};

/* The display's frames are BT.709, limited range (colorimetry=bt709). */
static void
to_ycbcr (gdouble r, gdouble g, gdouble b, gdouble a, gdouble *y, gdouble *cb, gdouble *cr)
{
  /* r, g, b premultiplied by a (all 0–1): so are the results, offsets included. */
  *y = 16.0 * a + 219.0 * (0.2126 * r + 0.7152 * g + 0.0722 * b);
  *cb = 128.0 * a + 224.0 * (-0.1146 * r - 0.3854 * g + 0.5 * b);
  *cr = 128.0 * a + 224.0 * (0.5 * r - 0.4542 * g - 0.0458 * b);
}

static guint8
byte (gdouble value)
{
  return (guint8) CLAMP (value + 0.5, 0.0, 255.0);
}

static void
layer_free (Layer *layer)
{
  g_free (layer->luma);
  g_free (layer->luma_keep);
  g_free (layer->cb);
  g_free (layer->cr);
  g_free (layer->chroma_keep);
  g_free (layer->luma_span);
  g_free (layer->chroma_span);
}

static void
layer_init (Layer *layer, const C1nkBlendPicture *picture)
{
  gint x0 = picture->x & ~1, y0 = picture->y & ~1;
  gint width = (picture->x + picture->width - x0 + 1) & ~1;
  gint height = (picture->y + picture->height - y0 + 1) & ~1;
  gint cw = width / 2, ch = height / 2;
  gdouble *y = g_new0 (gdouble, (gsize) width * height);
  gdouble *cb = g_new0 (gdouble, (gsize) width * height);
  gdouble *cr = g_new0 (gdouble, (gsize) width * height);
  gdouble *alpha = g_new0 (gdouble, (gsize) width * height);

  for (gint row = 0; row < picture->height; row++) {
    const guint8 *source = picture->bgra + (gsize) row * picture->width * 4;
    gsize at = (gsize) (row + picture->y - y0) * width + (picture->x - x0);
    for (gint column = 0; column < picture->width; column++, source += 4, at++) {
      gdouble a = source[3] / 255.0;
      to_ycbcr (source[2] / 255.0, source[1] / 255.0, source[0] / 255.0, a, &y[at], &cb[at], &cr[at]);
      alpha[at] = a;
    }
  }
  layer->x = x0;
  layer->y = y0;
  layer->width = width;
  layer->height = height;
  layer->luma = g_malloc ((gsize) width * height);
  layer->luma_keep = g_malloc ((gsize) width * height);
  for (gsize i = 0; i < (gsize) width * height; i++) {
    layer->luma[i] = byte (y[i]);
    layer->luma_keep[i] = byte (255.0 * (1.0 - alpha[i]));
  }
  layer->cb = g_malloc ((gsize) cw * ch);
  layer->cr = g_malloc ((gsize) cw * ch);
  layer->chroma_keep = g_malloc ((gsize) cw * ch);
  for (gint row = 0; row < ch; row++) {
    for (gint column = 0; column < cw; column++) {
      gsize a = (gsize) 2 * row * width + 2 * column, b = a + width;
      gsize i = (gsize) row * cw + column;
      layer->cb[i] = byte ((cb[a] + cb[a + 1] + cb[b] + cb[b + 1]) / 4.0);
      layer->cr[i] = byte ((cr[a] + cr[a + 1] + cr[b] + cr[b + 1]) / 4.0);
      layer->chroma_keep[i] = byte (255.0 * (1.0 - (alpha[a] + alpha[a + 1] + alpha[b] + alpha[b + 1]) / 4.0));
    }
  }
  layer->luma_span = spans (layer->luma, layer->luma_keep, NULL, width, height);
  layer->chroma_span = spans (layer->cb, layer->chroma_keep, layer->cr, cw, ch);
  g_free (y);
  g_free (cb);
  g_free (cr);
  g_free (alpha);
}

C1nkPictureBlend *
c1nk_picture_blend_new (void)
{
  C1nkPictureBlend *blend = g_new0 (C1nkPictureBlend, 1);
  blend->refs = 1;
  g_mutex_init (&blend->lock);
  return blend;
}

C1nkPictureBlend *
c1nk_picture_blend_ref (C1nkPictureBlend *blend)
{
  g_atomic_int_inc (&blend->refs);
  return blend;
}

void
c1nk_picture_blend_unref (C1nkPictureBlend *blend)
{
  if (!g_atomic_int_dec_and_test (&blend->refs))
    return;
  for (guint i = 0; i < blend->count; i++)
    layer_free (&blend->layers[i]);
  g_free (blend->layers);
  g_mutex_clear (&blend->lock);
  g_free (blend);
}

void
c1nk_picture_blend_set (C1nkPictureBlend *blend, guint count, const C1nkBlendPicture *pictures)
{
  /* Converted outside the lock: the frames wait only for the swap. */
  Layer *layers = count ? g_new0 (Layer, count) : NULL;
  for (guint i = 0; i < count; i++)
    layer_init (&layers[i], &pictures[i]);
  g_mutex_lock (&blend->lock);
  Layer *old = blend->layers;
  guint old_count = blend->count;
  blend->layers = layers;
  blend->count = count;
  g_atomic_int_set (&blend->active, (gint) count);
  g_mutex_unlock (&blend->lock);
  for (guint i = 0; i < old_count; i++)
    layer_free (&old[i]);
  g_free (old);
}

/* target = target × keep / 255 + add, with keep/255 by the usual shift trick
 * (exact for 0 and 255). In 16 bits throughout (255 × 255 + 128 + 255 still
 * fits), so the compiler vectorises it eight or sixteen pixels at a time. */
static void
blend_row (guint8 *restrict target, const guint8 *restrict add, const guint8 *restrict keep, gint count)
{
  for (gint i = 0; i < count; i++) {
    guint16 t = (guint16) (target[i] * keep[i] + 128);
    guint16 value = (guint16) (((t + (t >> 8)) >> 8) + add[i]);
    target[i] = (guint8) (value > 255 ? 255 : value);
  }
}

static void
blend_plane (guint8 *plane, gint stride, gint plane_width, gint plane_height, gint x, gint y, gint width, gint height,
    const guint8 *add, const guint8 *keep, const gint *span)
{
  for (gint row = MAX (y, 0); row < MIN (y + height, plane_height); row++) {
    gint line = row - y;
    gint x0 = MAX (x + span[2 * line], 0), x1 = MIN (x + span[2 * line + 1], plane_width);
    if (x1 <= x0)
      continue;
    gsize from = (gsize) line * width + (x0 - x);
    blend_row (plane + (gsize) row * stride + x0, add + from, keep + from, x1 - x0);
  }
}

void
c1nk_picture_blend_frame (C1nkPictureBlend *blend, guint8 *planes[3], const gint strides[3], gint width, gint height)
{
  g_mutex_lock (&blend->lock);
  for (guint i = 0; i < blend->count; i++) {
    const Layer *layer = &blend->layers[i];
    blend_plane (planes[0], strides[0], width, height, layer->x, layer->y, layer->width, layer->height,
        layer->luma, layer->luma_keep, layer->luma_span);
    gint cw = (width + 1) / 2, ch = (height + 1) / 2;
    blend_plane (planes[1], strides[1], cw, ch, layer->x / 2, layer->y / 2, layer->width / 2, layer->height / 2,
        layer->cb, layer->chroma_keep, layer->chroma_span);
    blend_plane (planes[2], strides[2], cw, ch, layer->x / 2, layer->y / 2, layer->width / 2, layer->height / 2,
        layer->cr, layer->chroma_keep, layer->chroma_span);
  }
  g_mutex_unlock (&blend->lock);
}

/* The frames' format, from the last caps the pad sent; per pad probe. */
typedef struct {
  C1nkPictureBlend *blend;
  GstVideoInfo info;
  gboolean has_info;
  gboolean warned;
} Attachment;

static void
attachment_free (gpointer data)
{
  Attachment *attachment = data;
  c1nk_picture_blend_unref (attachment->blend);
  g_free (attachment);
}

static GstPadProbeReturn
on_data (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  Attachment *attachment = data;
  C1nkPictureBlend *blend = attachment->blend;

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
    if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
      GstCaps *caps;
      gst_event_parse_caps (event, &caps);
      attachment->has_info = gst_video_info_from_caps (&attachment->info, caps)
          && GST_VIDEO_INFO_FORMAT (&attachment->info) == GST_VIDEO_FORMAT_I420;
      if (!attachment->has_info && !attachment->warned) {
        attachment->warned = TRUE;
        GST_WARNING_OBJECT (pad, "pictures are blended onto I420 frames only; these pass untouched");
      }
    }
    return GST_PAD_PROBE_OK;
  }
  if (!attachment->has_info || g_atomic_int_get (&blend->active) == 0)
    return GST_PAD_PROBE_OK;

  GstBuffer *buffer = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = buffer;
  GstVideoFrame frame;
  if (!gst_video_frame_map (&frame, &attachment->info, buffer, GST_MAP_READWRITE))
    return GST_PAD_PROBE_OK;
  guint8 *planes[3];
  gint strides[3];
  for (gint i = 0; i < 3; i++) {
    planes[i] = GST_VIDEO_FRAME_PLANE_DATA (&frame, i);
    strides[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, i);
  }
  c1nk_picture_blend_frame (blend, planes, strides, GST_VIDEO_FRAME_WIDTH (&frame), GST_VIDEO_FRAME_HEIGHT (&frame));
  gst_video_frame_unmap (&frame);
  return GST_PAD_PROBE_OK;
}

gulong
c1nk_picture_blend_attach (C1nkPictureBlend *blend, GstPad *pad)
{
  Attachment *attachment = g_new0 (Attachment, 1);
  attachment->blend = c1nk_picture_blend_ref (blend);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  if (caps) {
    attachment->has_info = gst_video_info_from_caps (&attachment->info, caps)
        && GST_VIDEO_INFO_FORMAT (&attachment->info) == GST_VIDEO_FORMAT_I420;
    gst_caps_unref (caps);
  }
  return gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_data,
      attachment, attachment_free);
}
