/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * settle history: a store of results across nights, one SQLite file.
 *
 *     SettleHistory *h;
 *     if (settle_history_open(&h, "nightly.db", 0) == 0) {
 *         SettleHistoryPaths p = { .result = "out/startup-1f0c3a9e.json" };
 *         int added;
 *         settle_history_add(h, json, len, &p, &added);   // one result JSON object
 *         settle_history_close(&h);
 *     }
 *
 * The file is in WAL mode with a busy timeout, so that several processes of
 * one machine may add to it at once; each add is one transaction. SQLite's
 * locking does not hold on network file systems (NFS, SMB): machines of a
 * lab write result folders and one process adds them to the store.
 *
 * The schema carries its version in PRAGMA user_version; opening a store of
 * an older version migrates it in one transaction, a newer one is refused.
 *
 * A handle is used by one thread at a time.
 */
#ifndef SETTLE_HISTORY_H
#define SETTLE_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "settle/settle.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The schema version this library writes (PRAGMA user_version). */
#define SETTLE_HISTORY_SCHEMA 2

/* Open the store read-only: no creation, no migration, no writes. */
#define SETTLE_HISTORY_READONLY 1

typedef struct SettleHistory SettleHistory;

/* Opens (and unless read-only, creates or migrates) the store at path, waiting
 * up to busy_ms milliseconds (0 = 60000) whenever another process holds the
 * lock. Returns 0 and sets *h; else *h is NULL and the return is
 * SETTLE_ERR_IO (cannot open, create or lock the file; busy too long),
 * SETTLE_ERR_FORMAT (not a SQLite file, or a schema newer than
 * SETTLE_HISTORY_SCHEMA, or read-only and older), SETTLE_ERR_INVAL or
 * SETTLE_ERR_NOMEM. When errmsg is given, a one-line reason is written there. */
SETTLE_API int settle_history_open(SettleHistory **h, const char *path, int flags, int busy_ms,
                                   char *errmsg, size_t errlen);

/* Closes the store and sets *h to NULL. NULL or *h NULL: nothing. */
SETTLE_API void settle_history_close(SettleHistory **h);

/* The reason of the last failure of a call on h (SQLite's message or ours),
 * valid until the next call. Never NULL. */
SETTLE_API const char *settle_history_error(const SettleHistory *h);

/* The schema version of the open store. */
SETTLE_API int settle_history_schema(const SettleHistory *h);

/* Where the outputs of one result are; each may be NULL (not written). The
 * strings are copied. */
typedef struct SettleHistoryPaths {
    const char *capture; /* the video, as the program could resolve "input" */
    const char *result;  /* the result JSON file (or JSON Lines file) it came from */
    const char *csv;     /* its per-frame CSV */
    const char *report;  /* the HTML report that shows it */
    const char *frames;  /* its filmstrip PNG */
} SettleHistoryPaths;

/* Stores one result: `len` bytes of one JSON object as settle analyze writes
 * it (--json line or -o file). Its identity is its "input", "input_size",
 * "input_mtime", "settings", "labels" and "settle_version": a result of the
 * same identity already stored is left as it is, and *added (may be NULL) is
 * 0 (paths it lacks are filled in from `paths`); else 1. The labels are stored as given ("labels": an object of strings;
 * other values as their JSON text). Returns 0, SETTLE_ERR_FORMAT (not an
 * object with a string "input"), SETTLE_ERR_IO (database error, see
 * settle_history_error), SETTLE_ERR_INVAL or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_history_add(SettleHistory *h, const char *json, size_t len,
                                  const SettleHistoryPaths *paths, int *added);

/* One stored result as settle_history_foreach gives it. Strings are owned by
 * the store and valid during the callback only; paths are NULL when unknown. */
typedef struct SettleHistoryEntry {
    int64_t id;           /* 1, 2, ... in the order of adding */
    const char *result;   /* the result JSON object as added */
    const char *added;    /* UTC time of adding, "YYYY-MM-DD HH:MM:SS" */
    SettleHistoryPaths paths;
} SettleHistoryEntry;

/* Calls cb for every stored result in the order of adding. A non-zero return
 * of cb stops the walk and is returned. Else returns 0 or SETTLE_ERR_IO. */
SETTLE_API int settle_history_foreach(SettleHistory *h,
                                      int (*cb)(const SettleHistoryEntry *e, void *user),
                                      void *user);

/* Number of stored results, or a negative error. */
SETTLE_API int64_t settle_history_count(SettleHistory *h);

#ifdef __cplusplus
}
#endif

#endif /* SETTLE_HISTORY_H */
