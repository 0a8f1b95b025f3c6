/* SPDX-License-Identifier: BSD-2-Clause */
/* settle_grab_pictures: the key frames and the filmstrip's thumbnails, chosen
 * from the analysis' measures, taken from what the analysis kept (keep.c) or
 * else from a second reading of the capture. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "keep.h"
#include "outputs.h"
#include "pictures.h"

/* Returned by the grab hook once every wanted frame went by: stops decoding. */
#define GRAB_DONE (-10000)
/* Frames whose change counted that are looked at again, at most (evenly thinned). */
#define CANDIDATES (4 * SETTLE_FILMSTRIP_MAX)
/* A thumbnail is visually distinct from the one before it on the filmstrip
 * when this share of its pixels moved by more than DISTINCT_LEVELS. */
#define DISTINCT_SHARE 0.005
#define DISTINCT_LEVELS 25

enum { KEY_START, KEY_STABLE, KEY_FIRST, KEY_LAST, NKEYS };
static const char *const key_role[NKEYS] = { "start", "stable", "first-change", "last-change" };

typedef struct Want {
    int64_t frame;
    double time;
    unsigned keys;  /* bit k: key frame k */
    int thumb;
    uint8_t *rgb;               /* kept: the frame at full size (a key frame; settle_pixels_new) */
    const SettleImage *kept;    /* kept: its thumbnail */
    uint8_t *png;               /* kept: its PNG made ahead (settle_keep_take_png), or NULL */
    size_t png_len;
} Want;

typedef struct Grab {
    const SettleOutputs *o;
    int64_t key[NKEYS];   /* frame of each key frame, -1 when none */
    double first_at, last_at; /* times (from the first frame) of the visual changes */
    int64_t from;         /* the filmstrip starts here */
    int64_t distinct, picked, seen;
    int64_t thin;         /* distinct frames kept evenly: at most this many */
    Want *want;
    int nwant, cap, cursor;
    SettlePictures *pics;
    SettleThumb *thumbs;
    int nthumbs;
} Grab;

static int is_distinct(const Grab *g, const SettleFrame *f)
{
    return f->index == g->from || (f->index > g->from && !f->quiet && !f->codec_refresh);
}

static int count_cb(void *opaque, const SettleFrame *f)
{
    Grab *g = opaque;
    if (is_distinct(g, f))
        g->distinct++;
    /* the first frame at or after each visual change's time */
    if (g->key[KEY_FIRST] < 0 && isfinite(g->first_at) && f->time >= g->first_at - 1e-6)
        g->key[KEY_FIRST] = f->index;
    if (g->key[KEY_LAST] < 0 && isfinite(g->last_at) && f->time >= g->last_at - 1e-6)
        g->key[KEY_LAST] = f->index;
    return 0;
}

static int add_want(Grab *g, const SettleFrame *f, unsigned keys, int thumb)
{
    if (g->nwant == g->cap) {
        int cap = g->cap ? 2 * g->cap : 16;
        Want *w = realloc(g->want, sizeof(*w) * (size_t)cap);
        if (!w)
            return SETTLE_ERR_NOMEM;
        g->want = w;
        g->cap = cap;
    }
    g->want[g->nwant++] = (Want){ .frame = f->index, .time = f->time, .keys = keys, .thumb = thumb };
    return 0;
}

static int pick_cb(void *opaque, const SettleFrame *f)
{
    Grab *g = opaque;
    unsigned keys = 0;
    for (int k = 0; k < NKEYS; k++)
        if (g->key[k] == f->index)
            keys |= 1u << k;
    int thumb = 0;
    if (is_distinct(g, f)) {
        int64_t j = g->seen++;
        /* evenly thinned: the j-th distinct frame when it starts a new share */
        thumb = g->distinct <= g->thin || j == 0 ||
                j * g->thin / g->distinct != (j - 1) * g->thin / g->distinct;
    }
    if (keys && f->index >= g->from)
        thumb = 1;
    if (!keys && !thumb)
        return 0;
    return add_want(g, f, keys, thumb);
}

