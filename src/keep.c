/* SPDX-License-Identifier: BSD-2-Clause */
/* What the pictures need, kept during the one reading of the capture. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE beside _POSIX_C_SOURCE */
#include <sys/mman.h>
#endif
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

static void kept_free(SettleKept *p)
{
    if (p->held)
        p->held->release(p->held);
    settle_pixels_unref(p->rgb);
    free(p->png);
    free(p);
}

/* A copy no role holds goes back to the spares: a fresh allocation of a
 * whole picture costs its page faults every time. Pixels the pictures hold
 * too are theirs to keep as they are: never a spare. */
static void kept_release(SettleKeep *k, SettleKept *p)
{
    if (!p || --p->refs > 0)
        return;
    if (p->rgb && k->nspare < SETTLE_KEEP_SPARES && !settle_pixels_shared(p->rgb)) {
        free(p->png); /* its pixels change with its next picture */
        p->png = NULL;
        k->spare[k->nspare++] = p;
    } else {
        kept_free(p);
    }
}

static int early_stopped(SettleKeepEarly *e)
{
    return atomic_load_explicit(&e->stop, memory_order_relaxed);
}

/* settle_keep_early's thread: each picture rendered when held, then its PNG
 * encoded, until stopped. It writes only into e. */
static void *early_make(void *arg)
{
    SettleKeepEarly *e = arg;
    const size_t row = (size_t)e->w * 3;
    for (int i = 0; i < e->n && !early_stopped(e); i++) {
        const uint8_t *rgb = e->src[i];
        if (!rgb && (rgb = e->px[i] = settle_pixels_new(row * (size_t)e->h)))
            e->p[i]->held->render(e->p[i]->held, e->px[i], (ptrdiff_t)row);
        SettleImage img = { .width = e->w, .height = e->h, .stride = (ptrdiff_t)row,
                            .rgb = (uint8_t *)(uintptr_t)rgb };
        if (rgb && e->png && !early_stopped(e) &&
            settle_encode_png(&img, &e->bytes[i], &e->len[i]) < 0)
            e->bytes[i] = NULL;
        atomic_fetch_add_explicit(&e->done, 1, memory_order_release);
    }
    return NULL;
}

/* settle_keep_early's thread stopped, what it made taken: the pixels as
 * settle_keep_get would make them, the PNGs for settle_keep_take_png. */
static void early_join(SettleKeep *k)
{
    SettleKeepEarly *e = &k->early;
    if (!e->on)
        return;
    atomic_store_explicit(&e->stop, 1, memory_order_relaxed);
    pthread_join(e->th, NULL);
    for (int i = 0; i < e->n; i++) {
        SettleKept *p = e->p[i];
        if (e->px[i]) {
            p->held->release(p->held);
            p->held = NULL;
            p->rgb = e->px[i];
            p->tick = 0; /* as a spare: copied whole */
        }
        if (e->bytes[i]) {
            free(p->png);
            p->png = e->bytes[i];
            p->png_len = e->len[i];
        }
    }
    memset(e, 0, sizeof(*e));
}

void settle_keep_early(SettleKeep *k, int which)
{
    early_join(k);
    if (!k->on || k->failed || which < 0 || which >= SETTLE_T_COUNT ||
        !(k->methods & (1u << which)))
        return;
    SettleKeepEarly *e = &k->early;
    /* in the order the tail needs them: the stable frame (its PNG the
     * longest, and the answer's source) first */
    const int roles[SETTLE_KEEP_EARLY] = { SETTLE_KEEP_SETTLED + which, SETTLE_KEEP_FIRST + which,
                                           SETTLE_KEEP_START + which, SETTLE_KEEP_LAST + which };
    for (int i = 0; i < SETTLE_KEEP_EARLY; i++) {
        SettleKept *q = k->role[roles[i]];
        int dup = 0;
        for (int j = 0; j < e->n; j++)
            dup |= e->p[j] == q;
        if (q && !dup && (q->held || (k->png && q->rgb && !q->png))) {
            e->src[e->n] = q->held ? NULL : q->rgb;
            e->p[e->n++] = q;
        }
    }
    e->w = k->w;
    e->h = k->h;
    e->png = k->png;
    atomic_init(&e->stop, 0);
    atomic_init(&e->done, 0);
    if (e->n && pthread_create(&e->th, NULL, early_make, e) == 0)
        e->on = 1;
    else
        memset(e, 0, sizeof(*e));
}

uint8_t *settle_keep_take_png(SettleKeep *k, int64_t frame, size_t *len)
{
    early_join(k);
    SettleKept *p = (SettleKept *)settle_keep_find(k, frame);
    uint8_t *png = p ? p->png : NULL;
    *len = png ? p->png_len : 0;
    if (p)
        p->png = NULL;
    return png;
}

