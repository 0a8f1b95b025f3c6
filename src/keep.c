/* SPDX-License-Identifier: BSD-2-Clause */
/* What the pictures need, kept during the one reading of the capture. */
#include <stdlib.h>
#include <string.h>

#include "keep.h"

/* A copy no role holds goes back to the spares: a fresh allocation of a
 * whole picture costs its page faults every time. */
static void kept_release(SettleKeep *k, SettleKept *p)
{
    if (!p || --p->refs > 0)
        return;
    if (k->nspare < SETTLE_KEEP_SPARES) {
        k->spare[k->nspare++] = p;
    } else {
        free(p->rgb);
        free(p);
    }
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
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++) {
        kept_release(k, k->role[r]);
        k->role[r] = NULL;
    }
    for (int i = 0; i < k->nspare; i++) {
        free(k->spare[i]->rgb);
        free(k->spare[i]);
    }
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

void settle_keep_begin(SettleKeep *k, int on, int w, int h)
{
    settle_keep_free(k);
    k->on = on;
    k->failed = 0;
    k->w = w;
    k->h = h;
    for (int t = 0; t < SETTLE_T_COUNT; t++)
        k->list[t].step = 1;
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

/* A copy of the picture; with tr, its thumbnail made band by band from the
 * rows just copied, while they are in the cache (one reading of the picture
 * from memory instead of two). */
static SettleKept *copy_picture(SettleKeep *k, const SettleKeepFrame *f, const uint8_t *rgb,
                                ptrdiff_t stride, SettleThumbRows *tr)
{
    SettleKept *p = k->nspare ? k->spare[--k->nspare] : calloc(1, sizeof(*p));
    size_t row = (size_t)k->w * 3;
    if (!p || (!p->rgb && !(p->rgb = malloc(row * (size_t)k->h)))) {
        free(p);
        return NULL;
    }
    p->refs = 0;
    for (int y = 0; y < k->h;) {
        int end = tr ? settle_thumb_band_end(tr) : k->h;
        end = end > y ? end : y + 1;
        for (; y < end; y++)
            memcpy(p->rgb + row * (size_t)y, rgb + stride * y, row);
        if (tr)
            settle_thumb_rows(tr, p->rgb, (ptrdiff_t)row, end);
    }
    p->frame = f->index;
    p->time = f->time;
    return p;
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
    if ((full || thumb) && fill && (ret = fill(fill_opaque, 0, k->h - 1)) < 0)
        return ret;
    SettleKeptThumb *t = NULL;
    SettleThumbRows tr;
    if (thumb && (!(t = calloc(1, sizeof(*t))) ||
                  settle_thumb_begin(&tr, k->w, k->h, SETTLE_THUMB_BOX, &t->img) < 0)) {
        free(t);
        return give_up(k);
    }
    SettleKept *cur = NULL;
    if (full && !(cur = copy_picture(k, f, rgb, stride, t ? &tr : NULL))) {
        if (t) {
            settle_thumb_end(&tr);
            free(t->img.rgb);
            free(t);
        }
        return give_up(k);
    }
    if (t) {
        if (!full)
            settle_thumb_rows(&tr, rgb, stride, k->h);
        settle_thumb_end(&tr);
    }
    if (cur)
        cur->refs = 1; /* held while the roles move */
    move_roles(k, f, cur);
    kept_release(k, cur);
    if (!t)
        return 0;
    t->frame = f->index;
    t->time = f->time;
    t->refs = 1;
    for (int m = 0; m < SETTLE_T_COUNT; m++)
        if (ord[m] >= 0 && add_thumb(&k->list[m], t, ord[m]) < 0) {
            thumb_release(t);
            return give_up(k);
        }
    thumb_release(t);
    return 0;
}

int settle_keep_last(SettleKeep *k, int64_t index, double time, const uint8_t *rgb,
                     ptrdiff_t stride, SettleFillRows fill, void *fill_opaque)
{
    if (!k->on || k->failed || index < 0)
        return 0;
    SettleKeepFrame f = { .index = index, .time = time };
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
