/* SPDX-License-Identifier: BSD-2-Clause */
/* The progress line on stderr: only when stderr is a terminal. */
#ifndef SETTLE_CLI_PROGRESS_H
#define SETTLE_CLI_PROGRESS_H

#include <stdint.h>

/* What one worker is reading, for its progress line. */
typedef struct Progress {
    const char *input;
    const char *pass;   /* NULL while measuring, "pictures" on the second reading */
    double t0;          /* monotonic seconds when the pass began */
} Progress;

/* Turns the line on when `on` and stderr is a terminal. */
void progress_enable(int on);
int progress_enabled(void);
/* Marks the start of a pass over `input`. */
void progress_begin(Progress *p, const char *input, const char *pass);
/* A SettleSettings.progress_cb; opaque is a Progress. Prints at most 5 times a second. */
void progress_cb(void *opaque, double time, double duration, int64_t frames);
/* Erases the line, before other output goes to the terminal. */
void progress_clear(void);

#endif
