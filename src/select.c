/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The k-th smallest float, by its key a few bits at a time: count the keys'
 * bits in a window, keep the bucket that holds the k-th, until few are left.
 * No comparison to mispredict, unlike a quickselect (which took 8 % of a
 * camera capture's analysis). The window is placed on the candidates' range
 * (their least and largest key), as wide as there are candidates, so that
 * one pass leaves few: the block test's residuals span a few powers of two,
 * and a window at the highest bit in which they differ (the byte-wise radix
 * of before) put most of them in a few buckets. Residuals of both signs (the
 * row offsets) are split by sign first, since their keys lie at the two ends
 * of the range. Many equal keys (a still, flat part of the picture: a third
 * of startup-test-elmo's blocks) are caught when the first candidate is the
 * k-th. The keys are kept in v's own floats (memcpy: no aliasing). In
 * settle_select_with, arrays of 9 to SETTLE_SELECT_ROW (a row of blocks),
 * and longer ones given scratch, go to partitions without a branch a key
 * (settle_select_part, a kernel) first: the same value, a fifth to a third
 * of the instructions.
 */
#include "select.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"

/* quickselect below this many (measured: rows of 26 blocks gain, 80 lose) */
#define SELECT_SHORT 32
/* the widest window of a pass, in bits (the counts live on the stack) */
#define SELECT_BITS 10

/* A float as a key whose unsigned order is the float order (-0 before +0;
 * no NaN comes here). */
static inline uint32_t float_key(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

static inline float key_float(uint32_t key)
{
    uint32_t u = key & 0x80000000u ? key & 0x7fffffffu : ~key;
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static inline uint32_t key_at(const float *v, int i)
{
    uint32_t key;
    memcpy(&key, v + i, sizeof(key));
    return key;
}

static inline int bit_length(uint32_t x)
{
    return x ? 32 - __builtin_clz(x) : 0;
}

static float quickselect(float *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        float pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                float t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

/* The k-th of a short array by ranks: the first value with at most k below
 * it and more than k at or below it, v left as it was. No swap, and a
 * mispredicted branch a candidate at most instead of one a comparison:
 * 3 to 4 times faster than the quickselect on rows of 25 blocks. A zero
 * goes to the quickselect, which compares -0 and +0 equal and so returns
 * whichever of them its partitions leave at k: the same float as before,
 * bit for bit, whatever the array (any other value equal to the k-th has
 * its bits). */
static float short_select(float *v, int n, int k)
{
    for (int i = 0; i < n; i++) {
        const float x = v[i];
        int below = 0, upto = 0;
        for (int j = 0; j < n; j++) {
            below += v[j] < x;
            upto += v[j] <= x;
        }
        if (below <= k && k < upto)
            return x == 0 ? quickselect(v, n, k) : x;
    }
    return quickselect(v, n, k); /* not reached without a NaN */
}

static void key_range(const float *v, int n, uint32_t *lo, uint32_t *hi)
{
    uint32_t l = ~0u, h = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t key = key_at(v, i);
        l = key < l ? key : l;
        h = key > h ? key : h;
    }
    *lo = l;
    *hi = h;
}

/* Keeps, in order, the keys of v[0..n) on the given side of the sign
 * (1: not negative), without a branch; returns how many. */
static int keep_side(float *v, int n, uint32_t side)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t key = key_at(v, i);
        memcpy(v + m, &key, sizeof(key));
        m += (int)(key >> 31 == side);
    }
    return m;
}

/* ... the keys in bucket d of the window (key - base) >> shift */
static int keep_bucket(float *v, int n, uint32_t base, int shift, uint32_t d)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t key = key_at(v, i);
        memcpy(v + m, &key, sizeof(key));
        m += (int)((key - base) >> shift == d);
    }
    return m;
}

float settle_select_k(float *v, int n, int k)
{
    return settle_select_with(settle_select_part, NULL, v, n, k);
}

float settle_select_with(SettleSelectPart part, int32_t *keys, float *v, int n, int k)
{
    int32_t row[2 * (SETTLE_SELECT_ROW + 8)];
    float x;
    /* a short array's zero is the quickselect's (short_select), whose sign
     * the partitions do not give; any other value is the same float */
    if (n <= SELECT_SHORT)
        return n > 8 && !part(v, row, n, k, &x) && x != 0 ? x : short_select(v, n, k);
    if ((n <= SETTLE_SELECT_ROW || keys) && !part(v, n <= SETTLE_SELECT_ROW ? row : keys, n, k, &x))
        return x;
    uint32_t count[2][1u << SELECT_BITS], lo = ~0u, hi = 0;
    int neg = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t key = float_key(v[i]);
        lo = key < lo ? key : lo;
        hi = key > hi ? key : hi;
        neg += (int)(key >> 31 ^ 1);
        memcpy(v + i, &key, sizeof(key));
    }
    if (neg && neg < n) {
        const uint32_t side = k >= neg;
        k -= side ? neg : 0;
        n = keep_side(v, n, side);
        key_range(v, n, &lo, &hi);
    }
    while (n > SELECT_SHORT && lo != hi) {
        int bits = bit_length((uint32_t)n) - 1;
        bits = bits > SELECT_BITS ? SELECT_BITS : bits;
        const int span = bit_length(hi - lo), shift = span > bits ? span - bits : 0;
        const uint32_t buckets = ((hi - lo) >> shift) + 1;
        memset(count[0], 0, buckets * sizeof(**count));
        memset(count[1], 0, buckets * sizeof(**count));
        /* two counts, even and odd places, so that equal neighbours do not
         * wait on each other's increment; and the keys below and equal to
         * the first */
        const uint32_t t = key_at(v, 0);
        uint32_t below = 0, equal = 0;
        int j = 0;
        for (; j + 1 < n; j += 2) {
            const uint32_t k0 = key_at(v, j), k1 = key_at(v, j + 1);
            count[0][(k0 - lo) >> shift]++;
            count[1][(k1 - lo) >> shift]++;
            below += (uint32_t)(k0 < t) + (uint32_t)(k1 < t);
            equal += (uint32_t)(k0 == t) + (uint32_t)(k1 == t);
        }
        if (j < n) {
            const uint32_t k0 = key_at(v, j);
            count[0][(k0 - lo) >> shift]++;
            below += k0 < t;
            equal += k0 == t;
        }
        if ((uint32_t)k >= below && (uint32_t)k - below < equal)
            return key_float(t);
        uint32_t d = 0;
        while ((uint32_t)k >= count[0][d] + count[1][d]) {
            k -= (int)(count[0][d] + count[1][d]);
            d++;
        }
        n = keep_bucket(v, n, lo, shift, d);
        key_range(v, n, &lo, &hi);
    }
    if (lo == hi)
        return key_float(lo);
    for (int i = 0; i < n; i++)
        v[i] = key_float(key_at(v, i));
    return short_select(v, n, k);
}

float settle_float_below(double m, int strict)
{
    float v = (float)(1 / m);
    while (v > 0 && (strict ? m * v >= 1 : m * v > 1))
        v = nextafterf(v, 0);
    for (float u = nextafterf(v, INFINITY); strict ? m * u < 1 : m * u <= 1;
         u = nextafterf(v, INFINITY))
        v = u;
    return v;
}
