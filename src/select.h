/* SPDX-License-Identifier: BSD-2-Clause */
/* The k-th smallest of an array of floats, exactly: the block test's medians
 * (src/measure_blocks.c). */
#ifndef SETTLE_SELECT_H
#define SETTLE_SELECT_H

/* The k-th smallest (0 <= k < n) of v[0..n), which holds no NaN; v is
 * overwritten. The value is the one a sort would put at k (-0 orders before
 * +0). */
float settle_select_k(float *v, int n, int k);

#endif
