/* libmosquitto (Debian: libmosquitto-dev), for C1nkMQTT alone. */
#ifndef C1NK_MOSQUITTO_SHIM_H
#define C1NK_MOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
