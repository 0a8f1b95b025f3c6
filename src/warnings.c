/* SPDX-License-Identifier: BSD-2-Clause */
/* Answers that deserve a second look, from a finished result. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "outputs.h"

int settle_warnings_of(const SettleOutputs *o, SettleWarning *w)
{
    const SettleResult *r = o->res;
    int n = 0;
    if (!o->finished || r->frames < 1)
        return 0;
    double min_tail = o->s->settle > SETTLE_QUIET_TAIL_MIN ? o->s->settle : SETTLE_QUIET_TAIL_MIN;
    if (r->stable_frame >= 0 && isfinite(r->quiet_tail) && r->quiet_tail < min_tail - 1e-9) {
        long long after = (long long)(r->frames - 1 - r->stable_frame);
        w[n].code = "short_quiet_tail";
        snprintf(w[n].message, sizeof(w[n].message),
                 "only %.3f s (%lld frame%s) of quiet after the stable frame before the recording "
                 "ends, less than %.3f s: a later change may have been cut off",
                 r->quiet_tail, after, after == 1 ? "" : "s", min_tail);
        n++;
    }
    if (r->stable_frame >= 0 && r->start_frame >= 0 && isfinite(r->load_time) &&
        r->load_time <= 0) {
        w[n].code = "zero_load_time";
        snprintf(w[n].message, sizeof(w[n].message),
                 "load time 0: the screen was already stable at the start (frame %lld)",
                 (long long)r->start_frame);
        n++;
    }
    if (r->start_frame < 0 && r->error != SETTLE_ERR_INTERRUPTED) {
        char start[128];
        if (settle_settings_get(o->s, "start", start, sizeof(start)) < 0)
            snprintf(start, sizeof(start), "?");
        w[n].code = "no_start";
        snprintf(w[n].message, sizeof(w[n].message),
                 "the start was never found (--start %s): there is no load time", start);
        n++;
    }
    return n;
}
