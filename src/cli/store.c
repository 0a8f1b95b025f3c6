/* SPDX-License-Identifier: BSD-2-Clause */
/* analyze --db: a result into the history store as it is written (the
 * command's side of settle/history.h; settle history add does the same for
 * results already on disk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "results_in.h"
#include "settle/history.h"
#include "settle/settle.h"
#include "store.h"

int cli_store_open(SettleHistory **h, const char *db)
{
    char why[256];
    int r = settle_history_open(h, db, 0, 0, why, sizeof(why));
    if (r < 0)
        fprintf(stderr, "settle: --db: %s: %s\n", db, why);
    return r == SETTLE_ERR_NOMEM ? EXIT_INTERNAL : r < 0 ? EXIT_OUTPUT : 0;
}

/* The absolute path when the file is there (or always), else NULL. */
static char *existing(const char *path, int always, int *nomem)
{
    if (!path || (!always && access(path, F_OK) != 0))
        return NULL;
    char *p = abs_path(path);
    *nomem |= !p;
    return p;
}

int cli_store_result(SettleHistory *h, const char *db, const char *json, const char *capture,
                     const char *result, const char *csv, const char *report,
                     const char *frames)
{
    int nomem = 0;
    char *v[5] = { existing(capture, 0, &nomem), existing(result, 0, &nomem),
                   existing(csv, 0, &nomem), existing(report, 1, &nomem),
                   existing(frames, 0, &nomem) };
    SettleHistoryPaths p = { v[0], v[1], v[2], v[3], v[4] };
    int r = nomem ? SETTLE_ERR_NOMEM : settle_history_add(h, json, strlen(json), &p, NULL);
    for (int i = 0; i < 5; i++)
        free(v[i]);
    if (r < 0)
        fprintf(stderr, "settle: --db: %s: %s\n", db,
                r == SETTLE_ERR_NOMEM ? "out of memory" : settle_history_error(h));
    return r == SETTLE_ERR_NOMEM ? EXIT_INTERNAL : r < 0 ? EXIT_OUTPUT : 0;
}
