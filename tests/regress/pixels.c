/* SPDX-License-Identifier: BSD-2-Clause */
/* Test helper of tests/regress/regress.sh: decodes a PNG with libpng and writes
 * "WIDTH HEIGHT\n" then its pixels as 8-bit RGBA rows to stdout, so that two
 * PNGs compare by what they show rather than by how they were compressed.
 * Exit 1 when the file is not a PNG that decodes, 64 on a bad command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pixels FILE.png\n");
        return 64;
    }
    png_image im;
    memset(&im, 0, sizeof(im));
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, argv[1])) {
        fprintf(stderr, "pixels: %s: %s\n", argv[1], im.message);
        return 1;
    }
    im.format = PNG_FORMAT_RGBA;
    size_t size = PNG_IMAGE_SIZE(im);
    unsigned char *px = malloc(size);
    if (!px || !png_image_finish_read(&im, NULL, px, 0, NULL)) {
        fprintf(stderr, "pixels: %s: %s\n", argv[1], px ? im.message : "out of memory");
        free(px);
        png_image_free(&im);
        return 1;
    }
    int ok = printf("%u %u\n", im.width, im.height) > 0 && fwrite(px, 1, size, stdout) == size &&
             fflush(stdout) == 0;
    free(px);
    png_image_free(&im);
    if (!ok) {
        fprintf(stderr, "pixels: %s: write failed\n", argv[1]);
        return 1;
    }
    return 0;
}
