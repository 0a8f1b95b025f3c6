/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SETTLE_CLI_EXPLAIN_H
#define SETTLE_CLI_EXPLAIN_H

#include <stdio.h>

#include "settle/settle.h"

/* Writes to err, one line each, what decided the result r of input `in`. */
void cli_explain(FILE *err, const char *in, const SettleResult *r);

#endif
