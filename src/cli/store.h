/* SPDX-License-Identifier: BSD-2-Clause */
/* analyze --db: the history store from the program (store.c). */
#ifndef SETTLE_CLI_STORE_H
#define SETTLE_CLI_STORE_H

typedef struct SettleHistory SettleHistory;

/* Opens the store at db: 0, or an exit code after a message. */
int cli_store_open(SettleHistory **h, const char *db);

/* Stores one result (its JSON) with the paths of its outputs as given (each
 * may be NULL; made absolute, kept when the file exists, the report always).
 * Returns 0 or an exit code after a message. */
int cli_store_result(SettleHistory *h, const char *db, const char *json, const char *capture,
                     const char *result, const char *csv, const char *report,
                     const char *frames);

#endif
