/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * make_screens OUT FRAMES [KEY=VALUE...]: writes a capture of tests/screens.c
 * (320x480 unless size= says, 30 fps, lossless ffv1, one keyframe) for the
 * program's tests and scripts/screens-grid.
 *   b0=F .. b3=F         content block i appears at frame F
 *   toast=FROM:TO        the toast shows over frames FROM..TO-1
 *   carousel=FROM:EVERY  the carousel turns at FROM, FROM + EVERY, ...
 *   slide=FRAMES         each turn fades over FRAMES frames (tests/screens.h)
 *   move=FRAMES          each turn slides the next slide in from the right over
 *                        FRAMES frames
 *   caret=FROM:EVERY     a text caret blinks from FROM, shown and hidden in turn
 *                        every EVERY frames
 *   size=WxH             the picture's size (even); the parts scale with it
 *   clock=PHASE:EVERY    the status-bar clock changes at PHASE + k * EVERY
 *   spinner=FROM:FADE    the spinner spins from FROM, fades from FADE
 *   spinner_at=X,Y,W,H   the spinner's rectangle in the picture's pixels (not
 *                        scaled with size=; inside the picture)
 * Prints the rectangles x,y,w,h of the parts, a line each:
 * "block0 16,200,288,40", ... "toast ...", "clock ...", "carousel ...",
 * "spinner ...", "caret ...", then "last F": the last frame in which
 * anything changes (0: none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capgen.h"
#include "screens.h"

static int pair(const char *v, int *a, int *b)
{
    return sscanf(v, "%d:%d", a, b) == 2 ? 0 : -1;
}

static void put(const ScreenSpec *s, const char *name, const int r0[4])
{
    int r[4];
    screen_rect(s, r0, r);
    printf("%s %d,%d,%d,%d\n", name, r[0], r[1], r[2], r[3]);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: make_screens OUT FRAMES [KEY=VALUE...]\n");
        return 64;
    }
    ScreenSpec s;
    screen_init(&s);
    int n = atoi(argv[2]), bad = n < 1;
    for (int i = 3; i < argc && !bad; i++) {
        const char *a = argv[i], *v = strchr(a, '=');
        if (!v) {
            bad = 1;
            break;
        }
        v++;
        if (a[0] == 'b' && a[1] >= '0' && a[1] < '0' + SCREEN_BLOCKS && a[2] == '=')
            s.block_at[a[1] - '0'] = atoi(v);
        else if (!strncmp(a, "toast=", 6))
            bad = pair(v, &s.toast_from, &s.toast_to);
        else if (!strncmp(a, "carousel=", 9))
            bad = pair(v, &s.carousel_from, &s.carousel_period);
        else if (!strncmp(a, "slide=", 6))
            s.carousel_slide = atoi(v);
        else if (!strncmp(a, "clock=", 6))
            bad = pair(v, &s.clock_phase, &s.clock_period);
        else if (!strncmp(a, "move=", 5))
            s.carousel_move = atoi(v);
        else if (!strncmp(a, "caret=", 6))
            bad = pair(v, &s.caret_from, &s.caret_period);
        else if (!strncmp(a, "size=", 5))
            bad = sscanf(v, "%dx%d", &s.width, &s.height) != 2 || s.width < 16 || s.height < 16 ||
                  s.width % 2 || s.height % 2 || s.width > 4096 || s.height > 4096;
        else if (!strncmp(a, "spinner=", 8))
            bad = pair(v, &s.spinner_from, &s.spinner_fade);
        else if (!strncmp(a, "spinner_at=", 11))
            bad = sscanf(v, "%d,%d,%d,%d", &s.spinner_at[0], &s.spinner_at[1], &s.spinner_at[2],
                         &s.spinner_at[3]) != 4 ||
                  s.spinner_at[0] < 0 || s.spinner_at[1] < 0 || s.spinner_at[2] < 1 ||
                  s.spinner_at[3] < 1;
        else
            bad = 1;
    }
    int pw = s.width > 0 ? s.width : SCREEN_W, ph = s.height > 0 ? s.height : SCREEN_H;
    bad |= s.spinner_at[0] + s.spinner_at[2] > pw || s.spinner_at[1] + s.spinner_at[3] > ph;
    if (bad) {
        fprintf(stderr, "make_screens: bad arguments\n");
        return 64;
    }
    CapgenSpec c = {
        .path = argv[1], .encoder = "ffv1",
        .width = s.width > 0 ? s.width : SCREEN_W, .height = s.height > 0 ? s.height : SCREEN_H,
        .nb_frames = n, .fps = 30, .gop = 100000, .draw = screen_draw, .opaque = &s,
    };
    int ret = capgen_write(&c);
    if (ret < 0) {
        fprintf(stderr, "make_screens: %s: cannot write the capture (libav error %d)\n", argv[1],
                ret);
        return EXIT_FAILURE;
    }
    char name[16];
    for (int i = 0; i < SCREEN_BLOCKS; i++) {
        snprintf(name, sizeof(name), "block%d", i);
        put(&s, name, screen_block[i]);
    }
    put(&s, "toast", screen_toast);
    put(&s, "clock", screen_clock);
    put(&s, "carousel", screen_carousel);
    int sp[4];
    screen_spinner_rect(&s, sp);
    printf("spinner %d,%d,%d,%d\n", sp[0], sp[1], sp[2], sp[3]);
    put(&s, "caret", screen_caret);
    int *at = malloc((size_t)n * sizeof(*at));
    if (!at)
        return EXIT_FAILURE;
    int k = screen_changes(&s, n, at);
    printf("last %d\n", k ? at[k - 1] : 0);
    free(at);
    return 0;
}
