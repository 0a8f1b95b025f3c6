/* SPDX-License-Identifier: BSD-2-Clause */
/* settle history: results into the store (add), and back out (list). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "inputs.h"
#include "results_in.h"
#include "store.h"
#include "settle/history.h"

void usage_history(FILE *f)
{
    fprintf(f,
            "usage: settle history add [OPTIONS] DB RESULT...\n"
            "       settle history list DB\n"
            "\n"
            "add: stores each result in the history store DB (a SQLite file, created\n"
            "when missing) with its labels, settings, version and the paths of its\n"
            "capture, CSV, report and filmstrip. RESULT is a result folder (settle\n"
            "analyze -o DIR), a result file or JSON Lines file (--json FILE), or\n"
            "another store. A result already stored (same input, size, mtime,\n"
            "settings, labels and version) is not stored twice. Several processes of\n"
            "one machine may add at once; never put DB on a network file system:\n"
            "machines write result folders and one 'history add' gathers them.\n"
            "  --report FILE     the HTML report these results are shown in\n"
            "  --frames DIR      where their filmstrips are (settle analyze --frames)\n"
            "  -q, --quiet       no summary line\n"
            "\n"
            "list: every stored result as JSON Lines on stdout, in the order of adding.\n"
            "\n"
            "Exit codes: 0 done   3 a RESULT could not be read (the others are stored)\n"
            "  4 DB cannot be opened or written   64 invalid command line\n");
}

typedef struct Adder {
    SettleHistory *h;
    const char *db, *report, *frames;
    char *report_abs, *frames_abs;
    const char *item;
    long added, known;
    int ret;
} Adder;

/* DIR/STEM-filmstrip.png of --frames: NAME-HASH for a batch, NAME alone. */
static char *filmstrip_of(const char *dir, const char *json, size_t len)
{
    cJSON *o = cJSON_ParseWithLength(json, len);
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
    char *found = NULL, *key = cJSON_IsString(in) ? input_key(in->valuestring) : NULL;
    char *stem = key ? result_stem(key) : NULL;
    for (int pass = 0; stem && pass < 2 && !found; pass++) {
        if (pass == 1) /* NAME alone: the stem without "-HASH" */
            stem[strlen(stem) - 9] = 0;
        size_t n = strlen(dir) + strlen(stem) + 16;
        char *p = malloc(n);
        if (p && (snprintf(p, n, "%s/%s-filmstrip.png", dir, stem), access(p, F_OK) == 0))
            found = p;
        else
            free(p);
    }
    free(stem);
    free(key);
    cJSON_Delete(o);
    return found;
}

static int add_one(const char *json, size_t len, const SettleHistoryPaths *p, const char *where,
                   void *user)
{
    Adder *a = user;
    SettleHistoryPaths q = *p;
    char *strip = !q.frames && a->frames_abs ? filmstrip_of(a->frames_abs, json, len) : NULL;
    if (strip)
        q.frames = strip;
    if (a->report_abs)
        q.report = a->report_abs;
    int added = 0, r = settle_history_add(a->h, json, len, &q, &added);
    free(strip);
    if (r == SETTLE_ERR_FORMAT) {
        int same = !strcmp(where, a->item);
        fprintf(stderr, "settle: %s%s%s: %s\n", a->item, same ? "" : ": ", same ? "" : where,
                settle_history_error(a->h));
        a->ret = EXIT_INPUT > a->ret ? EXIT_INPUT : a->ret;
        return 0;
    }
    if (r < 0) {
        fprintf(stderr, "settle: %s: %s\n", a->db, r == SETTLE_ERR_NOMEM ? "out of memory"
                                                   : settle_history_error(a->h));
        return r == SETTLE_ERR_NOMEM ? EXIT_INTERNAL : EXIT_OUTPUT;
    }
    added ? a->added++ : a->known++;
    return 0;
}

static int history_add(int argc, char **argv)
{
    enum { OPT_REPORT = 1000, OPT_FRAMES };
    static const struct option opts[] = {
        { "report", required_argument, NULL, OPT_REPORT },
        { "frames", required_argument, NULL, OPT_FRAMES },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    Adder a = { 0 };
    int quiet = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_REPORT: a.report = optarg; break;
        case OPT_FRAMES: a.frames = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': usage_history(stdout); return EXIT_OK;
        default: cli_bad_option("history", argv, opts, c); return EXIT_USAGE;
        }
    }
    if (argc - optind < 2) {
        fprintf(stderr, "settle: history add: expected DB RESULT...; see 'settle help history'\n");
        return EXIT_USAGE;
    }
    a.db = argv[optind];
    char why[256];
    if (settle_history_open(&a.h, a.db, 0, 0, why, sizeof(why)) < 0) {
        fprintf(stderr, "settle: %s: %s\n", a.db, why);
        return EXIT_OUTPUT;
    }
    int ret = EXIT_OK;
    if ((a.report && !(a.report_abs = abs_path(a.report))) ||
        (a.frames && !(a.frames_abs = abs_path(a.frames)))) {
        fprintf(stderr, "settle: out of memory\n");
        ret = EXIT_INTERNAL;
    }
    for (int i = optind + 1; i < argc && ret == EXIT_OK; i++) {
        char err[512];
        a.item = argv[i];
        int r = results_each(argv[i], add_one, &a, err, sizeof(err));
        if (r < 0) {
            fprintf(stderr, "settle: %s\n", err);
            a.ret = a.ret > EXIT_INPUT ? a.ret : EXIT_INPUT;
        } else if (r > 0)
            ret = r;
    }
    if (!quiet)
        fprintf(stderr, "settle: %s: %ld results added, %ld already stored, %lld in all\n",
                a.db, a.added, a.known, (long long)settle_history_count(a.h));
    settle_history_close(&a.h);
    free(a.report_abs);
    free(a.frames_abs);
    return ret ? ret : a.ret;
}

static int list_one(const char *json, size_t len, const SettleHistoryPaths *p, const char *where,
                    void *user)
{
    (void)p, (void)where, (void)user;
    if (fwrite(json, 1, len, stdout) != len || putchar('\n') == EOF)
        return EXIT_OUTPUT;
    return 0;
}

static int history_list(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "settle: history list: expected DB; see 'settle help history'\n");
        return EXIT_USAGE;
    }
    if (!is_sqlite_file(argv[1])) {
        fprintf(stderr, "settle: %s: not a history store (SQLite file)\n", argv[1]);
        return EXIT_INPUT;
    }
    char err[512];
    int r = results_each(argv[1], list_one, NULL, err, sizeof(err));
    if (r < 0)
        fprintf(stderr, "settle: %s\n", err);
    if (r == 0 && fflush(stdout) == EOF)
        r = EXIT_OUTPUT;
    if (r == EXIT_OUTPUT)
        fprintf(stderr, "settle: history list: cannot write: %s\n", strerror(errno));
    return r < 0 ? EXIT_INPUT : r;
}

int cmd_history(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage_history(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (!strcmp(argv[1], "add"))
        return history_add(argc - 1, argv + 1);
    if (!strcmp(argv[1], "list"))
        return history_list(argc - 1, argv + 1);
    fprintf(stderr, "settle: history: unknown subcommand '%s'; expected add or list\n", argv[1]);
    return EXIT_USAGE;
}