/* Key frame k of w: the kept copy itself (w->rgb, one more reference),
 * else a copy of rgb; settle_pixels_new's either way. */
static int copy_frame(const uint8_t *rgb, ptrdiff_t stride, int width, int height, const Want *w,
                      int k, SettleImage *img)
{
    img->role = key_role[k];
    img->frame = w->frame;
    img->time = w->time;
    img->width = width;
    img->height = height;
    img->stride = (ptrdiff_t)width * 3;
    if (w->rgb) {
        img->rgb = settle_pixels_ref(w->rgb);
        return 0;
    }
    img->rgb = settle_pixels_new((size_t)img->stride * height);
    if (!img->rgb)
        return SETTLE_ERR_NOMEM;
    for (int y = 0; y < height; y++)
        memcpy(img->rgb + (ptrdiff_t)y * img->stride, rgb + (ptrdiff_t)y * stride,
               (size_t)img->stride);
    return 0;
}

static int distinct(const SettleImage *a, const SettleImage *b)
{
    int64_t moved = 0, n = (int64_t)a->width * a->height;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *pa = a->rgb + (ptrdiff_t)y * a->stride, *pb = b->rgb + (ptrdiff_t)y * b->stride;
        for (int x = 0; x < 3 * a->width; x += 3)
            moved += abs(pa[x] - pb[x]) > DISTINCT_LEVELS || abs(pa[x + 1] - pb[x + 1]) > DISTINCT_LEVELS ||
                     abs(pa[x + 2] - pb[x + 2]) > DISTINCT_LEVELS;
    }
    return moved > DISTINCT_SHARE * n;
}

/* A thumbnail's pixels, unless they are the kept one's (borrowed). */
static void thumb_free(SettleThumb *t)
{
    if (!t->borrowed)
        free(t->img.rgb);
    t->img.rgb = NULL;
}

/* At most SETTLE_FILMSTRIP_MAX thumbnails: the key frames and the others evenly. */
static void thin(Grab *g)
{
    int keys = 0;
    for (int i = 0; i < g->nthumbs; i++)
        keys += g->thumbs[i].key;
    int others = g->nthumbs - keys, room = SETTLE_FILMSTRIP_MAX - keys, n = 0, seen = 0;
    if (g->nthumbs <= SETTLE_FILMSTRIP_MAX)
        return;
    for (int i = 0; i < g->nthumbs; i++) {
        SettleThumb *t = &g->thumbs[i];
        int keep = t->key;
        if (!keep) {
            int j = seen++;
            keep = room > 0 && (j == 0 || (int64_t)j * room / others != (int64_t)(j - 1) * room / others);
        }
        if (keep)
            g->thumbs[n++] = *t;
        else
            thumb_free(t);
    }
    g->nthumbs = n;
}

/* One wanted frame's pictures: its key frames at full size from rgb, and its
 * thumbnail, w->kept read in place or else made from rgb. */
static int take(Grab *g, Want *w, const uint8_t *rgb, ptrdiff_t stride, int width, int height)
{
    const SettleImage *copy = NULL;
    for (int k = 0; k < NKEYS; k++) {
        if (!(w->keys & (1u << k)))
            continue;
        SettleImage *img = &g->pics->frame[k];
        if (copy) { /* one frame in two roles (stable and last change): one copy */
            *img = *copy;
            img->role = key_role[k];
        } else {
            int ret = copy_frame(rgb, stride, width, height, w, k, img);
            if (ret < 0)
                return ret;
            copy = img;
        }
        /* its PNG made ahead, shared by its roles like its pixels */
        g->pics->png[k] = w->png;
        g->pics->png_len[k] = w->png_len;
    }
    if (w->keys)
        w->png = NULL; /* the pictures' now */
    if (w->thumb) {
        SettleThumb *t = &g->thumbs[g->nthumbs];
        memset(t, 0, sizeof(*t));
        /* a kept thumbnail is read in place: the sheet copies it */
        int ret = 0;
        if (w->kept)
            t->img = *w->kept;
        else
            ret = settle_thumbnail(rgb, stride, width, height, SETTLE_THUMB_BOX, &t->img);
        if (ret < 0)
            return ret;
        t->borrowed = w->kept != NULL;
        t->frame = w->frame;
        t->time = w->time;
        t->start = !!(w->keys & (1u << KEY_START));
        t->stable = !!(w->keys & (1u << KEY_STABLE));
        t->key = w->keys != 0;
        /* a change that does not show at the thumbnail's size is left out */
        if (!t->key && g->nthumbs && !distinct(&g->thumbs[g->nthumbs - 1].img, &t->img)) {
            thumb_free(t);
        } else {
            g->nthumbs++;
        }
    }
    return 0;
}

