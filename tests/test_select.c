/* SPDX-License-Identifier: BSD-2-Clause */
/* The exact k-th smallest float (src/select.c) against a sort, on the
 * shapes the block test hands it: residuals of one sign spread over a few
 * powers of two, row offsets of both signs around zero, many equal values
 * (a still, flat part of the picture), zeros of both signs, tiny and huge
 * magnitudes, every size around the short-array and window thresholds; and
 * the float bound (settle_float_below) against the product it stands for. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels.h"
#include "select.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

/* the float order with -0 before +0, as the selection keys it */
static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    if (x != y)
        return x < y ? -1 : 1;
    return (int)!signbit(x) - (int)!signbit(y);
}

enum Shape { LOGSPREAD, SIGNED, TIES, ZEROS, FEW_VALUES, WIDE, EQUAL, SHAPES };

static float draw(enum Shape s, float tie)
{
    double u = uniform();
    switch (s) {
    case LOGSPREAD: /* |residuals|: 1e-4 .. 50 */
        return (float)(1e-4 * pow(5e5, u));
    case SIGNED: /* row offsets: both signs, mostly small */
        return (float)((u < 0.5 ? -1 : 1) * 0.01 * pow(1e3, uniform()));
    case TIES: /* two in five the same value, the rest spread around it */
        return u < 0.4 ? tie : (float)(tie * (0.5 + uniform()));
    case ZEROS: /* +0 and -0 among small values of both signs */
        return u < 0.3 ? 0.0f : u < 0.6 ? -0.0f : (float)(uniform() - 0.5);
    case FEW_VALUES:
        return (float)((int)(u * 5) - 2);
    case WIDE: /* denormals to huge, both signs */
        return (float)((uniform() < 0.5 ? -1 : 1) * pow(2.0, -140 + 260 * u));
    default:
        return tie;
    }
}

static void check(const float *in, int n, int k)
{
    float *v = malloc((size_t)n * sizeof(*v)), *sorted = malloc((size_t)n * sizeof(*sorted));
    assert_non_null(v);
    assert_non_null(sorted);
    memcpy(v, in, (size_t)n * sizeof(*v));
    memcpy(sorted, in, (size_t)n * sizeof(*sorted));
    qsort(sorted, (size_t)n, sizeof(*sorted), cmp_float);
    float got = settle_select_k(v, n, k);
    if (!(got == sorted[k]))
        fail_msg("n %d k %d: got %.9g, the sort has %.9g", n, k, got, sorted[k]);
    /* a zero's sign may come back either way only where a sort would have
     * zeros of both signs next to k, in arrays of 32 or fewer (the
     * quickselect of short arrays compares values); longer ones are
     * selected in the keys' order, -0 before +0, which the outputs of
     * before depend on */
    if (got == 0 && signbit(got) != signbit(sorted[k]))
        assert_true(n <= 32 && ((k > 0 && sorted[k - 1] == 0) || (k + 1 < n && sorted[k + 1] == 0)));
    free(v);
    free(sorted);
}

static void test_every_k_short(void **state)
{
    (void)state;
    float v[160];
    for (int s = 0; s < SHAPES; s++)
        for (int n = 1; n <= 160; n += n < 40 ? 1 : 7)
            for (int rep = 0; rep < 3; rep++) {
                float tie = (float)(0.03 + uniform());
                for (int i = 0; i < n; i++)
                    v[i] = draw((enum Shape)s, tie);
                for (int k = 0; k < n; k++)
                    check(v, n, k);
            }
}

static void test_long(void **state)
{
    (void)state;
    static const int sizes[] = { 33, 64, 80, 255, 256, 257, 1023, 1024, 1025, 2047, 3600, 9000 };
    float *v = malloc(9000 * sizeof(*v));
    assert_non_null(v);
    for (int s = 0; s < SHAPES; s++)
        for (size_t z = 0; z < sizeof(sizes) / sizeof(*sizes); z++) {
            const int n = sizes[z];
            float tie = (float)(0.03 + uniform());
            for (int i = 0; i < n; i++)
                v[i] = draw((enum Shape)s, tie);
            const int ks[] = { 0, 1, n / 3, n / 2, n / 2 + 1, n - 2, n - 1,
                               (int)(uniform() * n) };
            for (size_t j = 0; j < sizeof(ks) / sizeof(*ks); j++)
                check(v, n, ks[j]);
        }
    free(v);
}

/* sorted and reversed input, and one outlier far from a tight cluster (the
 * window must still split the cluster) */
static void test_orders(void **state)
{
    (void)state;
    enum { N = 3600 };
    float *v = malloc(N * sizeof(*v));
    assert_non_null(v);
    for (int i = 0; i < N; i++)
        v[i] = (float)i * 0.25f;
    check(v, N, N / 2);
    for (int i = 0; i < N; i++)
        v[i] = (float)(N - i) * -0.5f;
    check(v, N, N / 2);
    for (int i = 0; i < N; i++)
        v[i] = 1.0f + (float)i * 1e-6f;
    v[17] = 3e38f;
    check(v, N, N / 2);
    check(v, N, N - 1);
    v[17] = -INFINITY;
    v[18] = INFINITY;
    check(v, N, 0);
    check(v, N, N - 1);
    check(v, N, N / 2);
    free(v);
}

static int passes(double m, int strict, float v)
{
    return strict ? m * v < 1 : m * v <= 1;
}

/* The bound passes and the float after it does not, for multipliers whose
 * inverse is a float (4: m * v = 1 there) or not; every float of a sweep
 * passes exactly when it is at most the bound; and the k-th smallest of an
 * array passes exactly when more than k of its floats are at most the bound
 * (the count the block test makes instead of a selection). */
