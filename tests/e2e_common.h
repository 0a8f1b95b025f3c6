/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the end-to-end cmocka groups share: a scratch directory, made in the
 * current directory by the group set-up, entered, and removed with every file
 * the tests tracked by the group teardown, even after a failed test; and
 * contexts opened with options changed from the defaults.
 */
#ifndef SETTLE_TESTS_E2E_COMMON_H
#define SETTLE_TESTS_E2E_COMMON_H

#include "settle/settle.h"

/* Makes PREFIX-XXXXXX, enters it and quiets the decoder's log; 0 or -1. */
int scratch_enter(const char *prefix);

/* Removes the tracked files, leaves the directory and removes it; 0 or -1. */
int scratch_leave(void);

/* Remembers PATH (relative to the scratch directory) for removal; returns it. */
const char *track(const char *path);

/* A context with the defaults changed by NULL-terminated name, value pairs
 * (opts may be NULL); fails the test when one is refused. */
SettleContext *open_with(const char *const *opts);

#endif
