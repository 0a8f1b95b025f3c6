/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * make_screens OUT FRAMES [KEY=VALUE...]: writes a capture of tests/screens.c
 * (320x480, 30 fps, lossless ffv1, one keyframe) for the program's tests.
 *   b0=F .. b3=F         content block i appears at frame F
 *   toast=FROM:TO        the toast shows over frames FROM..TO-1
 *   carousel=FROM:EVERY  the carousel turns at FROM, FROM + EVERY, ...
 *   slide=FRAMES         each turn fades over FRAMES frames (tests/screens.h)
 *   clock=PHASE:EVERY    the status-bar clock changes at PHASE + k * EVERY
 *   spinner=FROM:FADE    the spinner spins from FROM, fades from FADE
 * Prints the rectangles x,y,w,h of the parts, a line each:
 * "block0 16,200,288,40", ... "toast ...", "clock ...", "carousel ...",
 * "spinner ...".
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

static void put(const char *name, const int r[4])
{
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
        else if (!strncmp(a, "spinner=", 8))
            bad = pair(v, &s.spinner_from, &s.spinner_fade);
        else
            bad = 1;
    }
    if (bad) {
        fprintf(stderr, "make_screens: bad arguments\n");
        return 64;
    }
    CapgenSpec c = {
        .path = argv[1], .encoder = "ffv1", .width = SCREEN_W, .height = SCREEN_H,
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
        put(name, screen_block[i]);
    }
    put("toast", screen_toast);
    put("clock", screen_clock);
    put("carousel", screen_carousel);
    put("spinner", screen_spinner);
    return 0;
}
