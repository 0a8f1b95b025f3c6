/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blocks_stay.h"

#include "blocks_line.h"
#include "settle/settle.h"

/* A change is a revert (what came went: a toast, a touch indicator) when
 * every block it moved is back within STAY_BACK of its threshold of the
 * picture before the change before, which had moved it too. A block that
 * went is back at that picture, its noise apart (a block's mean moves by a
 * fraction of a level with a camera's noise); within the whole threshold,
 * content whose change before was a step of a fade passed for one: a late
 * line's blocks, under the header a fade had just brought in, came within
 * the threshold of the fade's middle step (seed 449's case018, landscape,
 * x264: 0.680 s early by diff) */
#define STAY_BACK 0.5

int settle_blocks_stay_init(SettleBlocksStay *s, int nb)
{
    memset(s, 0, sizeof(*s));
    s->nb = nb;
    s->share = s->share_prev = 1.0;
    size_t n = (size_t)nb * 3;
    s->before = malloc(n * sizeof(*s->before));
    s->before2 = malloc(n * sizeof(*s->before2));
    s->prev = malloc(n * sizeof(*s->prev));
    s->prev2 = malloc(n * sizeof(*s->prev2));
    s->mask = calloc((size_t)nb, 1);
    s->mask_prev = calloc((size_t)nb, 1);
    s->list = malloc((size_t)nb * sizeof(*s->list));
    s->list_prev = malloc((size_t)nb * sizeof(*s->list_prev));
    s->tmp = malloc(n * sizeof(*s->tmp));
    if (!s->tmp || !s->before || !s->before2 || !s->prev || !s->prev2 || !s->mask || !s->mask_prev ||
        !s->list || !s->list_prev) {
        settle_blocks_stay_free(s);
        return SETTLE_ERR_NOMEM;
    }
    return 0;
}

void settle_blocks_stay_free(SettleBlocksStay *s)
{
    free(s->before);
    free(s->before2);
    free(s->prev);
    free(s->prev2);
    free(s->mask);
    free(s->mask_prev);
    free(s->list);
    free(s->list_prev);
    free(s->tmp);
    memset(s, 0, sizeof(*s));
}

/* Whether block k of picture a differs from picture o by more than share
 * times its threshold. */
static int moved(const SettleBlocks *b, const float *a, const float *o, int k, double share)
{
    double m = 0;
    for (int c = 0; c < 3; c++) {
        double d = fabs((double)a[3 * k + c] - o[3 * k + c]);
        m = d > m ? d : m;
    }
    return m > share * settle_blocks_threshold_of(b, o + 3 * k);
}

/* The same with the light since o taken out (ga * o + go). */
static int moved_lit(const SettleBlocks *b, const float *a, const float *o, int k, double share,
                     const double *ga, const double *go)
{
    double m = 0;
    for (int c = 0; c < 3; c++) {
        double d = fabs((double)a[3 * k + c] - (ga[c] * o[3 * k + c] + go[c]));
        m = d > m ? d : m;
    }
    return m > share * settle_blocks_threshold_of(b, o + 3 * k);
}

