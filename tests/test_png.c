/* SPDX-License-Identifier: BSD-2-Clause */
/* The PNG writer (src/png.c) alone, built twice: `png` against the library
 * (ISA-L's deflate when the build found it) and `png-zlib` with src/png.c
 * compiled into the test without SETTLE_ISAL (libpng's zlib), the path a
 * build without libisal-dev takes. Both: settle_encode_png,
 * settle_encode_png_rows and settle_write_png decode (libpng) to the
 * pictures' pixels, and the three give the same bytes. The zlib build's bytes
 * are also those libpng writes itself with the same settings (level 1, the
 * Up filter on every row). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <png.h>

#include "pictures.h"
#include "pngread.h"

typedef struct Pic {
    int w, h;
    ptrdiff_t stride;
    uint8_t *rgb;
} Pic;

/* Noise in some bands, flat and repeated rows in others; a padded stride
 * when pad. */
static Pic make_pic(int w, int h, int pad, uint32_t seed)
{
    Pic p = { w, h, (ptrdiff_t)w * 3 + pad, NULL };
    p.rgb = malloc((size_t)p.stride * (size_t)h);
    assert_non_null(p.rgb);
    for (int y = 0; y < h; y++)
        for (ptrdiff_t i = 0; i < p.stride; i++) {
            seed = seed * 1664525u + 1013904223u;
            p.rgb[y * p.stride + i] = (y / 5) % 3 == 0   ? (uint8_t)(seed >> 24)
                                      : (y / 5) % 3 == 1 ? (uint8_t)(i % 241)
                                                         : (uint8_t)(y + i / 200);
        }
    return p;
}

static const uint8_t *pic_row(void *opaque, int y)
{
    const Pic *p = opaque;
    return p->rgb + (ptrdiff_t)y * p->stride;
}

static uint8_t *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    assert_true(len > 0);
    rewind(f);
    uint8_t *b = malloc((size_t)len);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}

#ifdef TEST_PNG_ZLIB
/* libpng's own writing of the picture: zlib level 1, the Up filter. */
static void reference_png(const Pic *p, const char *path)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    assert_non_null(info);
    if (setjmp(png_jmpbuf(png)))
        fail_msg("libpng failed");
    png_init_io(png, f);
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_IHDR(png, info, (png_uint_32)p->w, (png_uint_32)p->h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < p->h; y++)
        png_write_row(png, pic_row((void *)p, y));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    assert_int_equal(fclose(f), 0);
}
#endif

static void test_writer(void **state)
{
    (void)state;
    /* 1x1; odd sizes; a row wider than ISA-L's 256 KB batch; many batches
     * and IDAT chunks; a padded stride */
    static const int size[][3] = { { 1, 1, 0 },       { 7, 3, 0 },    { 1, 2000, 0 },
                                   { 90001, 2, 0 },   { 1366, 768, 0 }, { 641, 479, 5 } };
    char dir[] = "/tmp/settle-png-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64], ref[64];
    snprintf(path, sizeof(path), "%s/p.png", dir);
    snprintf(ref, sizeof(ref), "%s/r.png", dir);
    for (size_t k = 0; k < sizeof(size) / sizeof(size[0]); k++) {
        Pic p = make_pic(size[k][0], size[k][1], size[k][2], 99u + (uint32_t)k);
        SettleImage im = { .width = p.w, .height = p.h, .stride = p.stride, .rgb = p.rgb };
        uint8_t *png = NULL, *rows = NULL;
        size_t len = 0, rlen = 0;
        assert_int_equal(settle_encode_png(&im, &png, &len), 0);
        assert_int_equal(settle_encode_png_rows(p.w, p.h, pic_row, &p, &rows, &rlen), 0);
        assert_int_equal(rlen, len);
        assert_memory_equal(rows, png, len);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(settle_write_png(f, &im), 0);
        assert_int_equal(fclose(f), 0);
        size_t flen = 0;
        uint8_t *file = read_bytes(path, &flen);
        assert_int_equal(flen, len);
        assert_memory_equal(file, png, len);
        unsigned pw = 0, ph = 0;
        size_t n = 0;
        uint8_t *px = pngread(path, 3, &pw, &ph, &n, "test_png");
        assert_non_null(px);
        assert_int_equal(pw, p.w);
        assert_int_equal(ph, p.h);
        for (int y = 0; y < p.h; y++)
            assert_memory_equal(px + (size_t)y * (size_t)p.w * 3, pic_row(&p, y), (size_t)p.w * 3);
#ifdef TEST_PNG_ZLIB
        reference_png(&p, ref);
        size_t reflen = 0;
        uint8_t *refb = read_bytes(ref, &reflen);
        assert_int_equal(reflen, len);
        assert_memory_equal(refb, png, len);
        free(refb);
        unlink(ref);
#endif
        free(px);
        free(file);
        free(png);
        free(rows);
        free(p.rgb);
    }
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
