/* SPDX-License-Identifier: BSD-2-Clause */
/* The history store: results across nights in one SQLite file (WAL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "settle/history.h"

struct SettleHistory {
    sqlite3 *db;
    int schema;
    char err[256];
};

/* Each step takes the schema from version i to i + 1; they only ever grow.
 * Version 2 keeps the labels also one row per key, so that a store can be
 * queried by label with SQL alone, and where the video and filmstrip are. */
static const char *const migrations[SETTLE_HISTORY_SCHEMA] = {
    "CREATE TABLE results ("
    " id INTEGER PRIMARY KEY,"
    " identity TEXT NOT NULL UNIQUE,"
    " input TEXT NOT NULL,"
    " status TEXT,"
    " labels TEXT NOT NULL,"
    " settings TEXT,"
    " version TEXT,"
    " result TEXT NOT NULL,"
    " result_path TEXT,"
    " csv_path TEXT,"
    " report_path TEXT,"
    " added TEXT NOT NULL DEFAULT (datetime('now')));",

    "ALTER TABLE results ADD COLUMN frames_path TEXT;"
    "ALTER TABLE results ADD COLUMN capture_path TEXT;"
    "CREATE TABLE labels ("
    " result_id INTEGER NOT NULL REFERENCES results(id),"
    " key TEXT NOT NULL,"
    " value TEXT NOT NULL,"
    " PRIMARY KEY (result_id, key)) WITHOUT ROWID;"
    "CREATE INDEX labels_by_value ON labels(key, value);"
    "INSERT INTO labels SELECT r.id, j.key,"
    " CASE j.type WHEN 'text' THEN j.value ELSE CAST(COALESCE(j.atom, j.value) AS TEXT) END"
    " FROM results r, json_each(r.labels) j;",
};

static int fail(SettleHistory *h, int ret, const char *what)
{
    snprintf(h->err, sizeof(h->err), "%s: %s", what, sqlite3_errmsg(h->db));
    return ret;
}

static int user_version(SettleHistory *h, int *v)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h->db, "PRAGMA user_version", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *v = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
        snprintf(h->err, sizeof(h->err), "not a SQLite database");
        return SETTLE_ERR_FORMAT;
    }
    return rc == SQLITE_OK ? 0 : fail(h, SETTLE_ERR_IO, "cannot read the schema version");
}

/* 1 when the file has tables (it is someone's database), 0 when empty. */
static int has_tables(SettleHistory *h)
{
    sqlite3_stmt *st = NULL;
    int any = 0;
    if (sqlite3_prepare_v2(h->db, "SELECT 1 FROM sqlite_master LIMIT 1", -1, &st, NULL) ==
        SQLITE_OK)
        any = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return any;
}

static int migrate(SettleHistory *h)
{
    if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return fail(h, SETTLE_ERR_IO, "cannot lock the store");
    int v, ret = user_version(h, &v); /* again: another process may have migrated it */
    if (ret < 0)
        goto fail;
    if (v == 0 && has_tables(h)) {
        snprintf(h->err, sizeof(h->err), "a SQLite database, but not a settle history");
        ret = SETTLE_ERR_FORMAT;
        goto fail;
    }
    for (; v < SETTLE_HISTORY_SCHEMA; v++) {
        char pragma[64];
        snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v + 1);
        if (sqlite3_exec(h->db, migrations[v], NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(h->db, pragma, NULL, NULL, NULL) != SQLITE_OK) {
            ret = fail(h, SETTLE_ERR_IO, "cannot migrate the schema");
            goto fail;
        }
    }
    if (sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        ret = fail(h, SETTLE_ERR_IO, "cannot migrate the schema");
        goto fail;
    }
    h->schema = v;
    return 0;
fail:
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return ret;
}

/* WAL lets readers work beside one writer; switching needs the file to
 * ourselves, so only when it is not WAL already. */
