/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SETTLE_CLI_EXPLAIN_H
#define SETTLE_CLI_EXPLAIN_H

#include <stdio.h>

#include "settle/settle.h"

/* Writes to err, one line each, what decided the result r of input `in`. */
void cli_explain(FILE *err, const char *in, const SettleResult *r);

/* When an animated area decided the answer (at least half of the deciding
 * change lies in animated areas) or blocked it (no answer, and areas were
 * found): a note for the summary, else "". */
void cli_animated_note(const SettleResult *r, char *buf, size_t len);

/* One line a --region area to out: its stable time and load time. */
void cli_regions(FILE *out, const char *in, const SettleResult *r);

#endif