static void thumb_release(SettleKeptThumb *t)
{
    if (t && --t->refs <= 0) {
        free(t->img.rgb);
        free(t);
    }
}

void settle_keep_free(SettleKeep *k)
{
    early_join(k);
    thumb_release(k->last_thumb);
    k->last_thumb = NULL;
    free(k->row_tick);
    k->row_tick = NULL;
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++) {
        kept_release(k, k->role[r]);
        k->role[r] = NULL;
    }
    for (int i = 0; i < k->nspare; i++)
        kept_free(k->spare[i]);
    k->nspare = 0;
    for (int t = 0; t < SETTLE_T_COUNT; t++) {
        SettleKeepList *l = &k->list[t];
        for (int i = 0; i < l->n; i++)
            thumb_release(l->t[i]);
        free(l->t);
        free(l->ordinal);
        memset(l, 0, sizeof(*l));
    }
}

void settle_keep_begin(SettleKeep *k, unsigned methods, int w, int h)
{
    settle_keep_free(k);
    k->on = methods != 0;
    k->methods = methods;
    k->failed = 0;
    k->w = w;
    k->h = h;
    k->tick = 0;
    for (int t = 0; t < SETTLE_T_COUNT; t++)
        k->list[t].step = 1;
    /* without it (out of memory), every row counts as changed */
    k->row_tick = k->on && h > 0 ? calloc((size_t)h, sizeof(*k->row_tick)) : NULL;
}

void settle_keep_changed(SettleKeep *k, const uint8_t *changed, int band_h)
{
    early_join(k);
    if (!k->on || k->failed)
        return;
    k->tick++;
    for (int y = 0; k->row_tick && y < k->h; y++)
        if (!changed || band_h <= 0 || changed[y / band_h])
            k->row_tick[y] = k->tick;
}

/* Out of memory: nothing more is kept, and the pictures read the capture again. */
static int give_up(SettleKeep *k)
{
    settle_keep_free(k);
    k->failed = 1;
    return 0;
}

const SettleKept *settle_keep_find(const SettleKeep *k, int64_t frame)
{
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++)
        if (k->role[r] && k->role[r]->frame == frame)
            return k->role[r];
    return NULL;
}

int settle_keep_get(SettleKeep *k, int64_t frame, const SettleKept **out)
{
    early_join(k);
    SettleKept *p = (SettleKept *)settle_keep_find(k, frame);
    if (!p)
        return 1;
    if (p->held) {
        const size_t row = (size_t)k->w * 3;
        uint8_t *px = settle_pixels_new(row * (size_t)k->h);
        if (!px)
            return SETTLE_ERR_NOMEM;
        p->held->render(p->held, px, (ptrdiff_t)row);
        p->held->release(p->held);
        p->held = NULL;
        p->rgb = px;
        p->tick = 0; /* as a spare: copied whole */
    }
    *out = p;
    return 0;
}

/* Held pictures rendered by one thread: every other one of the list from
 * `first`, each into new pixels (NULL when out of memory). */
typedef struct RenderJobs {
    const SettleKeep *k;
    SettleKept **p;
    uint8_t **px;
    int n, first;
} RenderJobs;

static void *render_jobs(void *arg)
{
    const RenderJobs *j = arg;
    const size_t row = (size_t)j->k->w * 3;
    for (int i = j->first; i < j->n; i += 2)
        if ((j->px[i] = settle_pixels_new(row * (size_t)j->k->h)))
            j->p[i]->held->render(j->p[i]->held, j->px[i], (ptrdiff_t)row);
    return NULL;
}

int settle_keep_ready(SettleKeep *k, const int64_t *frames, int n)
{
    early_join(k);
    SettleKept *p[SETTLE_KEEP_ROLES];
    uint8_t *px[SETTLE_KEEP_ROLES];
    int m = 0;
    for (int i = 0; i < n && m < SETTLE_KEEP_ROLES; i++) {
        SettleKept *q = frames[i] >= 0 ? (SettleKept *)settle_keep_find(k, frames[i]) : NULL;
        int dup = 0;
        for (int j = 0; j < m; j++)
            dup |= p[j] == q;
        if (q && q->held && !dup)
            p[m++] = q;
    }
    if (m < 2)
        return 0; /* settle_keep_get renders it */
    RenderJobs odd = { .k = k, .p = p, .px = px, .n = m, .first = 1 },
               even = { .k = k, .p = p, .px = px, .n = m, .first = 0 };
    pthread_t th;
    const int started = pthread_create(&th, NULL, render_jobs, &odd) == 0;
    render_jobs(&even);
    if (started)
        pthread_join(th, NULL);
    else
        render_jobs(&odd);
    int ret = 0;
    for (int i = 0; i < m; i++) {
        if (!px[i]) {
            ret = SETTLE_ERR_NOMEM;
            continue;
        }
        p[i]->held->release(p[i]->held);
        p[i]->held = NULL;
        p[i]->rgb = px[i];
        p[i]->tick = 0; /* as a spare: copied whole */
    }
    return ret;
}