/* Short arrays whose k-th is a zero, with zeros of both signs: the sign the
 * quickselect gives (the partitions' swaps decide it), which a selection by
 * ranks alone would not (it returns the first zero it finds). The outputs
 * were made with the quickselect; the rows' offsets are subtracted, so a
 * zero's sign moves -0 - -0 = +0 against -0 - +0 = -0. */
static void test_short_zero_sign(void **state)
{
    (void)state;
    static const struct {
        float v[3];
        int k, negative;
    } cases[] = {
        { { -0.0f, 0.0f, 1.0f }, 0, 0 },
        { { 0.0f, -0.0f, 1.0f }, 0, 1 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        float v[3];
        memcpy(v, cases[i].v, sizeof(v));
        const float got = settle_select_k(v, 3, cases[i].k);
        assert_true(got == 0);
        assert_int_equal(!!signbit(got), cases[i].negative);
    }
    /* a nonzero k-th among zeros of both signs: itself */
    float w[5] = { 0.0f, -0.0f, 2.0f, -0.0f, 0.5f };
    assert_true(settle_select_k(w, 5, 3) == 0.5f);
}

/* A partition that gives up: settle_select_with selects by the radix. */
static int give_up(const float *v, int32_t *keys, int n, int k, float *out)
{
    (void)v;
    (void)keys;
    (void)n;
    (void)k;
    (void)out;
    return -1;
}

/* settle_select_with: with scratch for long arrays (the partitions), without
 * (the radix) and with a partition that gives up, the same float as
 * settle_select_k, to the bit; and on arrays of 9 to 32, where a zero must be
 * the quickselect's (the partitions' zero would be the keys'), the same float
 * as the short selection alone (a partition that gives up), with this CPU's
 * kernel too. */
static void test_with(void **state)
{
    (void)state;
    enum { N = 3600 };
    float *v = malloc(N * sizeof(*v)), *w = malloc(N * sizeof(*w));
    int32_t *keys = malloc(2 * (N + 8) * sizeof(*keys));
    assert_true(v && w && keys);
    static const int sizes[] = { 9, 10, 16, 26, 27, 31, 32, 33, 80, 128, 129, 1000, N };
    SettleKernels kern;
    settle_kernels_init(&kern, settle_cpu_flags());
    for (int s = 0; s < SHAPES; s++)
        for (size_t z = 0; z < sizeof(sizes) / sizeof(*sizes); z++) {
            const int n = sizes[z];
            float tie = (float)(0.03 + uniform());
            for (int i = 0; i < n; i++)
                v[i] = draw((enum Shape)s, tie);
            for (int k = 0; k < n; k += n <= 32 ? 1 : n / 7 + 1) {
                memcpy(w, v, (size_t)n * sizeof(*w));
                const float want = settle_select_with(give_up, keys, w, n, k);
                float got[4];
                memcpy(w, v, (size_t)n * sizeof(*w));
                got[0] = settle_select_with(settle_select_part, keys, w, n, k);
                memcpy(w, v, (size_t)n * sizeof(*w));
                got[1] = settle_select_with(settle_select_part, NULL, w, n, k);
                memcpy(w, v, (size_t)n * sizeof(*w));
                got[2] = settle_select_k(w, n, k);
                memcpy(w, v, (size_t)n * sizeof(*w));
                got[3] = settle_select_with(kern.select_part, keys, w, n, k);
                for (int j = 0; j < 4; j++)
                    if (memcmp(&got[j], &want, sizeof(want)))
                        fail_msg("with %d: n %d k %d: got %a, the selection without partitions has %a", j, n, k,
                                 (double)got[j], (double)want);
            }
        }
    free(v);
    free(w);
    free(keys);
}

static void test_float_below(void **state)
{
    (void)state;
    static const double ms[] = { 3.0, 6.0, 4.0, 5.0, 10.0, 0.7, 1.0 };
    float v[101];
    for (size_t j = 0; j < sizeof(ms) / sizeof(*ms); j++)
        for (int strict = 0; strict < 2; strict++) {
            const double m = ms[j];
            const float t = settle_float_below(m, strict);
            assert_true(passes(m, strict, t));
            assert_false(passes(m, strict, nextafterf(t, INFINITY)));
            for (uint32_t u = 0; u < 0x7f800000u; u += 4099) {
                float f;
                memcpy(&f, &u, sizeof(f));
                if ((f <= t) != passes(m, strict, f))
                    fail_msg("m %g strict %d: %.9g against the bound %.9g", m, strict, f, t);
                if ((-f <= t) != passes(m, strict, -f))
                    fail_msg("m %g strict %d: %.9g against the bound %.9g", m, strict, -f, t);
            }
            for (int rep = 0; rep < 200; rep++) {
                /* values about the bound, some of them on it or next to it */
                for (int i = 0; i < 101; i++) {
                    const double u = uniform();
                    v[i] = u < 0.2 ? t : u < 0.3 ? nextafterf(t, INFINITY)
                                               : (float)(t * (0.5 + uniform()));
                }
                const int k = (int)(uniform() * 101);
                int at_most = 0;
                for (int i = 0; i < 101; i++)
                    at_most += v[i] <= t;
                assert_int_equal(at_most > k, passes(m, strict, settle_select_k(v, 101, k)));
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_k_short),
        cmocka_unit_test(test_long),
        cmocka_unit_test(test_orders),
        cmocka_unit_test(test_short_zero_sign),
        cmocka_unit_test(test_with),
        cmocka_unit_test(test_float_below),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
