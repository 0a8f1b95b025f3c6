/* SPDX-License-Identifier: BSD-2-Clause */
/* The valgrind pass's share of a long test program's cases. Memcheck finds
 * what the ASan pass cannot (reads of uninitialised memory), and it does so on
 * the paths a case takes, not on how many frames it takes them: under it, a
 * program whose cases each make and analyse a capture runs the cases named
 * here, each on a path of its own, and the plain and ASan passes run them
 * all. tests/valgrind.sh sets SETTLE_VALGRIND_EVERY (8 unless given; 1 runs
 * every case under memcheck too). Include after <cmocka.h>. */
#ifndef SETTLE_TESTS_SAMPLE_H
#define SETTLE_TESTS_SAMPLE_H

#include <stdlib.h>
#include <string.h>

/* Keeps at the front of tests[0 .. n - 1], in their order, the cases whose
 * names (as cmocka_unit_test gives them) are in the NULL-ended list
 * `checked`, when the valgrind pass samples (SETTLE_VALGRIND_EVERY above 1);
 * all of them otherwise. Returns how many it kept. */
static inline size_t valgrind_sample(struct CMUnitTest *tests, size_t n,
                                     const char *const *checked)
{
    const char *every = getenv("SETTLE_VALGRIND_EVERY");
    if (!every || atoi(every) <= 1)
        return n;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        for (const char *const *c = checked; *c; c++) {
            if (!strcmp(tests[i].name, *c)) {
                tests[kept++] = tests[i];
                break;
            }
        }
    }
    return kept;
}

#endif
