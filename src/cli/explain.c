/* SPDX-License-Identifier: BSD-2-Clause */
/* Why the answer is what it is, in words: the verbose summary's lines. */
#include <math.h>

#include "explain.h"

void cli_explain(FILE *err, const char *in, const SettleResult *r)
{
    const SettleChange *d = &r->deciding_change;
    if (d->frame >= 0)
        fprintf(err, "settle: %s: decided by the change at %.3f s (frame %lld): %lld pixels "
                "in %dx%d at %d,%d\n", in, d->time, (long long)d->frame, (long long)d->pixels,
                d->width, d->height, d->x, d->y);
    else if (r->stable_frame >= 0)
        fprintf(err, "settle: %s: nothing changed after the start\n", in);
    if (isfinite(r->longest_quiet))
        fprintf(err, "settle: %s: the longest quiet lasts %.3f s, from %.3f s (frame %lld)\n",
                in, r->longest_quiet, r->longest_quiet_time, (long long)r->longest_quiet_frame);
}
