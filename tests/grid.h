/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * grid: test captures drawn from a seed, spanning the conditions settle meets
 * off an HDMI cable (issue 19), each with its exact truth.
 *
 * A case is an app start-up on a phone-like screen (one of several layouts:
 * a list, an image grid, a text page, a splash then content, rows that load
 * one by one; some with a fade), either recorded on the device (a screen
 * recording, with an iOS- or Android-style status bar whose recording
 * indicator pulses and whose clock may tick) or filmed by a camera
 * (perspective, lens blur, brightness-dependent sensor noise, exposure and
 * white-balance drift, auto-exposure reacting to the screen, 50/60 Hz mains
 * flicker with or without a rolling shutter, moire). Each is coded with one
 * of libx264 (several CRFs, with and without B-frames), libx265, libvpx or
 * libvpx-vp9, at a constant or variable frame rate. Version 2 adds, from a
 * stream of its own (every other condition of a seed as in version 1): dark
 * mode, fades of 8-15 frames, a short line of small text that appears
 * 0.3-1.0 s after the content (then the truth), and a recorder that writes
 * a constant 30 fps and repeats pictures the app had not redrawn.
 *
 * Truth: from frame `truth` on, the app's own pixels never change again; the
 * status bar, the camera and the encoder may.
 */
#ifndef SETTLE_TESTS_GRID_H
#define SETTLE_TESTS_GRID_H
#include <stdint.h>

/* Bumped whenever a seed draws other captures: scripts/accuracy keeps its
 * captures per version. 2: dark mode, a late line of text, long fades, a
 * recorder that repeats pictures. */
#define GRID_VERSION 2

enum { GRID_SCREEN = 0, GRID_CAMERA = 1 };
enum { GRID_LIST = 0, GRID_IMAGES, GRID_TEXT, GRID_SPLASH, GRID_ROWS, GRID_NB_LAYOUTS };
enum { GRID_BAR_NONE = 0, GRID_BAR_IOS, GRID_BAR_ANDROID };

typedef struct GridCase {
    uint64_t seed;
    int index;
    int kind;                 /* GRID_SCREEN or GRID_CAMERA */
    int layout;               /* GRID_LIST... */
    int bar;                  /* GRID_BAR_* */
    int clock_tick;           /* frame at which the clock's minute changes, -1 none */
    int fade;                 /* frames the final content takes to fade in (0: one frame) */
    int dark;                 /* 1: the app in dark mode (light text on a dark page) */
    int final;                /* the frame from which the app's main content is final */
    int late, late_at;        /* 1: a small line of text appears after that, at app frame late_at */
    int dup;                  /* 1: the recorder repeats pictures (src[k] < k) */
    int *src;                 /* nb_frames entries: the app's frame each picture shows */
    uint64_t seed2;           /* the stream of version 2's conditions */
    int width, height;        /* the coded picture */
    int screen_w, screen_h;   /* the app's picture (= width, height for a screen recording) */
    int nb_frames;
    int fps;                  /* nominal */
    int vfr;                  /* 1: frame times jitter (time_ms) */
    int64_t *time_ms;         /* nb_frames entries, always filled */
    const char *encoder;
    int quality, bframes, gop;
    int truth;                /* the frame from which the app's picture is final: `final`,
                               * or the late line's, moved to the first picture that shows
                               * it when the recorder repeated pictures */
    int phase[4];             /* the layout's own phase frames */
    /* camera */
    double read_noise, shot_noise; /* sigma^2 = read^2 + shot * level */
    double drift, wb_drift[3];     /* gain change over the capture, per channel */
    double ae;                     /* auto-exposure strength (0 = fixed exposure) */
    double ae_tau;                 /* its time constant in seconds */
    int mains;                     /* 0, 50 or 60 */
    double flicker;                /* ambient light's relative swing */
    double ambient;                /* levels of room light on the glass and the desk */
    double rolling;                /* seconds the sensor takes to read a frame (0 = global shutter) */
    int blur;
    double moire;
    double corner[4][2];
    /* a landscape camera film (grid_case_landscape): a 16:9 picture of the
     * phone standing in a room, its body around the screen and the wall and
     * desk behind it, each lit by the room's light */
    int landscape;
    double room_wall, room_desk, room_body; /* levels, before the light */
    double room_horizon;                    /* the desk's edge, a share of the height */
    double room_slope;                      /* the wall's fall-off towards the top */
    double room_object[4];                  /* an object on the desk: x, y, w, h shares */
    double room_object_level;
    /* drawing state */
    double ae_gain;
    uint8_t *scratch;
} GridCase;

/* Fills case `index` of the grid drawn from `seed`. Returns 0 or -1 (out of memory). */
int grid_case(GridCase *g, uint64_t seed, int index);
/* The same case, a camera film filmed landscape (a 768x432 picture, the
 * phone upright in the middle of a room, as Eideticker's startup-test-elmo);
 * every other condition as grid_case draws it (its own stream for the
 * room). A screen recording is as grid_case draws it. */
int grid_case_landscape(GridCase *g, uint64_t seed, int index);
void grid_free(GridCase *g);

/* A short description of the case's conditions, one line ("camera list x264 crf23 b3 ..."). */
void grid_describe(const GridCase *g, char *buf, int len);

/* The classes the case belongs to for the accuracy table, "|"-separated. */
void grid_classes(const GridCase *g, char *buf, int len);

/* Writes the capture to `path` (.mp4 or .webm). Returns 0 or a negative AVERROR. */
int grid_write(GridCase *g, const char *path);

/* The truth: the time of frame `truth` in seconds, and the tolerance allowed
 * (0.15 s for a camera film, one frame interval for a screen recording). */
double grid_truth_time(const GridCase *g);
double grid_tolerance(const GridCase *g);

#endif
