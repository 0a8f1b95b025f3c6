/* SPDX-License-Identifier: BSD-2-Clause */
/* settle plot: a per-frame CSV drawn with its result's thresholds, start and
 * stable frame (the drawing itself is plot.c's). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "cmd.h"
#include "output.h"
#include "plot.h"

void usage_plot(FILE *f)
{
    fprintf(f,
            "usage: settle plot [OPTIONS] RESULT.csv\n"
            "\n"
            "Draws the per-frame CSV of 'settle analyze --csv' (or -o DIR --per-frame):\n"
            "changed pixels (log scale) and entropy delta over time, each with its\n"
            "threshold, the start and the stable frame marked with their times.\n"
            "The thresholds, start and stable frame come from the JSON result written\n"
            "beside the CSV: RESULT.json (as -o DIR --per-frame writes them), or --json.\n"
            "Drawn by gnuplot, found on PATH (apt-get install gnuplot-nox).\n"
            "\n"
            "  -o, --output FILE   the picture: PNG, or SVG when FILE ends in .svg\n"
            "                      (default RESULT.png beside the CSV)\n"
            "  --json FILE         the JSON result (one a line, as --json writes them; with\n"
            "                      several, the one whose capture is named like the CSV)\n"
            "  --plot-script FILE  a gnuplot script to use instead of the built-in one\n"
            "                      (scripts/plot.gp: copy it and restyle it)\n"
            "\n"
            "Exit codes: 0 drawn, 3 the CSV or the JSON cannot be read, 4 the plot\n"
            "could not be drawn or written (gnuplot missing or failing), 64 invalid\n"
            "command line.\n");
}

static char *swap_ext(const char *path, const char *ext)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    size_t n = dot && (!slash || dot > slash + 1) ? (size_t)(dot - path) : strlen(path);
    char *p = malloc(n + strlen(ext) + 1);
    if (p) {
        memcpy(p, path, n);
        strcpy(p + n, ext);
    }
    return p;
}

/* The base name without its extension, in a static buffer. */
static const char *stem_of(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(buf, len, "%s", b);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf)
        *dot = 0;
    return buf;
}

/* The line of `text` (JSON Lines) that is the result for `csv`. */
static char *pick_result(char *text, const char *csv, const char *jpath)
{
    char want[512], have[512];
    stem_of(csv, want, sizeof(want));
    int lines = 0;
    char *only = NULL, *match = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!*line || strspn(line, " \t\r") == strlen(line))
            continue;
        lines++;
        only = line;
        cJSON *o = cJSON_Parse(line);
        const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
        /* -o DIR names results NAME-HASH: the capture's name and 9 characters */
        if (cJSON_IsString(in)) {
            stem_of(in->valuestring, have, sizeof(have));
            size_t hl = strlen(have), wl = strlen(want);
            if (!strcmp(have, want) ||
                (wl == hl + 9 && !strncmp(want, have, hl) && want[hl] == '-'))
                match = match ? match : line;
        }
        cJSON_Delete(o);
    }
    if (lines == 1)
        return only;
    if (!lines)
        fprintf(stderr, "settle: plot: %s: no result in it\n", jpath);
    else if (!match)
        fprintf(stderr, "settle: plot: %s: holds %d results, none for a capture named like "
                        "%s; give its result with --json FILE\n", jpath, lines, csv);
    return match;
}

int cmd_plot(int argc, char **argv)
{
    const char *out = NULL, *json = NULL, *script = NULL;
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "json", required_argument, NULL, 1000 },
        { "plot-script", required_argument, NULL, 1001 },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 1000: json = optarg; break;
        case 1001: script = optarg; break;
        case 'h': usage_plot(stdout); return EXIT_OK;
        default: cli_bad_option("plot", argv, longopts, c); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "settle: plot: expected one per-frame CSV; see 'settle help plot'\n");
        return EXIT_USAGE;
    }
    const char *csv = argv[optind];
    int ret = EXIT_OK;
    char *jpath = json ? strdup(json) : swap_ext(csv, ".json");
    char *opath = out ? strdup(out) : swap_ext(csv, ".png");
    char *text = NULL;
    void *store = NULL;
    if (!jpath || !opath) {
        fprintf(stderr, "settle: out of memory\n");
        ret = EXIT_INTERNAL;
        goto end;
    }
    if (script && access(script, R_OK)) {
        fprintf(stderr, "settle: --plot-script: %s: %s\n", script, strerror(errno));
        ret = EXIT_USAGE;
        goto end;
    }
    size_t len;
    char *head = cli_read_file(csv, &len);
    if (!head) {
        fprintf(stderr, "settle: plot: %s: %s\n", csv, strerror(errno));
        ret = EXIT_INPUT;
        goto end;
    }
    int is_csv = !strncmp(head, "frame,time,diff_pixels,entropy,entropy_delta,", 45);
    free(head);
    if (!is_csv) {
        fprintf(stderr, "settle: plot: %s: not a per-frame CSV of settle\n", csv);
        ret = EXIT_INPUT;
        goto end;
    }
    text = cli_read_file(jpath, NULL);
    if (!text) {
        if (json)
            fprintf(stderr, "settle: plot: %s: %s\n", jpath, strerror(errno));
        else
            fprintf(stderr, "settle: plot: %s: no result beside it (%s: %s); give it with "
                            "--json FILE\n", csv, jpath, strerror(errno));
        ret = EXIT_INPUT;
        goto end;
    }
    char *line = pick_result(text, csv, jpath);
    if (!line) {
        ret = EXIT_INPUT;
        goto end;
    }
    PlotInfo pi;
    if (plot_info_from_json(line, &pi, &store) < 0) {
        fprintf(stderr, "settle: plot: %s: not a settle result\n", jpath);
        ret = EXIT_INPUT;
        goto end;
    }
    char msg[512];
    if (plot_draw(&pi, csv, opath, script, msg, sizeof(msg)) < 0) {
        fprintf(stderr, "settle: plot: %s: %s\n", opath, msg);
        ret = EXIT_OUTPUT;
    }
end:
    plot_info_free(&store);
    free(text);
    free(jpath);
    free(opath);
    return ret;
}
