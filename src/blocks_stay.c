/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blocks_stay.h"
#include "settle/settle.h"

int settle_blocks_stay_init(SettleBlocksStay *s, int nb)
{
    memset(s, 0, sizeof(*s));
    s->nb = nb;
    size_t n = (size_t)nb * 3;
    s->before = malloc(n * sizeof(*s->before));
    s->before2 = malloc(n * sizeof(*s->before2));
    s->prev = malloc(n * sizeof(*s->prev));
    s->prev2 = malloc(n * sizeof(*s->prev2));
    s->ref = malloc(n * sizeof(*s->ref));
    s->mask = calloc((size_t)nb, 1);
    s->mask_prev = calloc((size_t)nb, 1);
    if (!s->before || !s->before2 || !s->prev || !s->prev2 || !s->ref || !s->mask || !s->mask_prev) {
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
    free(s->ref);
    free(s->mask);
    free(s->mask_prev);
    memset(s, 0, sizeof(*s));
}

/* Whether block k of picture a differs from picture o by more than its threshold. */
static int moved(const SettleBlocks *b, const float *a, const float *o, int k)
{
    double m = 0;
    for (int c = 0; c < 3; c++) {
        double d = fabs((double)a[3 * k + c] - o[3 * k + c]);
        m = d > m ? d : m;
    }
    return m > settle_blocks_threshold_of(b, o + 3 * k);
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
        }
        /* a lone pair's change is its two pictures: the one before it is
         * the picture before the first */
        const float *was = b->lone_fired && s->have_prev2 ? s->prev2 : s->prev;
        /* content that came over several pictures (a line fading in over
         * three) moved no block from the picture just before its last step:
         * the picture before it is then the reference the block test judged
         * it against */
        int any = 0;
        for (int k = first; k < s->nb && !any; k++)
            any = moved(b, b->sum, was, k);
        if (!any && s->have_ref)
            was = s->ref;
        memcpy(s->before, was, n * sizeof(*s->before));
        s->have_before = 1;
        memcpy(s->mask_prev, s->mask, (size_t)s->nb);
        int nmask = 0, back = 0;
        for (int k = 0; k < s->nb; k++) {
            s->mask[k] = k >= first && moved(b, b->sum, s->before, k);
            nmask += s->mask[k];
            /* back where the change before moved it */
            back += s->mask[k] && s->have_before2 && s->mask_prev[k] &&
                    !moved(b, b->sum, s->before2, k);
        }
        *revert = (uint8_t)(nmask > 0 && back == nmask);
        /* what came went: the picture is back to the one before it came,
         * and nothing of that change is kept */
        if (*revert) {
            memcpy(s->before, s->before2, n * sizeof(*s->before));
            memset(s->mask, 0, (size_t)s->nb);
        }
    }
    if (s->have_before)
        for (int k = first; k < s->nb; k++)
            *kept += s->mask[k] && moved(b, b->sum, s->before, k);
    if (s->have_before2)
        for (int k = first; k < s->nb; k++)
            *kept_prev += s->mask_prev[k] && moved(b, b->sum, s->before2, k);
    float *t = s->prev2;
    s->prev2 = s->prev;
    s->prev = t;
    s->have_prev2 = s->have_prev;
    memcpy(s->prev, b->sum, n * sizeof(*s->prev));
    s->have_prev = 1;
    memcpy(s->ref, b->ref, n * sizeof(*s->ref));
    s->have_ref = b->have_ref;
}
