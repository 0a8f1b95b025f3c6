/* SPDX-License-Identifier: BSD-2-Clause */
/* Pictures' pixels shared by counted references (keep.h): the kept copies,
 * the key frames handed to the pictures, the PNGs' sources made ahead. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE beside _POSIX_C_SOURCE */
#include <sys/mman.h>
#endif
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "keep.h"

/* The count before the pixels, which keep malloc's alignment, and the
 * length of their mapping (0: malloc's). */
typedef union PixelsHead {
    struct {
        atomic_int refs;
        size_t map_len;
    } h;
    max_align_t align;
} PixelsHead;

static PixelsHead *pixels_head(const uint8_t *px)
{
    return (PixelsHead *)(uintptr_t)(px - sizeof(PixelsHead));
}

/* A whole picture (a kept copy, a key frame) is written whole once it is
 * had: its pages are faulted in by one call (MAP_POPULATE) instead of one
 * fault each 4 KiB on the first touch, which on a virtual machine costs
 * about as much again as the kernel's zeroing (8 copies of 2732x1536 written
 * by memcpy: 0.34 s of CPU, 0.18 s populated). */
#define PIXELS_MAP_MIN ((size_t)1 << 20)
/* AddressSanitizer checks the bounds of malloc's blocks, not of a mapping */
#if defined(MAP_POPULATE) && !defined(__SANITIZE_ADDRESS__)
#define PIXELS_MAP 1
#endif

uint8_t *settle_pixels_new(size_t size)
{
    if (size > SIZE_MAX - sizeof(PixelsHead))
        return NULL;
    size_t len = sizeof(PixelsHead) + size;
    PixelsHead *h = NULL;
#ifdef PIXELS_MAP
    if (size >= PIXELS_MAP_MIN) {
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (m != MAP_FAILED) {
            h = m;
            h->h.map_len = len;
        }
    }
#endif
    if (!h && (h = malloc(len)))
        h->h.map_len = 0;
    if (!h)
        return NULL;
    atomic_init(&h->h.refs, 1);
    return (uint8_t *)(h + 1);
}

uint8_t *settle_pixels_ref(uint8_t *px)
{
    atomic_fetch_add_explicit(&pixels_head(px)->h.refs, 1, memory_order_relaxed);
    return px;
}

void settle_pixels_unref(uint8_t *px)
{
    if (!px)
        return;
    PixelsHead *h = pixels_head(px);
    if (atomic_fetch_sub_explicit(&h->h.refs, 1, memory_order_acq_rel) != 1)
        return;
#ifdef PIXELS_MAP
    if (h->h.map_len) {
        munmap(h, h->h.map_len);
        return;
    }
#endif
    free(h);
}

int settle_pixels_shared(const uint8_t *px)
{
    return atomic_load_explicit(&pixels_head(px)->h.refs, memory_order_acquire) > 1;
}
