/* SPDX-License-Identifier: BSD-2-Clause */
/* The probe of --scale auto holds up to a second of pictures (60 of a 720p
 * film: 83 MB) until it decides. Held as references, they grew the
 * decoder's pool of buffers to as many, whose memory the kernel gave a
 * 4 KiB page at a time: on startup-test-elmo about 20,000 page faults,
 * 0.03-0.04 s of CPU. Copied into regions of their own, advised as huge
 * pages where the system has them (Linux), the decoder keeps its few
 * buffers and the copies fault a 2 MiB page at a time. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE beside _POSIX_C_SOURCE */
#endif
#include "decode_probe.h"

#include <stdint.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>

#define REGION ((size_t)32 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
/* row and plane alignment and padding, as a decoder's frames have */
#define ALIGN 64

typedef struct Region {
    void *map;
    size_t len;
} Region;

static void region_free(void *opaque, uint8_t *data)
{
    Region *r = opaque;
    (void)data;
#ifdef MADV_HUGEPAGE
    munmap(r->map, r->len);
#else
    av_free(r->map);
#endif
    av_free(r);
}

/* A new region of at least `need` bytes becomes the store's. */
static int new_region(SettleProbeStore *s, size_t need)
{
    size_t len = need > REGION ? need : REGION;
    len = (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    Region *r = av_mallocz(sizeof(*r));
    if (!r)
        return -1;
    uint8_t *base;
#ifdef MADV_HUGEPAGE
    r->len = len + HUGE_PAGE;
    r->map = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r->map == MAP_FAILED) {
        av_free(r);
        return -1;
    }
    base = (uint8_t *)(((uintptr_t)r->map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    (void)madvise(base, len, MADV_HUGEPAGE); /* a hint: 4 KiB pages without it */
#else
    r->len = len;
    if (!(r->map = av_malloc(len))) {
        av_free(r);
        return -1;
    }
    base = r->map;
#endif
    AVBufferRef *ref = av_buffer_create(base, len, region_free, r, 0);
    if (!ref) {
        region_free(r, NULL);
        return -1;
    }
    av_buffer_unref(&s->region);
    s->region = ref;
    s->used = 0;
    return 0;
}

AVFrame *settle_probe_copy(SettleProbeStore *s, const AVFrame *f)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(f->format);
    int ls[4] = { 0 };
    if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL |
                                 AV_PIX_FMT_FLAG_BITSTREAM)) ||
        f->width < 1 || f->height < 1 || av_image_fill_linesizes(ls, f->format, f->width) < 0)
        return av_frame_clone(f);
    const int planes = av_pix_fmt_count_planes(f->format);
    size_t off[4] = { 0 }, need = 0;
    for (int p = 0; p < planes; p++) {
        const int rows = p == 1 || p == 2 ? AV_CEIL_RSHIFT(f->height, desc->log2_chroma_h)
                                          : f->height;
        ls[p] = FFALIGN(ls[p], ALIGN) + ALIGN;
        off[p] = need;
        need += FFALIGN((size_t)ls[p] * rows + ALIGN, ALIGN);
    }
    if ((!s->region || s->used + need > (size_t)s->region->size) && new_region(s, need) < 0)
        return NULL;
    AVFrame *c = av_frame_alloc();
    if (!c)
        return NULL;
    c->format = f->format;
    c->width = f->width;
    c->height = f->height;
    if (!(c->buf[0] = av_buffer_ref(s->region)))
        goto fail;
    for (int p = 0; p < planes; p++) {
        c->data[p] = s->region->data + s->used + off[p];
        c->linesize[p] = ls[p];
    }
    if (av_frame_copy(c, f) < 0 || av_frame_copy_props(c, f) < 0)
        goto fail;
    s->used += need;
    return c;
fail:
    av_frame_free(&c);
    return NULL;
}

void settle_probe_store_free(SettleProbeStore *s)
{
    av_buffer_unref(&s->region);
    s->used = 0;
}
