/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * make_camera OUT.mp4 [NOISE [QUALITY]]: writes a synthetic camera capture
 * (tests/camera.h) of a 4 s app start-up whose content appears at a known
 * frame, and prints that truth and where the screen is.
 */
#include <stdio.h>
#include <stdlib.h>

#include "camera.h"
#include "capgen.h"
#include "scene.h"

#define FPS 30
#define FRAMES 120   /* 4 s */
#define CONTENT 60   /* 2.000 s */
#define KEYFRAME 90  /* a forced keyframe in the quiet part, which must not count */

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: make_camera OUT.mp4 [NOISE [QUALITY]]\n");
        return 64;
    }
    SceneSpec s;
    scene_init(&s, 360, 640);
    s.tap = 12;
    s.splash = 18;
    s.chrome = 36;
    s.content = CONTENT;
    s.progress = 1;
    CameraSpec cam;
    if (camera_init(&cam, scene_draw, &s, s.width, s.height, 640, 720) < 0) {
        fprintf(stderr, "make_camera: out of memory\n");
        return 70;
    }
    if (argc > 2)
        cam.noise = atof(argv[2]);
    int quality = argc > 3 ? atoi(argv[3]) : 23;
    const int keyframes[] = { 30, KEYFRAME, -1 };
    CapgenSpec c = {
        .path = argv[1], .encoder = "libx264", .width = 640, .height = 720,
        .nb_frames = FRAMES, .fps = FPS, .keyframes = keyframes, .quality = quality,
        .draw = camera_draw, .opaque = &cam,
    };
    int ret = capgen_write(&c);
    int box[4];
    camera_screen_box(&cam, box);
    camera_free(&cam);
    if (ret < 0) {
        fprintf(stderr, "make_camera: %s: cannot write the capture (libav error %d)\n", argv[1],
                ret);
        return EXIT_FAILURE;
    }
    printf("%s: 640x720, %d frames at %d fps, screen inside %d,%d,%d,%d\n", argv[1], FRAMES, FPS,
           box[0], box[1], box[2], box[3]);
    printf("content appears at frame %d, %.3f s: the stable frame\n", CONTENT,
           (double)CONTENT / FPS);
    return 0;
}
