/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * make_runs DIR PREFIX COUNT SEED DELAY_MS: writes COUNT synthetic start-ups
 * DIR/PREFIX-01.mkv ... as a device farm would record one build again and
 * again, and prints each one's true load time.
 *
 * 320x240 at 40 fps, 90 frames (2.25 s), FFV1. The content appears at
 * 1.000 s + DELAY_MS + a jitter drawn uniformly from -200 ms to +200 ms in
 * steps of one frame (25 ms) by a 64-bit LCG seeded with SEED, so a build B
 * made with DELAY_MS 250 is slower than a build A made with 0 by exactly
 * 0.25 s in distribution. The phases before it (tap, splash, a skeleton that
 * shimmers every frame) change the picture, so only the content's frame
 * settles it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "capgen.h"
#include "scene.h"

#define FPS 40
#define FRAMES 90
#define BASE 40   /* frames: 1.000 s */
#define JITTER 8  /* frames either side: 200 ms */

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: make_runs DIR PREFIX COUNT SEED DELAY_MS\n");
        return 64;
    }
    int count = atoi(argv[3]);
    uint64_t state = strtoull(argv[4], NULL, 0);
    int delay_ms = atoi(argv[5]);
    if (count < 1 || count > 99 || delay_ms < 0 || delay_ms % (1000 / FPS) ||
        BASE + JITTER + delay_ms / (1000 / FPS) > FRAMES - 10) {
        fprintf(stderr, "make_runs: COUNT 1..99, DELAY_MS a multiple of %d ms up to %d ms\n",
                1000 / FPS, (FRAMES - 10 - BASE - JITTER) * 1000 / FPS);
        return 64;
    }
    for (int i = 1; i <= count; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        int jitter = (int)((state >> 33) % (2 * JITTER + 1)) - JITTER;
        SceneSpec s;
        scene_init(&s, 320, 240);
        s.tap = 4;
        s.splash = 8;
        s.chrome = 20;
        s.content = BASE + jitter + delay_ms / (1000 / FPS);
        s.progress = 1;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s-%02d.mkv", argv[1], argv[2], i);
        CapgenSpec c = {
            .path = path, .encoder = "ffv1", .width = s.width, .height = s.height,
            .nb_frames = FRAMES, .fps = FPS, .draw = scene_draw, .opaque = &s,
        };
        int ret = capgen_write(&c);
        if (ret < 0) {
            fprintf(stderr, "make_runs: %s: cannot write the capture (libav error %d)\n", path, ret);
            return 1;
        }
        printf("%s %.3f\n", path, (double)s.content / FPS);
    }
    return 0;
}