static int grab_cb(void *opaque, const SettlePicture *p, int64_t index)
{
    Grab *g = opaque;
    if (g->cursor >= g->nwant)
        return GRAB_DONE;
    Want *w = &g->want[g->cursor];
    if (index < w->frame)
        return 0;
    g->cursor++;
    if (index > w->frame)
        return 0; /* the file changed since: that frame is not there */
    int ret = take(g, w, p->rgb, p->stride, p->width, p->height);
    if (ret < 0)
        return ret;
    return g->cursor >= g->nwant ? GRAB_DONE : 0;
}

static int by_frame(const void *a, const void *b)
{
    const Want *x = a, *y = b;
    return (x->frame > y->frame) - (x->frame < y->frame);
}

/* The pictures from what the analysis kept: the key frames and the chosen
 * method's candidates, in their order. 1 when a key frame was not kept. */
static int from_kept(const SettleOutputs *o, Grab *g)
{
    SettleKeep *kp = o->keep;
    const SettleKeepList *l = &kp->list[o->frames.which];
    int ret;
    if (!(kp->methods & (1u << o->frames.which)))
        return 1; /* not the method the reading kept pictures for */
    for (int k = 0; k < NKEYS; k++)
        if (g->key[k] >= 0 && !settle_keep_find(kp, g->key[k])) {
                    return 1;
        }
    for (int i = 0; i < l->n; i++) {
        SettleFrame f = { .index = l->t[i]->frame, .time = l->t[i]->time };
        if ((ret = add_want(g, &f, 0, 1)) < 0)
            return ret;
        g->want[g->nwant - 1].kept = &l->t[i]->img;
    }
    if ((ret = settle_keep_ready(kp, g->key, NKEYS)) < 0)
        return ret;
    for (int k = 0; k < NKEYS; k++) {
        const SettleKept *full = NULL;
        if (g->key[k] < 0 || (ret = settle_keep_get(kp, g->key[k], &full)) == 1)
            continue;
        if (ret < 0)
            return ret;
        SettleFrame f = { .index = full->frame, .time = full->time };
        if ((ret = add_want(g, &f, 1u << k, full->frame >= g->from)) < 0)
            return ret;
        Want *w = &g->want[g->nwant - 1];
        w->rgb = full->rgb;
        w->png = settle_keep_take_png(kp, full->frame, &w->png_len); /* the first role's */
    }
    qsort(g->want, (size_t)g->nwant, sizeof(*g->want), by_frame);
    int n = 0; /* one entry a frame */
    for (int i = 0; i < g->nwant; i++) {
        Want *w = &g->want[i];
        if (n && g->want[n - 1].frame == w->frame) {
            Want *m = &g->want[n - 1];
            m->keys |= w->keys;
            m->thumb |= w->thumb;
            m->rgb = m->rgb ? m->rgb : w->rgb;
            m->kept = m->kept ? m->kept : w->kept;
            if (!m->png) {
                m->png = w->png;
                m->png_len = w->png_len;
            }
        } else {
            g->want[n++] = *w;
        }
    }
    g->nwant = n;
    if (!(g->thumbs = calloc((size_t)g->nwant + 1, sizeof(*g->thumbs))))
        return SETTLE_ERR_NOMEM;
    for (int i = 0; i < g->nwant; i++)
        if ((ret = take(g, &g->want[i], g->want[i].rgb, (ptrdiff_t)kp->w * 3, kp->w, kp->h)) < 0)
            return ret;
    return 0;
}

