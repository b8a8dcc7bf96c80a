/* gst-rtsp-server (Debian: libgstrtspserver-1.0-dev), for CRestream alone. */
#ifndef C1NK_RTSP_SERVER_SHIM_H
#define C1NK_RTSP_SERVER_SHIM_H
#include <gst/rtsp-server/rtsp-server.h>
#endif