static int use_wal(SettleHistory *h, int busy_ms)
{
    sqlite3_stmt *st = NULL;
    int wal = 0;
    if (sqlite3_prepare_v2(h->db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        wal = !sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    if (wal)
        return 0;
    /* the switch does not wait on the busy timeout: retry while another
     * process holds the file (creating the same store at the same time) */
    int rc = SQLITE_BUSY;
    for (int waited = 0; rc == SQLITE_BUSY && waited <= busy_ms; waited += 10) {
        if (waited)
            sqlite3_sleep(10);
        st = NULL;
        rc = sqlite3_prepare_v2(h->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if (rc == SQLITE_NOTADB) {
        snprintf(h->err, sizeof(h->err), "not a SQLite database");
        return SETTLE_ERR_FORMAT;
    }
    return rc == SQLITE_ROW ? 0 : fail(h, SETTLE_ERR_IO, "cannot switch to WAL");
}

static int open_store(SettleHistory *h, const char *path, int flags, int busy_ms)
{
    int ro = flags & SETTLE_HISTORY_READONLY;
    int oflags = ro ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &h->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return h->db ? fail(h, SETTLE_ERR_IO, "cannot open")
                     : (snprintf(h->err, sizeof(h->err), "out of memory"), SETTLE_ERR_NOMEM);
    busy_ms = busy_ms > 0 ? busy_ms : 60000;
    sqlite3_busy_timeout(h->db, busy_ms);
    sqlite3_extended_result_codes(h->db, 0);
    int ret = ro ? 0 : use_wal(h, busy_ms);
    if (ret < 0)
        return ret;
    int v;
    if ((ret = user_version(h, &v)) < 0)
        return ret;
    if (v > SETTLE_HISTORY_SCHEMA) {
        snprintf(h->err, sizeof(h->err), "schema version %d is newer than this settle's (%d)",
                 v, SETTLE_HISTORY_SCHEMA);
        return SETTLE_ERR_FORMAT;
    }
    if (ro && v < SETTLE_HISTORY_SCHEMA) {
        if (v)
            snprintf(h->err, sizeof(h->err), "schema version %d needs migrating: add to it "
                     "once (settle history add)", v);
        else
            snprintf(h->err, sizeof(h->err), "empty, or not a settle history");
        return SETTLE_ERR_FORMAT;
    }
    h->schema = v;
    return ro || v == SETTLE_HISTORY_SCHEMA ? 0 : migrate(h);
}

int settle_history_open(SettleHistory **out, const char *path, int flags, int busy_ms,
                        char *errmsg, size_t errlen)
{
    if (!out)
        return SETTLE_ERR_INVAL;
    *out = NULL;
    if (!path || !*path)
        return SETTLE_ERR_INVAL;
    SettleHistory *h = calloc(1, sizeof(*h));
    if (!h) {
        if (errmsg && errlen)
            snprintf(errmsg, errlen, "out of memory");
        return SETTLE_ERR_NOMEM;
    }
    int ret = open_store(h, path, flags, busy_ms);
    if (ret < 0) {
        if (errmsg && errlen)
            snprintf(errmsg, errlen, "%s", h->err);
        settle_history_close(&h);
        return ret;
    }
    *out = h;
    return 0;
}

void settle_history_close(SettleHistory **h)
{
    if (!h || !*h)
        return;
    sqlite3_close((*h)->db);
    free(*h);
    *h = NULL;
}

const char *settle_history_error(const SettleHistory *h)
{
    return h ? h->err : "no store";
}

int settle_history_schema(const SettleHistory *h)
{
    return h ? h->schema : SETTLE_ERR_INVAL;
}

/* The compact JSON of an item, "null" when absent. */
static char *text_of(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    return it ? cJSON_PrintUnformatted(it) : strdup("null");
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static int add_labels(SettleHistory *h, sqlite3_int64 id, const cJSON *labels)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h->db, "INSERT OR REPLACE INTO labels VALUES (?, ?, ?)", -1,
                                &st, NULL);
    const cJSON *l, *obj = cJSON_IsObject(labels) ? labels : NULL;
    cJSON_ArrayForEach(l, obj) {
        if (rc != SQLITE_OK)
            break;
        char *v = cJSON_IsString(l) ? NULL : cJSON_PrintUnformatted(l);
        if (!cJSON_IsString(l) && !v) {
            sqlite3_finalize(st);
            return SETTLE_ERR_NOMEM;
        }
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, l->string, -1, SQLITE_TRANSIENT);
        bind_text(st, 3, v ? v : l->valuestring);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        free(v);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : fail(h, SETTLE_ERR_IO, "cannot store the labels");
}

/* Inside the transaction: the row of this identity, new or filled in. */
static int store(SettleHistory *h, const cJSON *o, const char *json, size_t len,
                 const SettleHistoryPaths *p, char *const *t, int *added)
{
    static const char *const sql =
        "INSERT INTO results (identity, input, status, labels, settings, version, result,"
        " result_path, csv_path, report_path, frames_path, capture_path)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT (identity) DO UPDATE SET"
        " result_path = COALESCE(result_path, excluded.result_path),"
        " csv_path = COALESCE(csv_path, excluded.csv_path),"
        " report_path = COALESCE(report_path, excluded.report_path),"
        " frames_path = COALESCE(frames_path, excluded.frames_path),"
        " capture_path = COALESCE(capture_path, excluded.capture_path)"
        " RETURNING id";
    sqlite3_stmt *st = NULL;
    sqlite3_int64 last = sqlite3_last_insert_rowid(h->db);
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(h, SETTLE_ERR_IO, "cannot store the result");
    const cJSON *st_item = cJSON_GetObjectItemCaseSensitive(o, "status");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(o, "settle_version");
    bind_text(st, 1, t[0]);
    bind_text(st, 2, cJSON_GetObjectItemCaseSensitive(o, "input")->valuestring);
    bind_text(st, 3, cJSON_IsString(st_item) ? st_item->valuestring : NULL);
    bind_text(st, 4, t[1]);
    bind_text(st, 5, t[2]);
    bind_text(st, 6, cJSON_IsString(ver) ? ver->valuestring : NULL);
    sqlite3_bind_text(st, 7, json, (int)len, SQLITE_TRANSIENT);
    bind_text(st, 8, p ? p->result : NULL);
    bind_text(st, 9, p ? p->csv : NULL);
    bind_text(st, 10, p ? p->report : NULL);
    bind_text(st, 11, p ? p->frames : NULL);
    bind_text(st, 12, p ? p->capture : NULL);
    int rc = sqlite3_step(st);
    sqlite3_int64 id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return fail(h, SETTLE_ERR_IO, "cannot store the result");
    /* a new row moves the last rowid to it; an update of an old one does not */
    *added = sqlite3_last_insert_rowid(h->db) == id && id != last;
    return *added ? add_labels(h, id, cJSON_GetObjectItemCaseSensitive(o, "labels")) : 0;
}

int settle_history_add(SettleHistory *h, const char *json, size_t len,
                       const SettleHistoryPaths *paths, int *added)
{
    if (!h || !json || len > 0x7fffffff)
        return SETTLE_ERR_INVAL;
    int dummy, ret = SETTLE_ERR_NOMEM;
    added = added ? added : &dummy;
    while (len && strchr(" \t\r\n", json[len - 1]))
        len--; /* stored as one line, whatever ended it */
    *added = 0;
    cJSON *o = cJSON_ParseWithLength(json, len);
    cJSON *id = cJSON_CreateArray();
    char *t[3] = { NULL, NULL, NULL }; /* identity, labels, settings */
    if (!o || !cJSON_IsObject(o) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "input"))) {
        snprintf(h->err, sizeof(h->err), "not a settle result (a JSON object with \"input\")");
        ret = SETTLE_ERR_FORMAT;
        goto end;
    }
    static const char *const keys[] = { "input", "input_size", "input_mtime", "settings",
                                        "labels", "settle_version" };
    for (size_t i = 0; id && i < sizeof(keys) / sizeof(*keys); i++) {
        cJSON *it = cJSON_GetObjectItemCaseSensitive(o, keys[i]);
        cJSON *copy = it ? cJSON_Duplicate(it, 1) : cJSON_CreateNull();
        if (!copy || !cJSON_AddItemToArray(id, copy)) {
            cJSON_Delete(copy);
            goto end;
        }
    }
    if (!id || !(t[0] = cJSON_PrintUnformatted(id)))
        goto end;
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "labels");
    t[1] = cJSON_IsObject(labels) ? cJSON_PrintUnformatted(labels) : strdup("{}");
    t[2] = text_of(o, "settings");
    if (!t[1] || !t[2])
        goto end;
    if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        ret = fail(h, SETTLE_ERR_IO, "cannot lock the store");
        goto end;
    }
    ret = store(h, o, json, len, paths, t, added);
    if (ret == 0 && sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        ret = fail(h, SETTLE_ERR_IO, "cannot commit");
    if (ret < 0) {
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        *added = 0;
    }
end:
    for (int i = 0; i < 3; i++)
        free(t[i]);
    cJSON_Delete(id);
    cJSON_Delete(o);
    return ret;
}

