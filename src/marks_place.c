/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Putting marks on the capture's clock by the rules the caller chose, and the
 * gaps to the stable time. A mark no rule places keeps the reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marks_internal.h"

void settle_default_mark_clocks(SettleMarkClocks *k)
{
    memset(k, 0, sizeof(*k));
    k->launch_time = NAN;
    k->zero_clock = SETTLE_MARK_CLOCK_NONE;
    k->zero = NAN;
    k->anchor_time = NAN;
}

const char *settle_mark_clock_name(SettleMarkClock clock)
{
    switch (clock) {
    case SETTLE_MARK_CLOCK_LAUNCH: return "launch";
    case SETTLE_MARK_CLOCK_CAPTURE: return "capture";
    case SETTLE_MARK_CLOCK_WALL: return "wall";
    case SETTLE_MARK_CLOCK_WALL_NOYEAR: return "wall-noyear";
    case SETTLE_MARK_CLOCK_EPOCH: return "epoch";
    case SETTLE_MARK_CLOCK_MONOTONIC: return "monotonic";
    case SETTLE_MARK_CLOCK_BOOT: return "boot";
    default: return "none";
    }
}

const char *settle_mark_placement_name(SettleMarkPlacement p)
{
    switch (p) {
    case SETTLE_MARK_BY_LAUNCH: return "launch";
    case SETTLE_MARK_BY_CAPTURE: return "capture";
    case SETTLE_MARK_BY_ZERO: return "zero";
    case SETTLE_MARK_BY_ANCHOR: return "anchor";
    case SETTLE_MARK_BY_DEVICE: return "device";
    default: return "unplaced";
    }
}

int settle_marks_parse_stamp(const char *text, SettleMarkClock *clock, double *value)
{
    if (!text || !clock || !value)
        return SETTLE_ERR_INVAL;
    size_t len = strlen(text), used;
    if (marks_stamp(text, len, &used, clock, value) < 0)
        return SETTLE_ERR_INVAL;
    while (used < len && text[used] == ' ')
        used++;
    return used == len ? 0 : SETTLE_ERR_INVAL;
}

/* The device time of an EPOCH or device-clock stamp, or -1 with the reason. */
static int device_time(const SettleDeviceTimes *d, SettleMarkClock c, double stamp, double *t,
                       char *why, size_t len)
{
    if (c == d->clock) {
        *t = stamp;
        return 0;
    }
    if (c == SETTLE_MARK_CLOCK_EPOCH && d->clock == SETTLE_MARK_CLOCK_BOOT &&
        isfinite(d->real_to_boot)) {
        *t = stamp - d->real_to_boot;
        return 0;
    }
    snprintf(why, len,
             "its stamp is on the %s clock and the recording's frame times on the %s clock%s",
             settle_mark_clock_name(c), settle_mark_clock_name(d->clock),
             d->clock == SETTLE_MARK_CLOCK_BOOT ? " (write the log with logcat -v epoch)"
             : d->clock == SETTLE_MARK_CLOCK_MONOTONIC ? " (write the log with logcat -v monotonic)"
             : "");
    return -1;
}

/* The frame on screen at device time t, and the time since it. */
static int by_device(const SettleDeviceTimes *d, SettleMarkClock c, double stamp, double *out,
                     char *why, size_t len)
{
    double t;
    if (device_time(d, c, stamp, &t, why, len) < 0)
        return -1;
    if (t < d->device[0] - 1e-6) {
        snprintf(why, len, "%.3f s before the recording's first frame", d->device[0] - t);
        return -1;
    }
    /* a microsecond of slack: an epoch stamp in a double is only good to
     * about 0.2 us, and no log stamp is finer than that anyway */
    int64_t lo = 0, hi = d->count - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (d->device[mid] <= t + 1e-6)
            lo = mid;
        else
            hi = mid - 1;
    }
    *out = d->capture[lo] + fmax(0, t - d->device[lo]);
    return 0;
}

typedef struct Anchor {
    SettleMarkClock clock;
    double stamp, time;
    const char *problem; /* why the anchor cannot serve, or NULL */
} Anchor;

static Anchor find_anchor(const SettleMarks *m, const SettleMarkClocks *k)
{
    Anchor a = { SETTLE_MARK_CLOCK_NONE, NAN, NAN, NULL };
    if (!k->anchor)
        return a;
    int found = 0;
    for (int i = 0; i < m->n; i++) {
        const SettleMark *x = &m->v[i];
        if (strcmp(x->name, k->anchor) || x->stamp_clock == SETTLE_MARK_CLOCK_NONE ||
            x->stamp_clock == SETTLE_MARK_CLOCK_LAUNCH || !isfinite(x->stamp))
            continue;
        if (!found++) {
            a.clock = x->stamp_clock;
            a.stamp = x->stamp;
        }
    }
    a.time = isnan(k->anchor_time) ? k->launch_time : k->anchor_time;
    if (!found)
        a.problem = "the anchor is not a stamped mark of the files read";
    else if (found > 1)
        a.problem = "the anchor names more than one stamped mark";
    else if (!isfinite(a.time))
        a.problem = "the anchor's time on the capture is unknown (no launch time)";
    return a;
}

