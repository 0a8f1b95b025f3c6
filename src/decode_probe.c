/* SPDX-License-Identifier: BSD-2-Clause */
/* The probe of --scale auto holds up to a second of pictures (60 of a 720p
 * film: 83 MB; 20 of a 2732x1536 screen: 128 MiB) until it decides. Held
 * as references, they grew the decoder's pool of buffers to as many, whose
 * memory the kernel gave a 4 KiB page at a time: on startup-test-elmo about
 * 20,000 page faults, 0.03-0.04 s of CPU. Copied into regions of their own,
 * advised as huge pages where the system has them (Linux), the decoder keeps
 * its few buffers and the copies fault a 2 MiB page at a time. Fresh memory
 * is zeroed by the kernel on its first touch (0.15-0.3 s of system time for
 * the 128 MiB of a large screen recording), so a frame that repeats most of
 * the rows of the frame before it (a screen recording's) keeps only the rows
 * that differ, and is put together again when it goes to the analysis, in
 * one of a few buffers used in turn. A camera film repeats no row: once the
 * probe calls it camera-like, src/decode.c holds its frames reduced, as their
 * properties only: the decoder's frame goes to the analysis at once
 * (settle_probe_hold_props). */
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

/* A buffer of at least `need` bytes, zeroed (the padding of a copy's rows
 * stays zero, as it always was). NULL when out of memory. */
static AVBufferRef *map_buffer(size_t need)
{
    const size_t len = (need + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    Region *r = av_mallocz(sizeof(*r));
    if (!r)
        return NULL;
    uint8_t *base;
#ifdef MADV_HUGEPAGE
    r->len = len + HUGE_PAGE;
    r->map = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r->map == MAP_FAILED) {
        av_free(r);
        return NULL;
    }
    base = (uint8_t *)(((uintptr_t)r->map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    (void)madvise(base, len, MADV_HUGEPAGE); /* a hint: 4 KiB pages without it */
#else
    r->len = len;
    if (!(r->map = av_mallocz(len))) {
        av_free(r);
        return NULL;
    }
    base = r->map;
#endif
    AVBufferRef *ref = av_buffer_create(base, len, region_free, r, 0);
    if (!ref)
        region_free(r, NULL);
    return ref;
}

/* `need` bytes of the last region, a new one when it has not room. */
static uint8_t *reserve(SettleProbeStore *s, size_t need)
{
    if (!s->nregions || s->used + need > (size_t)s->regions[s->nregions - 1]->size) {
        AVBufferRef **grown = av_realloc_array(s->regions, (size_t)s->nregions + 1,
                                               sizeof(*grown));
        if (!grown)
            return NULL;
        s->regions = grown;
        if (!(s->regions[s->nregions] = map_buffer(need > REGION ? need : REGION)))
            return NULL;
        s->nregions++;
        s->used = 0;
    }
    uint8_t *p = s->regions[s->nregions - 1]->data + s->used;
    s->used += need;
    return p;
}

/* Whether the store lays out f's planes: the first frame's format and size
 * become the store's layout, later frames must have them. */
static int fits(SettleProbeStore *s, const AVFrame *f)
{
    if (s->planes)
        return f->format == s->format && f->width == s->width && f->height == s->height;
    if (s->n)
        return 0;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(f->format);
    int ls[4] = { 0 };
    if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL |
                                 AV_PIX_FMT_FLAG_BITSTREAM)) ||
        f->width < 1 || f->height < 1 || av_image_fill_linesizes(ls, f->format, f->width) < 0)
        return 0;
    const int planes = av_pix_fmt_count_planes(f->format);
    if (planes < 1 || planes > 4)
        return 0;
    size_t need = 0;
    int nrows = 0;
    for (int p = 0; p < planes; p++) {
        s->rows[p] = p == 1 || p == 2 ? AV_CEIL_RSHIFT(f->height, desc->log2_chroma_h)
                                      : f->height;
        s->bytes[p] = ls[p];
        s->linesize[p] = FFALIGN(ls[p], ALIGN) + ALIGN;
        s->first[p] = nrows;
        nrows += s->rows[p];
        s->off[p] = need;
        need += FFALIGN((size_t)s->linesize[p] * s->rows[p] + ALIGN, ALIGN);
    }
    s->format = f->format;
    s->width = f->width;
    s->height = f->height;
    s->nrows = nrows;
    s->size = need;
    s->planes = planes;
    return 1;
}

/* c's planes: a whole copy of f in the store, row[] pointing at its rows. */
static int hold_whole(SettleProbeStore *s, AVFrame *c, const AVFrame *f, const uint8_t **row)
{
    uint8_t *base = reserve(s, s->size);
    if (!base || !(c->buf[0] = av_buffer_ref(s->regions[s->nregions - 1])))
        return AVERROR(ENOMEM);
    for (int p = 0; p < s->planes; p++) {
        c->data[p] = base + s->off[p];
        c->linesize[p] = s->linesize[p];
    }
    int ret = av_frame_copy(c, f);
    if (ret < 0)
        return ret;
    for (int p = 0; p < s->planes; p++)
        for (int y = 0; y < s->rows[p]; y++)
            row[s->first[p] + y] = c->data[p] + (ptrdiff_t)y * c->linesize[p];
    return 0;
}

