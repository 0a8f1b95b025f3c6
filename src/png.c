/* SPDX-License-Identifier: BSD-2-Clause */
/* PNG writing: the only code that talks to libpng. */
#include <setjmp.h>
#include <stdio.h>

#include <png.h>

#include "settle/pictures.h"

int settle_write_png(FILE *f, const SettleImage *img)
{
    if (!f || !img || !img->rgb || img->width < 1 || img->height < 1 ||
        img->stride < (ptrdiff_t)img->width * 3)
        return SETTLE_ERR_INVAL;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!png)
        return SETTLE_ERR_NOMEM;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return SETTLE_ERR_NOMEM;
    }
    /* libpng reports errors by longjmp; nothing below allocates of our own */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return SETTLE_ERR_IO;
    }
    png_init_io(png, f);
    /* pictures of screens compress well and fast at a low level: zlib's
     * level 1 and the Sub filter on every row (instead of level 6 and a
     * filter chosen row by row) cost a third of the time on a 2732x1536
     * frame, for files about a fifth larger */
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < img->height; y++)
        png_write_row(png, (png_const_bytep)(img->rgb + (ptrdiff_t)y * img->stride));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return fflush(f) || ferror(f) ? SETTLE_ERR_IO : 0;
}