int settle_history_foreach(SettleHistory *h, int (*cb)(const SettleHistoryEntry *e, void *user),
                           void *user)
{
    if (!h || !cb)
        return SETTLE_ERR_INVAL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h->db,
                           "SELECT id, result, added, result_path, csv_path, report_path,"
                           " frames_path, capture_path FROM results ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return fail(h, SETTLE_ERR_IO, "cannot read the store");
    int rc, ret = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        SettleHistoryEntry e = {
            .id = sqlite3_column_int64(st, 0),
            .result = (const char *)sqlite3_column_text(st, 1),
            .added = (const char *)sqlite3_column_text(st, 2),
            .paths = { (const char *)sqlite3_column_text(st, 7),
                       (const char *)sqlite3_column_text(st, 3),
                       (const char *)sqlite3_column_text(st, 4),
                       (const char *)sqlite3_column_text(st, 5),
                       (const char *)sqlite3_column_text(st, 6) },
        };
        if (!e.result) {
            ret = fail(h, SETTLE_ERR_NOMEM, "cannot read the store");
            break;
        }
        if ((ret = cb(&e, user)) != 0)
            break;
    }
    if (!ret && rc != SQLITE_DONE)
        ret = fail(h, SETTLE_ERR_IO, "cannot read the store");
    sqlite3_finalize(st);
    return ret;
}

int64_t settle_history_count(SettleHistory *h)
{
    if (!h)
        return SETTLE_ERR_INVAL;
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_prepare_v2(h->db, "SELECT count(*) FROM results", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n < 0 ? fail(h, SETTLE_ERR_IO, "cannot count") : n;
}
