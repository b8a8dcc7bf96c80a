/* sofia-sip with its GLib main-loop source (Debian: libsofia-sip-ua-glib-dev), for CSIPAgent alone. */
#ifndef C1NK_SOFIA_SIP_SHIM_H
#define C1NK_SOFIA_SIP_SHIM_H
#include <sofia-sip/su_glib.h>
#endif
