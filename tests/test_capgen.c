/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * capgen's capture cache (SETTLE_TEST_CACHE, set by scripts/test): a capture
 * is named by its settings and drawn pixels, so a later pass of the suite
 * copies what the first one encoded, and any other capture is encoded anew.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capgen.h"

static char dir[64], cache[96];

typedef struct Look {
    int mark; /* frame 2's pixel (5, 3) lighter by this */
} Look;

static void draw(void *opaque, int index, uint8_t *rgb, int stride, int w, int h)
{
    const Look *l = opaque;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < 3 * w; x++)
            rgb[(size_t)y * (size_t)stride + (size_t)x] = (uint8_t)(40 * index + x + y);
    if (index == 2)
        rgb[3 * (size_t)stride + 15] = (uint8_t)(rgb[3 * (size_t)stride + 15] + l->mark);
}

static void put(const char *name, int mark, const int64_t *time_ms)
{
    char path[128];
    Look l = { mark };
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    CapgenSpec s = { .path = path, .encoder = "ffv1", .width = 32, .height = 16,
                     .nb_frames = 4, .fps = 10, .time_ms = time_ms, .draw = draw,
                     .opaque = &l };
    assert_int_equal(capgen_write(&s), 0);
}

/* The bytes of dir/name, and their length in *n. */
static char *slurp(const char *folder, const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", folder, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = malloc(1 << 20);
    assert_non_null(b);
    *n = fread(b, 1, 1 << 20, f);
    fclose(f);
    return b;
}

static int same(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(dir, a, &na), *y = slurp(dir, b, &nb);
    int eq = na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return eq;
}

/* The cache's files: how many, and the name of the last in name. */
static int kept(char *name, size_t len)
{
    DIR *d = opendir(cache);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "capgen-", 7)) {
            snprintf(name, len, "%s", e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

static void test_cache(void **state)
{
    (void)state;
    char name[256];
    unsetenv("SETTLE_TEST_CACHE");
    put("plain.mkv", 0, NULL);
    assert_int_equal(kept(name, sizeof(name)), 0);

    setenv("SETTLE_TEST_CACHE", cache, 1);
    put("a.mkv", 0, NULL);
    assert_int_equal(kept(name, sizeof(name)), 1);
    assert_true(same("a.mkv", "plain.mkv")); /* the same encoding, kept */

    /* the same capture again: taken from the cache, not encoded (a cached
     * file changed on purpose shows which) */
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", cache, name);
    size_t n;
    char *b = slurp(cache, name, &n);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fputs("kept", f) >= 0, 1);
    fclose(f);
    free(b);
    put("again.mkv", 0, NULL);
    assert_int_equal(kept(name, sizeof(name)), 1);
    size_t na;
    b = slurp(dir, "again.mkv", &na);
    assert_int_equal(na, n + 4);
    assert_memory_equal(b + n, "kept", 4);
    free(b);

    /* one pixel of one frame, or the frames' times: another capture */
    put("pixel.mkv", 1, NULL);
    assert_int_equal(kept(name, sizeof(name)), 2);
    assert_false(same("pixel.mkv", "a.mkv"));
    static const int64_t times[] = { 0, 100, 250, 300 };
    put("times.mkv", 0, times);
    assert_int_equal(kept(name, sizeof(name)), 3);
    assert_false(same("times.mkv", "a.mkv"));
    unsetenv("SETTLE_TEST_CACHE");
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "capgen-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(cache, sizeof(cache), "%s/cache", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