static const char *stamped_reason(const SettleMark *x, const SettleMarkClocks *k,
                                  const Anchor *a, char *why, size_t len)
{
    if (x->stamp_clock == SETTLE_MARK_CLOCK_NONE)
        return "the line has no time stamp (logcat -v brief or plain text)";
    if (k->device) {
        double t;
        if (device_time(k->device, x->stamp_clock, x->stamp, &t, why, len) == 0)
            return why[0] ? why : NULL;
        return why;
    }
    if (k->anchor && a->problem) {
        snprintf(why, len, "--marks-anchor %s: %s", k->anchor, a->problem);
        return why;
    }
    if (k->anchor) {
        snprintf(why, len, "its stamp is on the %s clock, the anchor's on the %s clock",
                 settle_mark_clock_name(x->stamp_clock), settle_mark_clock_name(a->clock));
        return why;
    }
    if (k->zero_clock != SETTLE_MARK_CLOCK_NONE) {
        snprintf(why, len, "its stamp is on the %s clock, the given zero on the %s clock",
                 settle_mark_clock_name(x->stamp_clock), settle_mark_clock_name(k->zero_clock));
        return why;
    }
    snprintf(why, len, "its time is a %s clock stamp: give the log's time at the capture's "
             "first frame (--marks-zero) or an anchor event (--marks-anchor)",
             settle_mark_clock_name(x->stamp_clock));
    return why;
}

/* One mark: 0 when placed, else the reason in why. */
static int place_one(SettleMark *x, const SettleMarkClocks *k, const Anchor *a, int chosen,
                     char *why, size_t len)
{
    why[0] = 0;
    if (x->clock == SETTLE_MARK_CLOCK_LAUNCH) {
        if (x->runs > 1 && !chosen) {
            snprintf(why, len, "iteration %d of %d: choose the capture's iteration (--mark-run)",
                     x->run, x->runs);
            return -1;
        }
        if (!isfinite(k->launch_time)) {
            snprintf(why, len, "a duration from the launch, and the launch's time on the "
                     "capture is unknown");
            return -1;
        }
        x->time = k->launch_time + x->value;
        x->placed_by = SETTLE_MARK_BY_LAUNCH;
        return 0;
    }
    if (x->clock == SETTLE_MARK_CLOCK_CAPTURE) {
        x->time = x->value;
        x->placed_by = SETTLE_MARK_BY_CAPTURE;
        return 0;
    }
    if (x->stamp_clock != SETTLE_MARK_CLOCK_NONE && isfinite(x->stamp)) {
        if (k->device) {
            if (by_device(k->device, x->stamp_clock, x->stamp, &x->time, why, len) == 0) {
                x->placed_by = SETTLE_MARK_BY_DEVICE;
                return 0;
            }
            return -1;
        }
        if (k->anchor && !a->problem && a->clock == x->stamp_clock) {
            x->time = a->time + (x->stamp - a->stamp);
            x->placed_by = SETTLE_MARK_BY_ANCHOR;
            return 0;
        }
        if (!k->anchor && k->zero_clock != SETTLE_MARK_CLOCK_NONE &&
            k->zero_clock == x->stamp_clock && isfinite(k->zero)) {
            x->time = x->stamp - k->zero;
            x->placed_by = SETTLE_MARK_BY_ZERO;
            return 0;
        }
    }
    const char *r = stamped_reason(x, k, a, why, len);
    if (r != why)
        snprintf(why, len, "%s", r ? r : "no rule places it");
    return -1;
}

int settle_marks_place(SettleMarks *m, const SettleMarkClocks *k)
{
    if (!m || !k)
        return SETTLE_ERR_INVAL;
    Anchor a = find_anchor(m, k);
    int placed = 0;
    for (int i = 0; i < m->n; i++) {
        SettleMark *x = &m->v[i];
        free((char *)x->reason);
        x->reason = NULL;
        x->time = NAN;
        x->gap = NAN;
        x->frame = -1;
        x->placed_by = SETTLE_MARK_UNPLACED;
        char why[256];
        if (place_one(x, k, &a, m->run >= 0, why, sizeof(why)) == 0 && isfinite(x->time)) {
            placed++;
            continue;
        }
        x->time = NAN;
        x->placed_by = SETTLE_MARK_UNPLACED;
        x->reason = strdup(why[0] ? why : "no rule places it");
        if (!x->reason)
            return SETTLE_ERR_NOMEM;
    }
    return placed;
}

void settle_marks_set_gaps(SettleMarks *m, double stable_time)
{
    if (!m)
        return;
    for (int i = 0; i < m->n; i++) {
        SettleMark *x = &m->v[i];
        x->gap = isfinite(stable_time) && isfinite(x->time) ? stable_time - x->time : NAN;
    }
}
