/* SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "pngread.h"

uint8_t *pngread(const char *path, int channels, unsigned *w, unsigned *h, size_t *size,
                 char why[64])
{
    png_image im;
    memset(&im, 0, sizeof(im));
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path)) {
        snprintf(why, 64, "%s", im.message);
        return NULL;
    }
    im.format = channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    size_t n = PNG_IMAGE_SIZE(im);
    uint8_t *px = malloc(n);
    if (!px || !png_image_finish_read(&im, NULL, px, 0, NULL)) {
        snprintf(why, 64, "%s", px ? im.message : "out of memory");
        free(px);
        png_image_free(&im);
        return NULL;
    }
    *w = im.width;
    *h = im.height;
    *size = n;
    png_image_free(&im);
    return px;
}
