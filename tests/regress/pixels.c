/* SPDX-License-Identifier: BSD-2-Clause */
/* Test helper of tests/regress/regress.sh: decodes a PNG with libpng and writes
 * "WIDTH HEIGHT\n" then its pixels as 8-bit RGBA rows to stdout, so that two
 * PNGs compare by what they show rather than by how they were compressed.
 * Exit 1 when the file is not a PNG that decodes, 64 on a bad command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pngread.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pixels FILE.png\n");
        return 64;
    }
    unsigned w, h;
    size_t size;
    char why[64];
    unsigned char *px = pngread(argv[1], 4, &w, &h, &size, why);
    if (!px) {
        fprintf(stderr, "pixels: %s: %s\n", argv[1], why);
        return 1;
    }
    int ok = printf("%u %u\n", w, h) > 0 && fwrite(px, 1, size, stdout) == size &&
             fflush(stdout) == 0;
    free(px);
    if (!ok) {
        fprintf(stderr, "pixels: %s: write failed\n", argv[1]);
        return 1;
    }
    return 0;
}
