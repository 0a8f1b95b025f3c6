/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * scene: a synthetic app start-up with an exactly known truth, for capgen.
 *
 * Frame by frame (phases given as frame indices, each >= the previous):
 *   [0, marker_frames)     solid marker_rgb (a WebPageTest-style start marker)
 *   [marker_frames, tap)   home screen: grey background, grid of coloured icons
 *   [tap, splash)          the same with the touch feedback on the tapped icon
 *   [splash, chrome)       solid splash_rgb with a logo
 *   [chrome, content)      app chrome: coloured header, white body; with
 *                          `progress`, skeleton rows with a sweeping shimmer and
 *                          an indeterminate progress bar that move every frame
 *   [content, ...)         header and body full of text rows and avatars; from
 *                          `content` on the picture never changes again (the
 *                          truth stable frame), except that frames
 *                          [toast_from, toast_to) also show a dark toast near
 *                          the bottom (2 % of the picture: more than 4096
 *                          pixels only from about 640x480 on).
 * Every phase change differs by far more than 4096 pixels and 0.05 bits of
 * entropy at 320x240 and larger; the content appears in one frame.
 */
#ifndef SETTLE_TESTS_SCENE_H
#define SETTLE_TESTS_SCENE_H
#include <stdint.h>

typedef struct SceneSpec {
    int width, height;
    int marker_frames;
    uint8_t marker_rgb[3];
    int tap;
    int splash;
    uint8_t splash_rgb[3];
    int chrome;
    int content;
    int progress;             /* 1: the skeleton and progress bar move every frame from chrome to content */
    int toast_from, toast_to; /* equal: no toast */
} SceneSpec;

/* Fills `s` with a size, no marker (colour #de640d ready), the dark splash
 * colour #1c1f26, no progress, no toast, and all phases at 0. */
void scene_init(SceneSpec *s, int width, int height);

/* CapgenDraw: opaque is a const SceneSpec *. */
void scene_draw(void *opaque, int index, uint8_t *rgb, int stride, int w, int h);

#endif
