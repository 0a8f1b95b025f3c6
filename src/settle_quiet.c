/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>

#include "settle_quiet.h"

/* Times are sums of frame durations: a stretch equal to SECONDS up to
 * rounding counts. */
#define EPS 1e-9

void settle_quiet_init(SettleQuiet *q, double seconds)
{
    q->seconds = seconds;
    q->have = 0;
    q->first = -1;
    q->first_time = NAN;
    q->cand.frame = -1;
    q->cand_stable = -1;
    q->cand_stable_time = NAN;
    q->stable = -1;
    q->stable_time = NAN;
    q->deciding.frame = -1;
    q->deciding.w = q->deciding.h = 0;
    q->longest = q->longest_from = NAN;
    q->longest_frame = -1;
}

/* The quiet after the candidate ends at `until`. */
static void close_quiet(SettleQuiet *q, double until)
{
    if (!q->have || q->stable >= 0)
        return;
    double quiet = until - q->cand_stable_time;
    if (isnan(q->longest) || quiet > q->longest) {
        q->longest = quiet;
        q->longest_from = q->cand_stable_time;
        q->longest_frame = q->cand_stable;
    }
    if (quiet >= q->seconds - EPS) {
        q->stable = q->cand_stable;
        q->stable_time = q->cand_stable_time;
        q->deciding = q->cand;
    }
}

void settle_quiet_change(SettleQuiet *q, const SettleBox *change, int64_t stable,
                         double stable_time)
{
    if (q->stable >= 0)
        return;
    /* the entropy method's rolling mean catching up on the picture the
     * candidate already showed: no new picture */
    if (q->have && stable <= q->cand.frame)
        return;
    close_quiet(q, stable_time);
    if (q->stable >= 0)
        return;
    if (!q->have) {
        q->first = change->frame;
        q->first_time = change->time;
    }
    /* never before the first change, whatever the rolling mean says */
    if (stable < q->first) {
        stable = q->first;
        stable_time = q->first_time;
    }
    q->cand = *change;
    q->cand_stable = stable;
    q->cand_stable_time = stable_time;
    q->have = 1;
}

int settle_quiet_end(SettleQuiet *q, double end)
{
    close_quiet(q, end);
    return q->stable >= 0;
}
