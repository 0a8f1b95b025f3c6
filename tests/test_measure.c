/* SPDX-License-Identifier: BSD-2-Clause */
/* The measure stage's modules: their option tables against the settings,
 * and the stage driving them on hand-made pictures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "measure_modules.h"

static const SettleMeasureModule *const all[] = {
    &settle_module_pixels, &settle_module_blocks, &settle_module_cells,
    &settle_module_regions, &settle_module_visual,
};
#define NALL (int)(sizeof(all) / sizeof(all[0]))

/* Each default lies in its range, names are unique in a table, and the
 * options filled from the default settings equal the table's defaults: the
 * two places a default is written agree. */
static void test_tables(void **state)
{
    (void)state;
    SettleSettings s;
    settle_default_settings(&s);
    for (int m = 0; m < NALL; m++) {
        const SettleMeasureModule *mod = all[m];
        assert_non_null(mod->name);
        assert_true(mod->priv_size > mod->opts_in_priv);
        uint8_t *a = calloc(1, mod->priv_size), *b = calloc(1, mod->priv_size);
        assert_non_null(a);
        assert_non_null(b);
        char err[128];
        assert_int_equal(settle_module_options_fill(mod->options, a, &s, err, sizeof(err)), 0);
        assert_int_equal(settle_module_options_fill(mod->options, b, NULL, err, sizeof(err)), 0);
        for (const SettleModuleOption *o = mod->options; o && o->name; o++) {
            if (o->type != SETTLE_MOPT_COLOR) {
                assert_true(o->def >= o->min && o->def <= o->max);
            }
            assert_non_null(o->help);
            for (const SettleModuleOption *p = o + 1; p->name; p++)
                assert_string_not_equal(o->name, p->name);
            size_t n = o->type == SETTLE_MOPT_DOUBLE ? sizeof(double)
                       : o->type == SETTLE_MOPT_COLOR ? 3 : sizeof(int);
            if (memcmp(a + o->offset, b + o->offset, n))
                fail_msg("%s: option %s: the default settings and the table disagree",
                         mod->name, o->name);
        }
        free(a);
        free(b);
    }
}

/* A setting out of a module's range is refused, naming the option. */
static void test_range(void **state)
{
    (void)state;
    SettleSettings s;
    settle_default_settings(&s);
    s.tolerance = 300;
    uint8_t opts[256] = { 0 };
    char err[128] = "";
    assert_true(settle_module_options_fill(settle_module_pixels.options, opts, &s, err,
                                           sizeof(err)) < 0);
    assert_non_null(strstr(err, "tolerance"));
    s.tolerance = 7;
    assert_int_equal(settle_module_options_fill(settle_module_pixels.options, opts, &s, err,
                                                sizeof(err)), 0);
    int tol;
    memcpy(&tol, opts + settle_module_pixels.options[0].offset, sizeof(tol));
    assert_int_equal(tol, 7);
}

static void fill(uint8_t *rgb, int w, int h, uint8_t v)
{
    memset(rgb, v, (size_t)w * h * 3);
}

/* The stage and its table: a rectangle of 10x6 pixels changes in the second
 * picture; the pixels module counts them, the cells module finds where, the
 * blocks module judges it, and a --region area over half of it counts its share. */
