/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * camera: films a scene the way a phone on a stand or a camera in front of a
 * device does, for capgen. The scene's picture (the device's screen) is warped
 * by a perspective transform into part of a larger, darker picture, blurred
 * by the lens, its brightness scaled by an exposure that drifts slowly, and
 * sensor noise (Gaussian, new in every frame) is added to every pixel.
 * Deterministic: the noise comes from a generator seeded by the frame index.
 */
#ifndef SETTLE_TESTS_CAMERA_H
#define SETTLE_TESTS_CAMERA_H
#include <stdint.h>

#include "capgen.h"

typedef struct CameraSpec {
    CapgenDraw draw;          /* the screen: scene_draw and its SceneSpec */
    void *opaque;
    int screen_w, screen_h;   /* the size `draw` is asked to fill */
    /* where the screen's corners land in the camera picture, in pixels:
     * top left, top right, bottom right, bottom left */
    double corner[4][2];
    uint8_t background;       /* grey level around the screen (the desk, the bezel) */
    double gain;              /* screen brightness seen by the camera at frame 0 (1 = as drawn) */
    double drift;             /* the gain changes by this fraction over `drift_frames` frames */
    int drift_frames;
    double noise;             /* standard deviation of the sensor noise in levels */
    int blur;                 /* radius of the lens's box blur in pixels (0 = sharp) */
    int led[4];               /* x, y, w, h of a light beside the screen (a charging LED,
                               * a reflection) that blinks: white for led_period / 2
                               * frames, off for as many; w = 0: none */
    int led_period;
    uint8_t *screen;          /* scratch for one screen picture; camera_init allocates it */
} CameraSpec;

/* A camera looking slightly from the left and above at a screen that fills
 * about 60 % of a w x h picture, background 24, gain 0.9, drift -6 % over
 * 90 frames, noise 3 levels, blur radius 1. Returns 0 or -1 (out of memory). */
int camera_init(CameraSpec *c, CapgenDraw draw, void *opaque, int screen_w, int screen_h,
                int w, int h);
void camera_free(CameraSpec *c);

/* CapgenDraw: opaque is a CameraSpec *. */
void camera_draw(void *opaque, int index, uint8_t *rgb, int stride, int w, int h);

/* The pieces of a filmed picture, for other cameras (tests/grid.c) too. */

/* The homography that takes a camera pixel (x, y) to screen coordinates:
 * u = (h0 x + h1 y + h2) / d, v = (h3 x + h4 y + h5) / d with
 * d = h6 x + h7 y + h8, for a sw x sh screen whose corners (top left, top
 * right, bottom right, bottom left) land at `corner`. */
void camera_homography(const double corner[4][2], int sw, int sh, double hm[9]);

/* The lens: a box blur of radius r along the rows, then the columns. */
void camera_box_blur(uint8_t *rgb, int stride, int w, int h, int r);

/* A 64-bit generator that advances *state. */
typedef uint64_t (*CameraRandom)(uint64_t *state);

/* 4096 standard Gaussian values (Box-Muller) drawn from `gen` from `seed`. */
void camera_gauss_table(double table[4096], uint64_t seed, CameraRandom gen);

/* The sensor: adds to each channel of each pixel, of level v, Gaussian noise
 * of standard deviation sqrt(read_noise^2 + shot_noise * v), from `table`
 * by 12 bits of one call of `gen` (from `seed`) per four channels. */
void camera_noise(uint8_t *rgb, int stride, int w, int h, const double table[4096],
                  double read_noise, double shot_noise, uint64_t seed, CameraRandom gen);

/* The axis-aligned rectangle that holds the screen's corners, rounded
 * inwards: x, y, w, h. */
void camera_screen_box(const CameraSpec *c, int box[4]);

#endif