void settle_blocks_stay_frame(SettleBlocksStay *s, const SettleBlocks *b, int change, int32_t *kept,
                              int32_t *kept_prev, uint8_t *revert)
{
    size_t n = (size_t)s->nb * 3;
    int first = b->bar_rows * b->bw;
    *kept = *kept_prev = 0;
    *revert = 0;
    if (change && s->have_prev) {
        if (s->have_before) {
            memcpy(s->before2, s->before, n * sizeof(*s->before));
            s->have_before2 = 1;
            s->share_prev = s->share;
        }
        /* a change the split-line rule counted moved its blocks by a share
         * of their threshold only */
        s->share = b->area_fired ? SETTLE_BLOCK_AREA_SHARE : 1.0;
        /* a lone pair's change is its two pictures: the one before it is
         * the picture before the first */
        const float *was = b->lone_fired && s->have_prev2 ? s->prev2 : s->prev;
        /* content that came over several pictures (a line fading in over
         * three) moved no block from the picture just before its last step:
         * the picture before it is then the reference the block test judged
         * it against */
        int any = 0;
        for (int k = first; k < s->nb && !any; k++)
            any = moved(b, b->sum, was, k, s->share);
        if (!any && s->have_ref)
            was = b->judged;
        memcpy(s->before, was, n * sizeof(*s->before));
        s->have_before = 1;
        s->keyframe = b->keyframe;
        memcpy(s->mask_prev, s->mask, (size_t)s->nb);
        int32_t *l = s->list_prev;
        s->list_prev = s->list;
        s->list = l;
        s->nlist_prev = s->nlist;
        int nmask = 0, back = 0;
        for (int k = 0; k < s->nb; k++) {
            s->mask[k] = k >= first && moved(b, b->sum, s->before, k, s->share);
            nmask += s->mask[k];
            /* back where the change before moved it */
            back += s->mask[k] && s->have_before2 && s->mask_prev[k] &&
                    !moved(b, b->sum, s->before2, k, STAY_BACK * s->share_prev);
        }
        /* a line the line test counted moved the profiles of its run's
         * blocks, not their means: what stays of it is theirs */
        s->line_prev = s->line;
        s->line = s->line_last = b->lines.fired;
        int line_back = 0;
        if (s->line) {
            memset(s->mask, 0, (size_t)s->nb);
            nmask = back = 0;
            /* a line that went where the change before brought one, none of
             * whose blocks stands from the picture before that */
            line_back = s->line_prev && b->lines.kept_y[1] == b->lines.kept_y[0] &&
                        !settle_blocks_line_kept(b, 1);
        }
        *revert = (uint8_t)((nmask > 0 && back == nmask) || line_back);
        s->line &= !line_back;
        /* what came went: the picture is back to the one before it came,
         * and nothing of that change is kept */
        if (*revert) {
            memcpy(s->before, s->before2, n * sizeof(*s->before));
            memset(s->mask, 0, (size_t)s->nb);
            s->share = s->share_prev;
        }
        s->nlist = 0;
        for (int k = first; k < s->nb; k++)
            if (s->mask[k])
                s->list[s->nlist++] = k;
    }
    if (s->line)
        *kept = settle_blocks_line_kept(b, 0);
    else if (s->have_before) {
        const int nmask = s->nlist;
        for (int i = 0; i < nmask; i++)
            *kept += moved(b, b->sum, s->before, s->list[i], s->share);
        /* a camera's exposure drifts, and a block that content moved
         * by little more than its threshold falls back under it against
         * the picture before the change while the content stays (seed
         * 251's case039: 5 blocks at 1.29, 2 still over it 1.6 s later at
         * a drift of 9 %): such a block still counts with the light since
         * then taken out, as the block test judges a picture. On a
         * phone's picture (b->phone: since landscape40 a landscape one whose
         * content filled an upright box too). Not for a change on a keyframe, whose blocks are the encoder's re-coding as much as
         * content (x264's at frame 60 of seed 229's case103 moves 7 blocks;
         * its next keyframe moves 5 back under their threshold, but only 3
         * with the light taken out, which would keep them as content).
         * Fitted only when fewer than half still count as they are: the
         * late-content rule asks for half */
        if (*kept * 2 < nmask && b->phone && !s->keyframe) {
            double ga[3], go[3];
            settle_blocks_light(b, s->before, s->tmp, ga, go);
            *kept = 0;
            for (int i = 0; i < nmask; i++) {
                const int k = s->list[i];
                *kept += moved(b, b->sum, s->before, k, s->share) ||
                         moved_lit(b, b->sum, s->before, k, s->share, ga, go);
            }
        }
    }
    /* the line test's run of the change before the last: its slot 1 when
     * the last was the line test's too, a revert or not */
    if (s->line_prev)
        *kept_prev = settle_blocks_line_kept(b, s->line_last);
    else if (s->have_before2)
        for (int i = 0; i < s->nlist_prev; i++)
            *kept_prev += moved(b, b->sum, s->before2, s->list_prev[i], s->share_prev);
    float *t = s->prev2;
    s->prev2 = s->prev;
    s->prev = t;
    s->have_prev2 = s->have_prev;
    memcpy(s->prev, b->sum, n * sizeof(*s->prev));
    s->have_prev = 1;
    s->have_ref = b->have_ref;
}
