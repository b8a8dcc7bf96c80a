#ifndef C1NK_PICTURE_BLEND_H
#define C1NK_PICTURE_BLEND_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* Blends still pictures over every frame that crosses a pad, in native code:
 * the wall display's drawing over the door's video. The pictures are set
 * once per state change (premultiplied BGRA, as Cairo draws them) and
 * converted then to BT.709 Y'CbCr with alpha; per frame, each pixel of a
 * picture costs a multiply and an add per plane (I420 frames only; others
 * pass untouched). Safe to set from one thread while frames flow on another. */
typedef struct C1nkPictureBlend C1nkPictureBlend;

typedef struct {
  gint x, y;
  gint width, height;
  /* width × height × 4 bytes: B, G, R, A with the colour premultiplied. */
  const guint8 *bgra;
} C1nkBlendPicture;

C1nkPictureBlend *c1nk_picture_blend_new (void);
C1nkPictureBlend *c1nk_picture_blend_ref (C1nkPictureBlend *blend);
void c1nk_picture_blend_unref (C1nkPictureBlend *blend);

/* Replaces what is blended by `count` pictures (0: nothing, the frames pass
 * untouched). The pixels are copied. */
void c1nk_picture_blend_set (C1nkPictureBlend *blend, guint count, const C1nkBlendPicture *pictures);

/* Blends onto every buffer that `pad` pushes from now on (a pad probe that
 * holds its own reference); returns the probe's id. */
gulong c1nk_picture_blend_attach (C1nkPictureBlend *blend, GstPad *pad);

/* Blends onto one mapped I420 frame of `width` × `height` (planes and strides
 * as GstVideoFrame gives them): the probe's work, exposed for tests. */
void c1nk_picture_blend_frame (C1nkPictureBlend *blend, guint8 *planes[3], const gint strides[3], gint width, gint height);

G_END_DECLS

#endif
