/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --settle SECONDS on presentation times. The stable frame is the first
 * frame, at or after the first change following the start, that is followed
 * by SECONDS of quiet; the quiet after a frame lasts from its presentation
 * time to that of the next frame that changes, or to the end of the
 * recording (the last frame's time plus its duration). A gap without frames
 * is quiet. Only a frame that changes can begin the longest quiet after it,
 * so the candidates are the changes themselves. With the entropy method a
 * change is placed on the frame that first showed its picture (the rolling
 * mean flags a few frames after a step), and the quiet is measured from
 * there.
 */
#ifndef SETTLE_SETTLE_QUIET_H
#define SETTLE_SETTLE_QUIET_H

#include <stdint.h>

/* A change: the rectangle of the pixels that changed, in the input
 * picture's pixels, and how many. w == 0: not known. */
typedef struct SettleBox {
    int64_t frame;  /* -1: none */
    double time;
    int x, y, w, h;
    int64_t pixels;
} SettleBox;

typedef struct SettleQuiet {
    double seconds;        /* > 0 */
    int have;              /* a change was seen */
    int64_t first;         /* the first change, -1 before it */
    double first_time;
    SettleBox cand;        /* the last change */
    int64_t cand_stable;   /* the frame showing the picture it settled on */
    double cand_stable_time;
    /* the answer, once found */
    int64_t stable;        /* -1 until found */
    double stable_time;
    SettleBox deciding;    /* the change that made it */
    /* the longest quiet after a change, while no answer is found */
    double longest;        /* seconds, NaN when no change was seen */
    double longest_from;   /* its beginning, seconds from the first frame */
    int64_t longest_frame; /* the frame it follows */
} SettleQuiet;

void settle_quiet_init(SettleQuiet *q, double seconds);

/* A frame at or after the start that changes. stable/stable_time: the frame
 * that shows the picture this change settled on (the change itself for the
 * diff method; the entropy method's rolling mean can place it earlier). */
void settle_quiet_change(SettleQuiet *q, const SettleBox *change, int64_t stable,
                         double stable_time);

/* The end of the recording, seconds from the first frame. Returns 1 when a
 * stable frame was found (q->stable), 0 when not (q->longest says how long
 * the longest quiet was and where; NaN when nothing changed). */
int settle_quiet_end(SettleQuiet *q, double end);

#endif
