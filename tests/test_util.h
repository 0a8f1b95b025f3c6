/* SPDX-License-Identifier: BSD-2-Clause */
/* What the tests need beyond Debian's cmocka 1.1.5 (no assert_double_equal). */
#ifndef SETTLE_TESTS_UTIL_H
#define SETTLE_TESTS_UTIL_H

#include <math.h>

/* a within eps of b; NaN never is */
#define assert_near(a, b, eps)                                                                \
    do {                                                                                  \
        double a_ = (a), b_ = (b);                                                        \
        if (!(fabs(a_ - b_) <= (eps)))                                                    \
            fail_msg("%s = %.12g, expected %.12g (within %g)", #a, a_, b_, (double)(eps)); \
    } while (0)

#endif
