/* SPDX-License-Identifier: BSD-2-Clause */
/* The k-th smallest of an array of floats, exactly: the block test's medians
 * (src/measure_blocks.c); and the float bound that tells, by counting,
 * which side of a bound the k-th smallest lies on without selecting it. */
#ifndef SETTLE_SELECT_H
#define SETTLE_SELECT_H

#include <stdint.h>

/* The k-th smallest (0 <= k < n) of v[0..n), which holds no NaN; v is
 * overwritten. The value is the one a sort would put at k (-0 orders before
 * +0). */
float settle_select_k(float *v, int n, int k);

/* settle_select_k's value, with part (settle_select_part or a faster kernel
 * that gives the same value: SettleKernels.select_part) for the arrays of
 * more than 8 values: up to SETTLE_SELECT_ROW with keys on the stack, longer
 * ones with keys (2 * (n + 8) int32_t of scratch; NULL: settle_select_k's
 * radix instead). The radix too when part gives up; and the short selection
 * for 32 or fewer when the k-th is a zero (its sign is the quickselect's). */
#define SETTLE_SELECT_ROW 128
typedef int (*SettleSelectPart)(const float *v, int32_t *keys, int n, int k, float *out);
float settle_select_with(SettleSelectPart part, int32_t *keys, float *v, int n, int k);

/* The largest float v with m * v < 1 (strict) or m * v <= 1 (not strict), the
 * product taken in doubles (m > 0, finite). Since the product never falls as
 * v grows, a float passes that test exactly when it is at most the bound: so
 * the k-th smallest of an array passes it exactly when more than k of the
 * array's floats are at most the bound. */
float settle_float_below(double m, int strict);

#endif
