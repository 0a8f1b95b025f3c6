/* SPDX-License-Identifier: BSD-2-Clause */
/* settle_grab_frames: a picture of chosen frames (the frame on screen at each
 * mark, for the report), from the copies the analysis kept when it holds
 * them all (settle_keep_pictures), else from a second reading. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outputs.h"
#include "pictures.h"

/* Returned by the hook once the last wanted frame went by: stops decoding. */
#define FRAMES_DONE (-10001)

typedef struct FrameGrab {
    const int64_t *want;
    int n, box;
    int64_t last;
    SettleImage *img;
} FrameGrab;

static int frames_cb(void *opaque, const SettlePicture *p, int64_t index)
{
    FrameGrab *g = opaque;
    if (index > g->last)
        return FRAMES_DONE;
    const SettleImage *copy = NULL;
    for (int i = 0; i < g->n; i++) {
        if (g->want[i] != index || g->img[i].rgb)
            continue;
        SettleImage *img = &g->img[i];
        if (copy) { /* the same frame asked twice: its own copy, freed once each */
            size_t sz = (size_t)copy->stride * (size_t)copy->height;
            uint8_t *rgb = malloc(sz ? sz : 1);
            if (!rgb)
                return SETTLE_ERR_NOMEM;
            memcpy(rgb, copy->rgb, sz);
            *img = *copy;
            img->rgb = rgb;
            continue;
        }
        double t = img->time;
        int ret = settle_thumbnail(p->rgb, p->stride, p->width, p->height, g->box, img);
        if (ret < 0)
            return ret;
        img->role = "frame";
        img->frame = index;
        img->time = t;
        copy = img;
    }
    return index >= g->last ? FRAMES_DONE : 0;
}

/* The first reading's time of each wanted frame. */
static int times_cb(void *opaque, const SettleFrame *f)
{
    FrameGrab *g = opaque;
    for (int i = 0; i < g->n; i++)
        if (g->want[i] == f->index)
            g->img[i].time = f->time;
    return f->index >= g->last ? 1 : 0;
}

void settle_frames_free(SettleImage **imgs, int n)
{
    if (!imgs || !*imgs)
        return;
    for (int i = 0; i < n; i++)
        free((*imgs)[i].rgb);
    free(*imgs);
    *imgs = NULL;
}

/* Every wanted frame from the analysis' kept copies: 1 when one is not held. */
static int from_kept(const SettleOutputs *o, FrameGrab *g)
{
    SettleKeep *k = o->keep;
    if (!k->on || k->failed)
        return 1;
    for (int i = 0; i < g->n; i++)
        if (g->want[i] >= 0 && !settle_keep_find(k, g->want[i]))
            return 1;
    for (int i = 0; i < g->n; i++) {
        const SettleKept *p = NULL;
        int ret = g->want[i] >= 0 ? settle_keep_get(k, g->want[i], &p) : 1;
        if (ret < 0)
            return ret;
        if (ret == 1)
            continue;
        SettleImage *img = &g->img[i];
        double t = img->time;
        ret = settle_thumbnail(p->rgb, (ptrdiff_t)k->w * 3, k->w, k->h, g->box, img);
        if (ret < 0)
            return ret;
        img->role = "frame";
        img->frame = p->frame;
        img->time = t;
    }
    return 0;
}

int settle_frames_pick(const SettleOutputs *o, const int64_t *frames, int n, int box,
                       SettleImage **out)
{
    FrameGrab g = { .want = frames, .n = n, .box = box, .last = -1 };
    g.img = calloc((size_t)n + 1, sizeof(*g.img));
    if (!g.img)
        return SETTLE_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        g.img[i].frame = -1;
        g.img[i].time = NAN;
        if (frames[i] > g.last)
            g.last = frames[i];
    }
    int ret = g.last >= 0 ? settle_frames_foreach(&o->frames, times_cb, &g) : 0;
    if (ret > 0)
        ret = 0;
    int again = ret || g.last < 0 ? 0 : from_kept(o, &g);
    if (again < 0)
        ret = again;
    if (again == 1 && !o->id.in_known)
        ret = SETTLE_ERR_INVAL;
    if (!ret && again == 1)
        ret = o->read_again(o->read_opaque, frames_cb, &g, FRAMES_DONE);
    if (ret < 0) {
        settle_frames_free(&g.img, n);
        return ret;
    }
    *out = g.img;
    return 0;
}
