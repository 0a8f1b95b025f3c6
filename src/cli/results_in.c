/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading results back from a store, a result folder or a file. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "results_in.h"

int is_sqlite_file(const char *path)
{
    char head[16];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t got = fread(head, 1, sizeof(head), f);
    fclose(f);
    return got == sizeof(head) && !memcmp(head, "SQLite format 3", 16);
}

/* Drops "." and empty components and folds ".." of an absolute path, in place. */
static void normalize(char *p)
{
    char *out = p, *s = p;
    while (*s) {
        while (*s == '/')
            s++;
        char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0)
            break;
        if (n == 1 && s[0] == '.') {
        } else if (n == 2 && s[0] == '.' && s[1] == '.') {
            while (out > p && *--out != '/')
                ;
        } else {
            *out++ = '/';
            memmove(out, s, n);
            out += n;
        }
        s += n;
    }
    if (out == p)
        *out++ = '/';
    *out = 0;
}

char *abs_path(const char *path)
{
    char cwd[4096] = "";
    if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
        return NULL;
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *p = malloc(n);
    if (!p)
        return NULL;
    snprintf(p, n, "%s/%s", cwd, path);
    normalize(p);
    return p;
}

char *rel_path(const char *from, const char *to)
{
    size_t common = 0, i = 0;
    /* the longest common prefix that ends at a component boundary */
    for (; from[i] && from[i] == to[i]; i++)
        if (from[i] == '/')
            common = i;
    if (!from[i] && (to[i] == '/' || !to[i]))
        common = i;
    size_t ups = 0;
    for (const char *s = from + common; *s; s++)
        ups += *s == '/';
    if (!strcmp(from, "/"))
        ups = 0, common = 0;
    const char *rest = to + common + (to[common] == '/');
    char *r = malloc(ups * 3 + strlen(rest) + 2);
    if (!r)
        return NULL;
    char *o = r;
    for (size_t k = 0; k < ups; k++)
        memcpy(o, "../", 3), o += 3;
    strcpy(o, *rest || ups ? rest : ".");
    return r;
}

/* path with its ".json" replaced by ext when that file exists, else NULL. */
static char *beside(const char *abs, const char *ext)
{
    size_t n = strlen(abs);
    if (n < 5 || strcmp(abs + n - 5, ".json"))
        return NULL;
    char *p = malloc(n + strlen(ext) + 1);
    if (!p)
        return NULL;
    memcpy(p, abs, n - 5);
    strcpy(p + n - 5, ext);
    if (access(p, F_OK) == 0)
        return p;
    /* a batch's outputs are NAME-HASH.*, one capture's pictures NAME-*.png */
    size_t stem = n - 5;
    if (ext[0] == '-' && stem > 9 && p[stem - 9] == '-' && strspn(p + stem - 8, "0123456789abcdef") >= 8) {
        memmove(p + stem - 9, p + stem, strlen(p + stem) + 1);
        if (access(p, F_OK) == 0)
            return p;
    }
    free(p);
    return NULL;
}

static char *capture_of(const cJSON *o)
{
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
    if (!cJSON_IsString(in) || !*in->valuestring || access(in->valuestring, F_OK) != 0)
        return NULL;
    return abs_path(in->valuestring);
}

/* One JSON object of a file: its paths, then the callback. */
static int give(const char *json, size_t len, const char *abs, int alone, const char *where,
                ResultFn fn, void *user)
{
    cJSON *o = cJSON_ParseWithLength(json, len);
    if (!o || !cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return -2;
    }
    SettleHistoryPaths p = { .result = abs };
    char *cap = capture_of(o), *csv = alone ? beside(abs, ".csv") : NULL;
    char *strip = alone ? beside(abs, "-filmstrip.png") : NULL;
    p.capture = cap, p.csv = csv, p.frames = strip;
    cJSON_Delete(o);
    int r = fn(json, len, &p, where, user);
    free(cap);
    free(csv);
    free(strip);
    return r;
}

static int each_in_file(const char *path, ResultFn fn, void *user, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = cli_read_file(path, &len), *abs = abs_path(path);
    int ret = 0;
    if (!text || !abs) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        ret = -1;
        goto end;
    }
    /* one object and nothing after it but blanks, or JSON Lines */
    cJSON *whole = strlen(text) == len ? cJSON_ParseWithOpts(text, NULL, 1) : NULL;
    int alone = whole && cJSON_IsObject(whole);
    cJSON_Delete(whole);
    if (alone) {
        ret = give(text, len, abs, 1, path, fn, user);
        goto end;
    }
    size_t line = 0;
    for (char *s = text; *s && !ret; line++) {
        char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        size_t k = strspn(s, " \t\r");
        if (k < n) {
            char where[64];
            snprintf(where, sizeof(where), "line %zu", line + 1);
            ret = give(s, n, abs, 0, where, fn, user);
        }
        if (ret == -2) {
            snprintf(err, errlen, "%s: line %zu: not a JSON object (a settle result)", path,
                     line + 1);
            ret = -1;
        }
        s += n + (e != NULL);
    }
    if (ret == 0 && line == 0) {
        snprintf(err, errlen, "%s: empty: no results", path);
        ret = -1;
    }
end:
    free(text);
    free(abs);
    return ret;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int each_in_dir(const char *dir, ResultFn fn, void *user, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot read: %s", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int ret = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 5, ".json") || de->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **g = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));
            if (!g)
                break;
            names = g;
        }
        size_t m = strlen(dir) + l + 2;
        if (!(names[n] = malloc(m)))
            break;
        snprintf(names[n++], m, "%s/%s", dir, de->d_name);
    }
    closedir(d);
    if (de) {
        snprintf(err, errlen, "%s: out of memory", dir);
        ret = -1;
    }
    if (names)
        qsort(names, n, sizeof(*names), cmp_name);
    for (size_t i = 0; i < n && !ret; i++)
        ret = each_in_file(names[i], fn, user, err, errlen);
    if (!ret && !n) {
        snprintf(err, errlen, "%s: no result files (*.json) in it", dir);
        ret = -1;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return ret;
}

typedef struct StoreWalk {
    ResultFn fn;
    void *user;
} StoreWalk;

static int store_cb(const SettleHistoryEntry *e, void *user)
{
    StoreWalk *w = user;
    char where[64];
    snprintf(where, sizeof(where), "#%lld", (long long)e->id);
    return w->fn(e->result, strlen(e->result), &e->paths, where, w->user);
}

int results_each(const char *item, ResultFn fn, void *user, char *err, size_t errlen)
{
    struct stat st;
    if (stat(item, &st) < 0) {
        snprintf(err, errlen, "%s: %s", item, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode))
        return each_in_dir(item, fn, user, err, errlen);
    if (!is_sqlite_file(item))
        return each_in_file(item, fn, user, err, errlen);
    SettleHistory *h = NULL;
    char why[256];
    if (settle_history_open(&h, item, SETTLE_HISTORY_READONLY, 0, why, sizeof(why)) < 0) {
        snprintf(err, errlen, "%s: %s", item, why);
        return -1;
    }
    StoreWalk w = { fn, user };
    int ret = settle_history_foreach(h, store_cb, &w);
    if (ret < 0) {
        snprintf(err, errlen, "%s: %s", item, settle_history_error(h));
        ret = -1;
    }
    settle_history_close(&h);
    return ret;
}