/* A buffer for a copy of the picture: a spare (its pixels those of its
 * picture, p->tick) or a new one (p->rgb NULL until make_rows). */
static SettleKept *copy_buffer(SettleKeep *k)
{
    SettleKept *p = k->nspare ? k->spare[--k->nspare] : calloc(1, sizeof(*p));
    if (p && p->rgb && settle_pixels_shared(p->rgb)) { /* held by pictures since */
        settle_pixels_unref(p->rgb);
        memset(p, 0, sizeof(*p));
    }
    if (p && !p->rgb && !(p->rgb = settle_pixels_new((size_t)k->w * 3 * (size_t)k->h))) {
        free(p);
        return NULL;
    }
    return p;
}

/* The rows of the copy p (when not NULL) that changed since its picture
 * (every row of a new buffer: fresh), and the thumbnail of tr (when not
 * NULL) band by band, each band's row copied from the last thumbnail when
 * none of its source rows changed since, else made from the rows just read,
 * while they are in the cache. The same pixels as a whole copy and
 * settle_thumbnail. */
static void make_rows(SettleKeep *k, SettleKept *p, int fresh, SettleThumbRows *tr,
                      const uint8_t *rgb, ptrdiff_t stride, SettleFillRows fill,
                      void *fill_opaque)
{
    size_t row = (size_t)k->w * 3;
    const uint64_t *at = k->row_tick;
    const SettleKeptThumb *prev = tr && at ? k->last_thumb : NULL;
    for (int y = 0; y < k->h;) {
        int end = tr ? settle_thumb_band_end(tr) : k->h;
        end = end > y ? end : y + 1;
        if (fill) /* the band's rows readied just before they are read */
            fill(fill_opaque, y, end - 1);
        int moved = !prev;
        for (; y < end; y++) {
            if (p && (fresh || !at || at[y] > p->tick))
                memcpy(p->rgb + row * (size_t)y, rgb + stride * y, row);
            moved |= prev && at[y] > prev->tick;
        }
        if (tr && moved)
            settle_thumb_rows(tr, rgb, stride, end);
        else if (tr)
            settle_thumb_copy_row(tr, prev->img.rgb + prev->img.stride * tr->y);
    }
    if (p)
        p->tick = k->tick;
}

/* The roles that move at this frame; cur is this frame's copy (or NULL). */
static void move_roles(SettleKeep *k, const SettleKeepFrame *f, SettleKept *cur)
{
    SettleKept *to[SETTLE_KEEP_ROLES];
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++) {
        to[r] = k->role[r];
        if (to[r])
            to[r]->refs++; /* every role let go below, kept or moved */
    }
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++) {
        int64_t fr = f->role[r];
        if (fr == -2)
            continue;
        SettleKept *was = to[r];
        to[r] = fr == f->index ? cur : fr >= 0 ? (SettleKept *)settle_keep_find(k, fr) : NULL;
        if (to[r])
            to[r]->refs++;
        kept_release(k, was);
        if (r == SETTLE_KEEP_VLAST) { /* the last stored picture becomes the one before */
            kept_release(k, to[SETTLE_KEEP_VPREV]);
            to[SETTLE_KEEP_VPREV] = k->role[SETTLE_KEEP_VLAST];
            if (to[SETTLE_KEEP_VPREV])
                to[SETTLE_KEEP_VPREV]->refs++;
        }
    }
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++) {
        kept_release(k, k->role[r]);
        k->role[r] = to[r];
    }
}

/* Every other candidate dropped: the list keeps every 2 * step-th distinct frame. */
static void halve(SettleKeepList *l)
{
    int n = 0;
    l->step *= 2;
    for (int i = 0; i < l->n; i++) {
        if (l->ordinal[i] % l->step == 0) {
            l->t[n] = l->t[i];
            l->ordinal[n++] = l->ordinal[i];
        } else {
            thumb_release(l->t[i]);
        }
    }
    l->n = n;
}

