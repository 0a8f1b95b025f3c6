/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * screens: a phone-sized app screen (320x480) for capgen whose every moving
 * part has a known rectangle and known frames, for issue 20's cases: content
 * blocks that appear during loading, a toast after it, a status-bar clock, a
 * carousel that never stops (switching, fading or sliding in from the right),
 * a spinner that fades out or never stops, a blinking caret, at any size
 * (the layout scales: landscape is a desktop page). Every change of a
 * part changes every pixel of its rectangle by far more than the tolerance,
 * and nothing else, so a lossless capture (ffv1) has exact truth.
 */
#ifndef SETTLE_TESTS_SCREENS_H
#define SETTLE_TESTS_SCREENS_H
#include <stdint.h>

#define SCREEN_W 320
#define SCREEN_H 480
#define SCREEN_BLOCKS 4

/* The rectangles x, y, w, h. */
extern const int screen_block[SCREEN_BLOCKS][4]; /* content blocks */
extern const int screen_toast[4];
extern const int screen_clock[4];                /* in the status bar */
extern const int screen_carousel[4];
extern const int screen_spinner[4];
extern const int screen_caret[4];                /* in a text field */

typedef struct ScreenSpec {
    int block_at[SCREEN_BLOCKS]; /* frame at which each block appears; -1: never */
    int toast_from, toast_to;    /* frames showing the toast; equal: none */
    int clock_period;            /* the clock changes at frames clock_phase + k * period; 0: none */
    int clock_phase;
    int carousel_period;         /* the carousel turns at carousel_from + k * period; 0: none */
    int carousel_from;
    int carousel_slide;          /* > 0: each turn fades to the next slide over this many
                                  * frames (frames from + k * period ... + slide - 1); the
                                  * slides are then one colour with a dark picture at a place
                                  * of their own (3 slides), so that a turn changes only the
                                  * cells of the two pictures: some cells change in some turns
                                  * only, as on a web page's hero carousel */
    int carousel_move;           /* > 0: each turn slides the next slide in from the right over
                                  * this many frames, as a web page's carousel does (slides
                                  * of their own colour, picture and lines of text; the
                                  * strip moves by an equal step each frame) */
    int caret_from, caret_period;/* a text caret blinks from caret_from, shown and hidden in
                                  * turn every caret_period frames; period 0: none */
    int width, height;           /* the picture; 0: SCREEN_W x SCREEN_H. The rectangles
                                  * above are for SCREEN_W x SCREEN_H and scale with it
                                  * (screen_rect), so a landscape picture is a desktop page */
    int spinner_from;            /* spins (changes every frame) from here */
    int spinner_fade;            /* from here it fades in 4 steps of one frame, then is gone */
                                 /* spinner_from == spinner_fade: no spinner */
    int spinner_at[4];           /* width > 0: the spinner's rectangle x, y, w, h in the
                                  * picture's pixels, unscaled, instead of screen_spinner's
                                  * (a spinner at any place and size, on the change grid's
                                  * cells or across them) */
} ScreenSpec;

/* Nothing moves. */
void screen_init(ScreenSpec *s);

/* The rectangle r (for SCREEN_W x SCREEN_H) on s's picture, into out. */
void screen_rect(const ScreenSpec *s, const int r[4], int out[4]);

/* The spinner's rectangle on s's picture, into out. */
void screen_spinner_rect(const ScreenSpec *s, int out[4]);

/* The frames at which anything changes in [0, n), in order, into out (at
 * most n); returns how many. */
int screen_changes(const ScreenSpec *s, int n, int *out);

/* CapgenDraw: opaque is a const ScreenSpec *. */
void screen_draw(void *opaque, int index, uint8_t *rgb, int stride, int w, int h);

#endif
