/* SPDX-License-Identifier: BSD-2-Clause */
/* Test helper: a PNG decoded with libpng's simplified API, so that the tests
 * and their helper programs read pictures back one way. */
#ifndef SETTLE_TESTS_PNGREAD_H
#define SETTLE_TESTS_PNGREAD_H

#include <stddef.h>
#include <stdint.h>

/* The pixels of the PNG at `path` as 8-bit rows of RGB (channels 3) or RGBA
 * (channels 4), top row first, in a buffer to free(); *w, *h and *size (in
 * bytes) set. NULL when it does not decode, with the reason in why (libpng's
 * message, or "out of memory"; at least 64 bytes). */
uint8_t *pngread(const char *path, int channels, unsigned *w, unsigned *h, size_t *size,
                 char why[64]);

#endif