static int add_thumb(SettleKeepList *l, SettleKeptThumb *t, int64_t ordinal)
{
    if (!l->t) {
        l->t = malloc(sizeof(*l->t) * (SETTLE_KEEP_CANDIDATES + 1));
        l->ordinal = malloc(sizeof(*l->ordinal) * (SETTLE_KEEP_CANDIDATES + 1));
        if (!l->t || !l->ordinal)
            return -1;
    }
    t->refs++;
    l->t[l->n] = t;
    l->ordinal[l->n++] = ordinal;
    if (l->n > SETTLE_KEEP_CANDIDATES)
        halve(l);
    return 0;
}

int settle_keep_frame(SettleKeep *k, const SettleKeepFrame *f, const uint8_t *rgb,
                      ptrdiff_t stride, SettleFillRows fill, void *fill_opaque)
{
    early_join(k);
    if (!k->on || k->failed)
        return 0;
    int full = 0, thumb = 0, moves = 0;
    int64_t ord[SETTLE_T_COUNT];
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++) {
        full |= f->role[r] == f->index;
        moves |= f->role[r] != -2;
    }
    for (int t = 0; t < SETTLE_T_COUNT; t++) {
        ord[t] = -1;
        if (!f->distinct[t])
            continue;
        SettleKeepList *l = &k->list[t];
        ord[t] = l->seen++;
        if (ord[t] % l->step == 0)
            thumb = 1;
        else
            ord[t] = -1;
    }
    if (!full && !thumb && !moves)
        return 0;
    int ret;
    /* A picture its source holds is not copied (nor its rows readied, when
     * no thumbnail reads them); the decoder's frames are held by reference. */
    SettleHeld *held = full && f->hold ? f->hold(f->hold_opaque) : NULL;
    /* the rows are readied band by band as they are read (make_rows); the
     * first band here, where the source can still fail (a picture held
     * reduced that cannot be decoded again); the others cannot */
    if (!thumb && !(full && !held))
        fill = NULL;
    if (fill && (ret = fill(fill_opaque, 0, 0)) != 0) {
        if (held)
            held->release(held);
        return ret < 0 ? ret : give_up(k);
    }
    SettleKeptThumb *t = NULL;
    SettleThumbRows tr;
    if (thumb && (!(t = calloc(1, sizeof(*t))) ||
                  settle_thumb_begin(&tr, k->w, k->h, SETTLE_THUMB_BOX, &t->img) < 0)) {
        free(t);
        if (held)
            held->release(held);
        return give_up(k);
    }
    if (t && k->box_means)
        tr.box_means = k->box_means;
    SettleKept *cur = NULL;
    if (held && (cur = calloc(1, sizeof(*cur))))
        cur->held = held;
    else if (held)
        held->release(held);
    if (full && !cur && (held || !(cur = copy_buffer(k)))) {
        if (t) {
            settle_thumb_end(&tr);
            free(t->img.rgb);
            free(t);
        }
        return give_up(k);
    }
    if (cur && !cur->held)
        make_rows(k, cur, !cur->tick, t ? &tr : NULL, rgb, stride, fill, fill_opaque);
    else if (t)
        make_rows(k, NULL, 0, &tr, rgb, stride, fill, fill_opaque);
    if (cur) {
        cur->frame = f->index;
        cur->time = f->time;
        cur->refs = 0;
    }
    if (t)
        settle_thumb_end(&tr);
    if (cur)
        cur->refs = 1; /* held while the roles move */
    move_roles(k, f, cur);
    kept_release(k, cur);
    if (!t)
        return 0;
    t->frame = f->index;
    t->time = f->time;
    t->refs = 1;
    t->tick = k->tick;
    thumb_release(k->last_thumb);
    k->last_thumb = t;
    t->refs++;
    for (int m = 0; m < SETTLE_T_COUNT; m++)
        if (ord[m] >= 0 && add_thumb(&k->list[m], t, ord[m]) < 0) {
            thumb_release(t);
            return give_up(k);
        }
    thumb_release(t);
    return 0;
}

int settle_keep_last(SettleKeep *k, int64_t index, double time, const uint8_t *rgb,
                     ptrdiff_t stride, SettleFillRows fill, void *fill_opaque,
                     SettleHoldPicture hold, void *hold_opaque)
{
    early_join(k);
    if (!k->on || k->failed || index < 0)
        return 0;
    SettleKeepFrame f = { .index = index, .time = time, .hold = hold, .hold_opaque = hold_opaque };
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++)
        f.role[r] = -2;
    /* a frame already held (the latest change, often) is not copied again */
    f.role[SETTLE_KEEP_END] = index;
    if (settle_keep_find(k, index)) {
        move_roles(k, &f, (SettleKept *)settle_keep_find(k, index));
        return 0;
    }
    return settle_keep_frame(k, &f, rgb, stride, fill, fill_opaque);
}
