#ifndef C1NK_ELEMENTS_H
#define C1NK_ELEMENTS_H

#include <gst/gst.h>

#define C1NK_AUTHOR "c1nk-gst project <https://c1nk.eu>"

GType c1nk_doorbin_get_type(void);
GType c1nk_stamp_get_type(void);
GType c1nk_latency_get_type(void);

#endif