/* The pictures from a second reading of the capture. */
static int reread(const SettleOutputs *o, Grab *g)
{
    if (!o->id.in_known)
        return SETTLE_ERR_INVAL;
    int ret = settle_frames_foreach(&o->frames, pick_cb, g);
    if (ret < 0)
        return ret;
    if (!(g->thumbs = calloc((size_t)g->nwant + 1, sizeof(*g->thumbs))))
        return SETTLE_ERR_NOMEM;
    return o->read_again(o->read_opaque, grab_cb, g, GRAB_DONE);
}

int settle_pictures_pick(const SettleOutputs *o, SettlePictures **out)
{
    const SettleResult *r = o->res;
    Grab g = { .o = o, .thin = CANDIDATES };
    for (int k = 0; k < NKEYS; k++)
        g.key[k] = -1;
    g.key[KEY_START] = r->start_frame;
    g.key[KEY_STABLE] = r->stable_frame;
    g.from = r->start_frame >= 0 ? r->start_frame : 0;
    double st = isfinite(r->start_time) ? r->start_time : 0;
    g.first_at = st + r->first_visual_change;
    g.last_at = st + r->last_visual_change;
    SettlePictures *pics = calloc(1, sizeof(*pics));
    int ret = pics ? 0 : SETTLE_ERR_NOMEM;
    if (!ret)
        ret = settle_frames_foreach(&o->frames, count_cb, &g);
    if (ret < 0)
        goto end;
    for (int k = 0; k < 4; k++)
        pics->frame[k].frame = -1;
    g.pics = pics;
    /* the candidates were kept by the method's own start: with no start, read again */
    int again = o->keep->on && !o->keep->failed && r->start_frame >= 0 ? from_kept(o, &g) : 1;
    if (again == 1) {
        g.nwant = 0;
        ret = reread(o, &g);
    } else {
        ret = again;
    }
    if (ret < 0)
        goto end;
    pics->reread = again == 1;
    /* the key frames that were found, in their order */
    int n = 0;
    for (int k = 0; k < NKEYS; k++)
        if (pics->frame[k].rgb) {
            pics->png[n] = pics->png[k];
            pics->png_len[n] = pics->png_len[k];
            pics->frame[n++] = pics->frame[k];
        }
    for (int k = n; k < NKEYS; k++) {
        memset(&pics->frame[k], 0, sizeof(pics->frame[k]));
        pics->png[k] = NULL;
        pics->png_len[k] = 0;
    }
    pics->nframes = n;
    thin(&g);
    if ((ret = settle_filmstrip(g.thumbs, g.nthumbs, &pics->filmstrip)) < 0)
        goto end;
    pics->thumbs = g.nthumbs;
end:
    for (int i = 0; i < g.nwant; i++)
        free(g.want[i].png); /* not handed to the pictures (an error) */
    for (int i = 0; i < g.nthumbs; i++)
        thumb_free(&g.thumbs[i]);
    free(g.thumbs);
    free(g.want);
    if (ret < 0)
        settle_pictures_free(&pics);
    *out = pics;
    return ret;
}

void settle_pictures_free(SettlePictures **p)
{
    if (!p || !*p)
        return;
    for (int k = 0; k < 4; k++) {
        int shared = 0, png_shared = 0;
        for (int j = 0; j < k; j++) {
            shared |= (*p)->frame[j].rgb == (*p)->frame[k].rgb;
            png_shared |= (*p)->png[j] == (*p)->png[k];
        }
        if (!shared)
            settle_pixels_unref((*p)->frame[k].rgb);
        if (!png_shared)
            free((*p)->png[k]);
    }
    free((*p)->filmstrip.rgb);
    free(*p);
    *p = NULL;
}
