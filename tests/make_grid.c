/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * make_grid DIR SEED FROM TO: writes cases FROM..TO-1 of the grid drawn from
 * SEED (tests/grid.h) into DIR, and prints one line per case, tab-separated:
 * file, truth time (s), tolerance (s), truth frame, classes, description.
 * make_grid --version prints GRID_VERSION (a seed draws other captures when
 * it changes). make_grid --landscape DIR SEED FROM TO: the camera films
 * filmed landscape (grid_case_landscape), the rest as without it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--version")) {
        printf("%d\n", GRID_VERSION);
        return 0;
    }
    int landscape = argc == 6 && !strcmp(argv[1], "--landscape");
    argv += landscape;
    argc -= landscape;
    if (argc != 5) {
        fprintf(stderr, "usage: make_grid [--landscape] DIR SEED FROM TO\n");
        return 64;
    }
    uint64_t seed = strtoull(argv[2], NULL, 10);
    int from = atoi(argv[3]), to = atoi(argv[4]);
    for (int i = from; i < to; i++) {
        GridCase g;
        if ((landscape ? grid_case_landscape(&g, seed, i) : grid_case(&g, seed, i)) < 0) {
            fprintf(stderr, "make_grid: out of memory\n");
            return 70;
        }
        char path[4096], desc[512], cls[512];
        int webm = !strcmp(g.encoder, "libvpx") || !strcmp(g.encoder, "libvpx-vp9");
        snprintf(path, sizeof(path), "%s/case%03d.%s", argv[1], i, webm ? "webm" : "mp4");
        int ret = grid_write(&g, path);
        if (ret < 0) {
            fprintf(stderr, "make_grid: %s: cannot write the capture (libav error %d)\n", path, ret);
            grid_free(&g);
            return EXIT_FAILURE;
        }
        grid_describe(&g, desc, sizeof(desc));
        grid_classes(&g, cls, sizeof(cls));
        printf("%s\t%.4f\t%.4f\t%d\t%s\t%s\n", path, grid_truth_time(&g), grid_tolerance(&g), g.truth,
               cls, desc);
        fflush(stdout);
        grid_free(&g);
    }
    return 0;
}
