/* SPDX-License-Identifier: BSD-2-Clause */
/* settle analyze --marks: the app's own start-up marks beside the seen time. */
#ifndef SETTLE_CLI_MARKS_H
#define SETTLE_CLI_MARKS_H

#include <getopt.h>
#include <stdio.h>

#include "settle/marks.h"
#include "settle/pictures.h"

#include "plot.h"

typedef struct CliMarks {
    const char **files;   /* --marks, in order */
    int nfiles;
    const char **regex;   /* --mark-regex NAME=REGEX */
    int nregex;
    SettleMarkClock zero_clock; /* --marks-zero STAMP, parsed */
    double zero;
    char *anchor;         /* --marks-anchor NAME[@SECONDS]: the name */
    double anchor_time;   /* its SECONDS, NaN for the analysis start */
    int run;              /* --mark-run N, -1 when not given */
    const char *csv;      /* --marks-csv FILE */
    SettleMarks *m;       /* the marks read (cli_marks_load) */
} CliMarks;

/* The long options, answered as first_id + their index; ended by a zeroed
 * entry (not included in CLI_MARKS_NOPTS). */
#define CLI_MARKS_NOPTS 6
extern const struct option cli_marks_options[CLI_MARKS_NOPTS + 1];

/* Room for argc values of every repeatable option. 0 or -1 (no memory). */
int cli_marks_init(CliMarks *cm, int argc);

/* Option `index` of cli_marks_options with its value. 0, or EXIT_USAGE after
 * printing the error. */
int cli_marks_option(CliMarks *cm, int index, const char *arg);

/* Checks the options against the rest of the command line (ninputs
 * captures, stdout_taken when --csv or --json writes to stdout) and reads
 * every --marks file. 0, EXIT_USAGE or EXIT_MARKS after printing why. */
int cli_marks_load(CliMarks *cm, size_t ninputs, int stdout_taken);

/* After the analysis of `input` on `ctx`: places the marks (the launch at
 * the result's start), attaches them to ctx for the JSON and writes
 * --marks-csv. Returns an exit code. */
int cli_marks_apply(CliMarks *cm, SettleContext *ctx, const SettleResult *r,
                    const char *input, FILE *err);

/* The summary: a line a mark, its time, frame and gap, or why it is not
 * placed. */
void cli_marks_print(const CliMarks *cm, const char *input, FILE *out);

/* The placed marks, for the plot's vertical lines. */
void cli_marks_plot(const CliMarks *cm, PlotInfo *pi);

/* For --report: a picture of the frame on screen at each placed mark, then
 * of the stable frame, each with its caption. 0 or a SETTLE_ERR_* code. */
int cli_marks_pictures(const CliMarks *cm, SettleContext *ctx, const SettleResult *r,
                       SettleReportFrame **out, int *nout);
void cli_marks_pictures_free(SettleReportFrame **v, int n);

void cli_marks_free(CliMarks *cm);

#endif
