/* SPDX-License-Identifier: BSD-2-Clause */
/* Results to read back, wherever they are: a history store (SQLite), a
 * result folder (settle analyze -o DIR), or a file of one result or of JSON
 * Lines (settle analyze --json FILE). Shared by history, trend, dashboard. */
#ifndef SETTLE_CLI_RESULTS_IN_H
#define SETTLE_CLI_RESULTS_IN_H

#include <stddef.h>

#include "settle/history.h"

/* Called for each result: `len` bytes of one JSON object, its paths (the
 * store's, or found beside the file: STEM.csv, STEM-filmstrip.png, the
 * capture when "input" resolves), and where it came from ("FILE", "FILE:LINE",
 * "#ID") for messages. A positive return stops the walk and is returned. */
typedef int (*ResultFn)(const char *json, size_t len, const SettleHistoryPaths *p,
                        const char *where, void *user);

/* Reads every result of `item`. Returns 0, the callback's non-zero return,
 * or -1 after writing one line "ITEM: problem" to err. Lines of a JSON Lines
 * file that are not JSON objects are a problem; the results before them
 * have been given. */
int results_each(const char *item, ResultFn fn, void *user, char *err, size_t errlen);

/* Whether the file starts like a SQLite database. */
int is_sqlite_file(const char *path);

/* path made absolute against the working directory ("./" and "//" dropped),
 * without resolving links; NULL when out of memory. */
char *abs_path(const char *path);

/* The path to `to` (absolute) from the directory `from` (absolute), with
 * "../" as needed. NULL when out of memory. */
char *rel_path(const char *from, const char *to);

#endif
