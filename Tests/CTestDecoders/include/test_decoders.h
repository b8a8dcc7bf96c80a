#ifndef C1NK_TEST_DECODERS_H
#define C1NK_TEST_DECODERS_H

#include <gst/gst.h>

/* Registers, in this process only and at rank none (no pipeline takes them
 * unless told), two video decoders that call themselves hardware, for the
 * tests of decoder choice and fallback:
 *   c1nkfailingvp8dec  vp8dec inside, then an error after "fail-after" frames;
 *   c1nkhangingvp8dec  vp8dec inside, each frame held for 5 s (a hung driver). */
void c1nk_test_decoders_register(void);

#endif
