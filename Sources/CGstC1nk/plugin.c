/* libgstc1nk.so: the plugin's registration. The elements' GObject
 * boilerplate is in one file each; their behaviour is Swift. */
#include <gst/gst.h>
#include "elements.h"

#define PACKAGE "c1nk-gst"
#define PACKAGE_VERSION "0.1"

static gboolean plugin_init(GstPlugin *plugin) {
  return gst_element_register(plugin, "c1nkdoorbin", GST_RANK_NONE, c1nk_doorbin_get_type()) &&
         gst_element_register(plugin, "c1nkstamp", GST_RANK_NONE, c1nk_stamp_get_type()) &&
         gst_element_register(plugin, "c1nklatency", GST_RANK_NONE, c1nk_latency_get_type());
}

/* No licence file is shipped with the sources: "Proprietary" until the project names one. */
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, c1nk,
                  "Answers the C1nk doorbell over WebRTC, and measures glass-to-glass latency",
                  plugin_init, PACKAGE_VERSION, "Proprietary", PACKAGE, "https://c1nk.eu")
