/* SPDX-License-Identifier: BSD-2-Clause */
/* Reproducible random numbers of the statistics (src/stats.c): the same
 * numbers from the same seed on every machine. */
#ifndef SETTLE_RANDOM_H
#define SETTLE_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* The next number of splitmix64; *state is the whole generator. */
uint64_t settle_splitmix64(uint64_t *state);

/* A uniform index below n (n >= 1), without modulo bias (rejection). */
size_t settle_draw(uint64_t *state, size_t n);

#endif
