/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A scratch directory for a cmocka test group: made in the current directory
 * by the group set-up, entered, and removed with every file the tests tracked
 * by the group teardown, even after a failed test.
 */
#ifndef SETTLE_TESTS_SCRATCH_H
#define SETTLE_TESTS_SCRATCH_H

/* Makes PREFIX-XXXXXX, enters it and quiets the decoder's log; 0 or -1. */
int scratch_enter(const char *prefix);

/* Removes the tracked files, leaves the directory and removes it; 0 or -1. */
int scratch_leave(void);

/* Remembers PATH (relative to the scratch directory) for removal; returns it. */
const char *track(const char *path);

#endif
