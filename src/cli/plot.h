/* SPDX-License-Identifier: BSD-2-Clause */
/* Plots of per-frame CSVs, drawn by gnuplot (found on PATH). */
#ifndef SETTLE_CLI_PLOT_H
#define SETTLE_CLI_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "output.h"

/* Most marks drawn on a plot (the first ones placed). */
#define PLOT_MAX_MARKS 16

/* Most --region areas marked (SETTLE_MAX_REGIONS). */
#define PLOT_MAX_REGIONS 8

/* What the plot marks, from a result. */
typedef struct PlotInfo {
    const char *name;          /* title: the capture */
    const char *method;        /* "diff" or "entropy" */
    double diff_threshold;     /* pixels */
    double entropy_threshold;  /* bits */
    double start, stable, load; /* seconds; NaN when there is none */
    int nmarks;                /* the app's marks placed on the capture (--marks) */
    const char *mark_name[PLOT_MAX_MARKS];
    double mark_time[PLOT_MAX_MARKS]; /* seconds from the first frame */
    double decide;             /* the deciding change's time; NaN when there is none */
    int nregions;              /* --region areas */
    const char *region_name[PLOT_MAX_REGIONS];
    double region_time[PLOT_MAX_REGIONS]; /* each one's stable time; NaN when none */
} PlotInfo;

/* A gnuplot started ahead of its script (plot_warm_start): its start-up and
 * its first picture (the fonts, the PNG terminal) happen while the capture
 * is read, and the plot then only loads the script. */
typedef struct PlotWarm {
    int on;        /* started and not used yet */
    pid_t pid;
    int fd;        /* its standard input */
    char *errf;    /* its standard error */
    char *warm;    /* the picture it drew to warm up */
} PlotWarm;

/* Starts w's gnuplot; w->on stays 0 when it cannot (the plot then runs
 * gnuplot as usual). */
void plot_warm_start(PlotWarm *w);
/* Ends w's gnuplot when no plot used it, and removes its files. */
void plot_warm_stop(PlotWarm *w);

/* The message for a missing gnuplot. */
#define PLOT_NO_GNUPLOT "gnuplot not found on PATH; install it (apt-get install gnuplot-nox)"

/* 1 when an executable gnuplot is on PATH. */
int plot_have_gnuplot(void);

/* Fills `pi` from one JSON result; strings point into `store`, which the
 * caller frees with plot_info_free. Returns 0 or -1 (not a result). */
int plot_info_from_json(const char *json, PlotInfo *pi, void **store);
void plot_info_free(void **store);

/* Draws the per-frame CSV at `csv` into `out`, PNG or SVG as `out` ends in
 * .svg or not, written under a temporary name and renamed into place.
 * `script` is a gnuplot script file, NULL for the built-in one
 * (scripts/plot.gp). Returns 0, or -1 with a one-line reason in msg. */
int plot_draw(const PlotInfo *pi, const char *csv, const char *out, const char *script,
              char *msg, size_t msglen);

/* plot_draw, and when `out` is a PNG (not .svg) and png is not NULL, its
 * bytes in *png (malloc'ed, *len bytes), as plot_draw_png would draw them:
 * one gnuplot run for --plot and --report. *png NULL for an SVG. With
 * `pending` not NULL, a regular file is left written under its temporary
 * name (out_write_start) for the caller's out_commit, so that its fsync can
 * share a commit of the file system's journal with the files written after
 * it; `pending` is zeroed first, and whatever became of the file, calling
 * out_commit on it is right (0 when nothing is left to commit). */
int plot_draw_keep(const PlotInfo *pi, const char *csv, const char *out, const char *script,
                   uint8_t **png, size_t *len, PlotWarm *warm, OutFile *pending, char *msg,
                   size_t msglen);

/* The same into memory: *png (malloc'ed, *len bytes), a PNG. Both run the
 * script on `warm`'s gnuplot when it was started and not used yet (NULL:
 * a gnuplot of their own). */
int plot_draw_png(const PlotInfo *pi, const char *csv, const char *script, uint8_t **png,
                  size_t *len, PlotWarm *warm, char *msg, size_t msglen);

/* Runs gnuplot on the `vars` text (gnuplot commands that set the script's
 * variables) and the script (the file `script`, or NULL for the `builtin`
 * text), with `out` and `term` ("png", or "svg" when out ends in .svg) set,
 * writing `out` under a temporary name renamed into place. Returns 0, or -1
 * with a one-line reason in msg (PLOT_NO_GNUPLOT when it is missing). */
int plot_render(const char *vars, const char *builtin, const char *script, const char *out,
                char *msg, size_t msglen);

/* Writes `s` as a gnuplot string. */
void plot_put_string(FILE *f, const char *s);


/* A new empty file in $TMPDIR (or /tmp) named settle-TAG-XXXXXX; its path
 * (malloc'ed) or NULL with errno set. */
char *plot_temp_file(const char *tag);

#endif