static void test_stage(void **state)
{
    (void)state;
    enum { W = 64, H = 48 };
    SettleSettings s;
    settle_default_settings(&s);
    s.nregions = 1;
    strcpy(s.region_name[0], "left");
    s.region[0][0] = 0, s.region[0][1] = 0, s.region[0][2] = 25, s.region[0][3] = H;
    SettleKernels dsp;
    settle_kernels_init(&dsp, settle_cpu_flags());
    SettleMeasure m;
    memset(&m, 0, sizeof(m));
    assert_int_equal(settle_measure_begin(&m, &s, &dsp, W, H), 0);
    SettleMeasureSetup setup = { .diff_limit = 100, .mobile = 0 };
    assert_int_equal(settle_measure_set_region(&m, 0, 0, W, H, &setup), 0);
    assert_non_null(settle_measure_cells(&m));
    assert_non_null(settle_measure_blocks(&m));
    assert_null(settle_measure_visual(&m)); /* --visual-metrics off: not running */

    uint8_t *rgb = malloc(W * H * 3);
    assert_non_null(rgb);
    fill(rgb, W, H, 40);
    SettleRecord r;
    memset(&r, 0, sizeof(r));
    assert_int_equal(settle_measure_picture(&m, rgb, W * 3, 1, NULL, 0, NULL, NULL, 1, &r), 0);
    assert_int_equal(settle_measure_decided(&m, rgb, W * 3, 1, 0, 0, 1, &r), 0);
    assert_int_equal(r.diff, 0);
    assert_near(r.entropy, log2(3), 1e-9); /* one colour: one bin of each channel */

    for (int y = 20; y < 26; y++)
        memset(rgb + (size_t)y * W * 3 + 20 * 3, 200, 10 * 3);
    memset(&r, 0, sizeof(r));
    r.index = 1;
    assert_int_equal(settle_measure_picture(&m, rgb, W * 3, 0, NULL, 0, NULL, NULL, 1, &r), 0);
    assert_int_equal(settle_measure_decided(&m, rgb, W * 3, 0, 0, 0, 1, &r), 0);
    assert_int_equal(r.diff, 60);
    assert_int_equal(r.strong, 60);
    assert_true(r.entropy > log2(3) + 0.01);
    assert_int_equal(r.box[0], 20);
    assert_int_equal(r.box[1], 20);
    assert_int_equal(r.box[2], 10);
    assert_int_equal(r.box[3], 6);
    assert_int_equal(r.region[0], 30); /* columns 20..24 of the change */
    assert_true(r.blocks_changed >= 0);

    /* the same picture again: nothing changed */
    memset(&r, 0, sizeof(r));
    r.index = 2;
    assert_int_equal(settle_measure_picture(&m, rgb, W * 3, 0, NULL, 0, NULL, NULL, 1, &r), 0);
    assert_int_equal(r.diff, 0);
    assert_int_equal(r.box[2], 0);
    settle_measure_free(&m);
    settle_measure_free(&m); /* twice is safe */
    free(rgb);
}

/* Pictures whose entropy may be read later (SETTLE_ENTROPY_LATER): after a
 * picture that changed every band, "pixels" keeps a copy instead of the
 * histogram, and settle_measure_entropy gives the entropy of the last picture
 * and of the window's before it as measured on every picture; an older one
 * is no longer kept. */
static void test_entropy_later(void **state)
{
    (void)state;
    enum { W = 40, H = 50, N = 9 };
    SettleSettings s;
    settle_default_settings(&s); /* a window of 5 */
    SettleKernels dsp;
    settle_kernels_init(&dsp, settle_cpu_flags());
    SettleMeasure m[2];
    memset(m, 0, sizeof(m));
    SettleMeasureSetup setup = { .diff_limit = 100, .mobile = 0 };
    uint8_t *rgb = malloc(W * H * 3);
    assert_non_null(rgb);
    double eager[N], later[N];
    for (int k = 0; k < 2; k++) {
        assert_int_equal(settle_measure_begin(&m[k], &s, &dsp, W, H), 0);
        assert_int_equal(settle_measure_set_region(&m[k], 0, 0, W, H, &setup), 0);
        unsigned seed = 7;
        for (int i = 0; i < N; i++) {
            /* every pixel drawn anew, in a few levels: every band changes */
            for (int j = 0; j < W * H * 3; j++) {
                seed = seed * 1103515245u + 12345u;
                rgb[j] = (uint8_t)(i * 3 + (seed >> 16) % (4 + i));
            }
            SettleRecord r;
            memset(&r, 0, sizeof(r));
            r.index = i;
            assert_int_equal(settle_measure_picture(&m[k], rgb, W * 3, i == 0, NULL, 0, NULL, NULL,
                                                    k ? SETTLE_ENTROPY_LATER : 1, &r),
                             0);
            (k ? later : eager)[i] = r.entropy;
        }
    }
    for (int i = 0; i < N; i++)
        assert_true(isfinite(eager[i]));
    /* the first picture and the one after it (the first changed no band) */
    assert_true(later[0] == eager[0] && later[1] == eager[1]);
    for (int i = 2; i < N; i++)
        assert_true(isnan(later[i]));
    /* the last, then the window before it, newest first as the decide stage asks */
    for (int i = N - 1; i >= N - 1 - s.window; i--)
        assert_true(settle_measure_entropy(&m[1], i) == eager[i]);
    assert_true(isnan(settle_measure_entropy(&m[1], N - 2 - s.window)));
    assert_true(isnan(settle_measure_entropy(&m[1], N)));
    settle_measure_free(&m[0]);
    settle_measure_free(&m[1]);
    free(rgb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_stage),
        cmocka_unit_test(test_entropy_later),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
