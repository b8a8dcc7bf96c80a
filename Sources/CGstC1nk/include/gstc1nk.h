/* The GStreamer plugin libgstc1nk.so: what its Swift behaviour (the GstC1nk
 * target) calls in the C boilerplate. Only plain C types and void pointers
 * here, so this module does not import the GStreamer headers a second time
 * (Swift sees those through CGStreamer). */
#ifndef C1NK_GSTC1NK_H
#define C1NK_GSTC1NK_H

#include <stdint.h>

/* A GstStructure named `name`, filled by the setters and posted as an
 * element message of `element` (which takes it). */
void *c1nk_plugin_structure_new(const char *name);
void c1nk_plugin_structure_set_string(void *structure, const char *field, const char *value);
void c1nk_plugin_structure_set_int64(void *structure, const char *field, int64_t value);
void c1nk_plugin_structure_set_double(void *structure, const char *field, double value);
void c1nk_plugin_structure_set_boolean(void *structure, const char *field, int value);
void c1nk_plugin_post_element_message(void *element, void *structure);

/* A double property of a GObject (g_object_get is variadic). */
double c1nk_plugin_object_get_double(void *object, const char *name);

/* c1nkdoorbin: sets the read-only `door-name` and emits `ringing`,
 * `ended` or `door-opened` (`second` is NULL for the one-argument signal). */
void c1nk_doorbin_set_door_name(void *doorbin, const char *name);
void c1nk_doorbin_emit(void *doorbin, const char *signal, const char *first, const char *second);

#endif
