/* Fixed-signature helpers for Swift: GstStructure setters and g_object_get are variadic. */
#include <gst/gst.h>
#include "gstc1nk.h"

void *c1nk_plugin_structure_new(const char *name) { return gst_structure_new_empty(name); }

void c1nk_plugin_structure_set_string(void *structure, const char *field, const char *value) {
  gst_structure_set(structure, field, G_TYPE_STRING, value, NULL);
}

void c1nk_plugin_structure_set_int64(void *structure, const char *field, int64_t value) {
  gst_structure_set(structure, field, G_TYPE_INT64, (gint64)value, NULL);
}

void c1nk_plugin_structure_set_double(void *structure, const char *field, double value) {
  gst_structure_set(structure, field, G_TYPE_DOUBLE, value, NULL);
}

void c1nk_plugin_structure_set_boolean(void *structure, const char *field, int value) {
  gst_structure_set(structure, field, G_TYPE_BOOLEAN, value ? TRUE : FALSE, NULL);
}

void c1nk_plugin_post_element_message(void *element, void *structure) {
  gst_element_post_message(GST_ELEMENT(element), gst_message_new_element(GST_OBJECT(element), structure));
}

double c1nk_plugin_object_get_double(void *object, const char *name) {
  gdouble value = 0;
  g_object_get(object, name, &value, NULL);
  return value;
}