int settle_probe_hold(SettleProbeStore *s, const AVFrame *f)
{
    if (s->n == SETTLE_PROBE_HELD)
        return AVERROR(ENOSPC);
    SettleProbeHeld *h = &s->held[s->n];
    if (!fits(s, f)) {
        if (!(h->frame = av_frame_clone(f)))
            return AVERROR(ENOMEM);
        s->n++;
        return 0;
    }
    const uint8_t **row = av_malloc_array((size_t)s->nrows, sizeof(*row));
    AVFrame *c = av_frame_alloc();
    int ret = AVERROR(ENOMEM);
    if (!row || !c)
        goto fail;
    c->format = f->format;
    c->width = f->width;
    c->height = f->height;
    if ((ret = av_frame_copy_props(c, f)) < 0)
        goto fail;
    /* the rows the frame held before has too */
    const SettleProbeHeld *prev = s->n ? &s->held[s->n - 1] : NULL;
    int shared = 0;
    for (int p = 0; p < s->planes; p++)
        for (int y = 0; y < s->rows[p]; y++) {
            const int k = s->first[p] + y;
            row[k] = prev && prev->row &&
                             !memcmp(f->data[p] + (ptrdiff_t)y * f->linesize[p], prev->row[k],
                                     (size_t)s->bytes[p])
                         ? prev->row[k]
                         : NULL;
            shared += row[k] != NULL;
        }
    if (2 * (int64_t)shared < s->nrows) {
        if ((ret = hold_whole(s, c, f, row)) < 0)
            goto fail;
    } else {
        ret = AVERROR(ENOMEM);
        for (int p = 0; p < s->planes; p++)
            for (int y = 0; y < s->rows[p]; y++) {
                const int k = s->first[p] + y;
                if (row[k])
                    continue;
                uint8_t *dst = reserve(s, FFALIGN((size_t)s->bytes[p], ALIGN));
                if (!dst)
                    goto fail;
                memcpy(dst, f->data[p] + (ptrdiff_t)y * f->linesize[p], (size_t)s->bytes[p]);
                row[k] = dst;
            }
    }
    h->frame = c;
    h->row = row;
    s->n++;
    return 0;
fail:
    av_free(row);
    av_frame_free(&c);
    return ret;
}

int settle_probe_hold_props(SettleProbeStore *s, const AVFrame *f)
{
    if (s->n == SETTLE_PROBE_HELD)
        return AVERROR(ENOSPC);
    SettleProbeHeld *h = &s->held[s->n];
    AVFrame *c = av_frame_alloc();
    if (!c)
        return AVERROR(ENOMEM);
    int ret = av_frame_copy_props(c, f);
    if (ret < 0) {
        av_frame_free(&c);
        return ret;
    }
    c->format = f->format;
    c->width = f->width;
    c->height = f->height;
    h->frame = c;
    h->props = 1;
    s->n++;
    return 0;
}

const uint8_t *settle_probe_row(const SettleProbeStore *s, int i, int p, int y)
{
    const SettleProbeHeld *h = &s->held[i];
    if (h->row)
        return h->row[s->first[p] + y];
    return h->frame->data[p] + (ptrdiff_t)y * h->frame->linesize[p];
}

/* A buffer of the store's that no frame taken uses any more (a new one
 * while there are fewer than SETTLE_PROBE_SLOTS). NULL: none. */
static SettleProbeSlot *free_slot(SettleProbeStore *s)
{
    for (int j = 0; j < s->nslots; j++)
        if (av_buffer_is_writable(s->slot[j].buf))
            return &s->slot[j];
    if (s->nslots == SETTLE_PROBE_SLOTS)
        return NULL;
    SettleProbeSlot *sl = &s->slot[s->nslots];
    if (!(sl->had = av_calloc((size_t)s->nrows, sizeof(*sl->had))) ||
        !(sl->buf = map_buffer(s->size))) {
        av_freep(&sl->had);
        return NULL;
    }
    for (int p = 0; p < s->planes; p++)
        sl->data[p] = sl->buf->data + s->off[p];
    s->nslots++;
    return sl;
}

int settle_probe_take(SettleProbeStore *s, int i, AVFrame *out)
{
    const SettleProbeHeld *h = &s->held[i];
    if (h->props)
        return AVERROR(EINVAL);
    if (h->frame->data[0] || !h->row)
        return av_frame_ref(out, h->frame);
    SettleProbeSlot *sl = free_slot(s);
    if (!sl)
        return AVERROR(ENOMEM);
    /* only the rows that are not there yet: in turn, a buffer held the
     * frame before the one before, most of whose rows a screen repeats */
    for (int p = 0; p < s->planes; p++)
        for (int y = 0; y < s->rows[p]; y++) {
            const int k = s->first[p] + y;
            if (sl->had[k] == h->row[k])
                continue;
            memcpy(sl->data[p] + (ptrdiff_t)y * s->linesize[p], h->row[k], (size_t)s->bytes[p]);
            sl->had[k] = h->row[k];
        }
    int ret = av_frame_copy_props(out, h->frame);
    if (ret >= 0 && !(out->buf[0] = av_buffer_ref(sl->buf)))
        ret = AVERROR(ENOMEM);
    if (ret < 0) {
        av_frame_unref(out);
        return ret;
    }
    out->format = h->frame->format;
    out->width = h->frame->width;
    out->height = h->frame->height;
    for (int p = 0; p < s->planes; p++) {
        out->data[p] = sl->data[p];
        out->linesize[p] = s->linesize[p];
    }
    return 0;
}

void settle_probe_store_free(SettleProbeStore *s)
{
    for (int i = 0; i < s->n; i++) {
        av_frame_free(&s->held[i].frame);
        av_freep(&s->held[i].row);
    }
    for (int j = 0; j < s->nslots; j++) {
        av_buffer_unref(&s->slot[j].buf);
        av_freep(&s->slot[j].had);
    }
    for (int r = 0; r < s->nregions; r++)
        av_buffer_unref(&s->regions[r]);
    av_freep(&s->regions);
    memset(s, 0, sizeof(*s));
}
