/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * make_sample OUT.mp4: writes the sample capture shipped as
 * testdata/sample-startup.mp4, a 4.5 s app start-up whose content appears at
 * a known frame, and prints that truth.
 */
#include <stdio.h>
#include <stdlib.h>

#include "capgen.h"
#include "scene.h"

#define FPS 30
#define FRAMES 135   /* 4.5 s */
#define CONTENT 75   /* 2.500 s */
#define KEYFRAME 105 /* a forced IDR in the quiet part, which must not count */

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_sample OUT.mp4\n");
        return 64;
    }
    SceneSpec s;
    scene_init(&s, 480, 270);
    s.tap = 15;
    s.splash = 24;
    s.chrome = 45;
    s.content = CONTENT;
    s.progress = 1;
    const int keyframes[] = { KEYFRAME, -1 };
    CapgenSpec c = {
        .path = argv[1], .encoder = "libx264", .width = s.width, .height = s.height,
        .nb_frames = FRAMES, .fps = FPS, .keyframes = keyframes, .quality = 23,
        .draw = scene_draw, .opaque = &s,
    };
    int ret = capgen_write(&c);
    if (ret < 0) {
        fprintf(stderr, "make_sample: %s: cannot write the capture (libav error %d)\n", argv[1],
                ret);
        return EXIT_FAILURE;
    }
    printf("%s: %dx%d, %d frames at %d fps (%.3f s), H.264\n", argv[1], s.width, s.height, FRAMES,
           FPS, (double)FRAMES / FPS);
    printf("tap at frame %d, splash at %d, chrome at %d, keyframe at %d\n", s.tap, s.splash,
           s.chrome, KEYFRAME);
    printf("content appears at frame %d, %.3f s: the stable frame\n", CONTENT,
           (double)CONTENT / FPS);
    return 0;
}
