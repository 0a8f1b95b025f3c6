/* SPDX-License-Identifier: BSD-2-Clause */
/* settle analyze: one capture or a batch, in parallel, into a directory. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settle/history.h"
#include "settle/pictures.h"

#include "cli.h"
#include "cmd.h"
#include "explain.h"
#include "inputs.h"
#include "marks.h"
#include "output.h"
#include "plot.h"
#include "progress.h"
#include "store.h"

void usage_analyze(FILE *f)
{
    fprintf(f,
            "usage: settle analyze [OPTIONS] CAPTURE...\n"
            "\n"
            "Measures every frame of each capture and reports when the screen became stable:\n"
            "  CAPTURE: stable at T s (frame N of M), load time L s [METHOD]\n"
            "\n"
            "Outputs:\n"
            "  --csv FILE        per-frame measures as CSV ('-' = stdout); with several\n"
            "                    captures FILE must contain %%n (the capture's name) or be '-'\n"
            "  --json FILE       one JSON summary a line per capture ('-' = stdout)\n"
            "  -o, --output-dir DIR\n"
            "                    one result per capture: DIR/NAME-HASH.json, where NAME is\n"
            "                    the capture's base name and HASH 8 hex digits of its path\n"
            "  --per-frame       with -o, also DIR/NAME-HASH.csv (the per-frame CSV)\n"
            "  --skip-existing   with -o, leave a capture whose result is current: same\n"
            "                    input path, size and mtime, settings, labels, version\n"
            "  --label KEY=VALUE copied into every result's \"labels\" (repeatable)\n"
            "  --plot FILE       the per-frame curves drawn by gnuplot: PNG, or SVG when\n"
            "                    FILE ends in .svg; with several captures FILE must\n"
            "                    contain %%n\n"
            "  --plot-script FILE\n"
            "                    a gnuplot script instead of the built-in scripts/plot.gp\n"
            "  --frames DIR      PNGs of the start, stable, first- and last-change frames\n"
            "                    and a filmstrip: DIR/NAME-start.png ... NAME-filmstrip.png\n"
            "                    (NAME-HASH with several captures)\n"
            "  --report FILE     one self-contained HTML page: summary, plot, filmstrip and\n"
            "                    settings of every capture\n"
            "  --db DB           also store each result in the history store DB with\n"
            "                    the paths of its outputs (see 'settle help history')\n"
            "  -q, --quiet       no summary lines, no progress line\n"
            "  -v, --verbose     more messages, including the decoder's\n"
            "  --strict          exit 1 when an answer carries a warning (little quiet\n"
            "                    before the recording ends, load time 0, no start)\n"
            "\n"
            "The app's own start-up marks, beside the seen time (doc/marks.md):\n"
            "  --marks FILE      marks to put on the capture's timeline (repeatable): an adb\n"
            "                    logcat (Displayed, Fully drawn, gb_marker_*), am start -W\n"
            "                    output, a Macrobenchmark *-benchmarkData.json, a CSV\n"
            "                    time,name on the capture's clock; recognised from the\n"
            "                    content. Each mark is reported with its time, frame and\n"
            "                    gap (stable time - mark time) in the summary, the JSON\n"
            "                    (\"marks\"), the plot and the report. One capture only\n"
            "  --mark-regex NAME=REGEX\n"
            "                    also a mark NAME at each line REGEX (POSIX extended)\n"
            "                    matches; with a group, the group is a duration from the\n"
            "                    launch (+1s234ms, 797ms) (repeatable)\n"
            "  --marks-zero STAMP\n"
            "                    the log's time at the capture's first frame, in the log's\n"
            "                    own form (01-23 12:34:56.789, 1706012096.789, 12345.678):\n"
            "                    places marks that have only a time stamp\n"
            "  --marks-anchor NAME[@SECONDS]\n"
            "                    places stamped marks against the mark NAME, an event also\n"
            "                    seen in the video at SECONDS (default: the analysis start)\n"
            "  --mark-run N      the Macrobenchmark iteration (from 0) this capture recorded\n"
            "  --marks-csv FILE  the marks as CSV: name,time,frame,gap,clock,value,placed_by,\n"
            "                    source,reason ('-' = stdout)\n"
            "\n"
            "Batches:\n"
            "  --files-from FILE captures listed in FILE, one a line or NUL-separated\n"
            "                    ('-' = stdin), after those on the command line\n"
            "  -j, --jobs N      captures analysed in parallel (default: the cores)\n"
            "  --shard K/N       analyse only share K of N (1 <= K <= N) by a hash of\n"
            "                    each path as given: N machines with K = 1..N cover\n"
            "                    every capture exactly once\n"
            "\n"
            "Analysis:\n");
    for (const SettleOption *o = settle_options(); o->name; o++) {
        char head[96];
        snprintf(head, sizeof(head), "--%s %s", o->name, o->arg);
        if (strlen(head) > 28)
            fprintf(f, "  %s\n  %-28s %s (default %s)\n", head, "", o->help, o->dflt);
        else
            fprintf(f, "  %-28s %s (default %s)\n", head, o->help, o->dflt);
    }
    fprintf(f,
            "\n"
            "Exit codes (with several captures the highest applies):\n"
            "  0 stable frame found   1 no stable frame or no start found\n"
            "  2 partial: capture damaged or cut short, result marked partial\n"
            "  3 capture could not be analysed   4 result could not be written\n"
            "    (also --plot without gnuplot; --report then shows a note instead)\n"
            "  64 invalid command line   65 a --marks file unreadable or malformed\n"
            "  70 internal error   130 interrupted\n");
}

/* One capture of the batch and what it has to say, kept until its turn. */
typedef struct Job {
    const char *input; /* as given */
    char *stem;        /* result name in -o DIR, without extension */
    int done, code;
    char *out, *err, *json, *csv; /* summary, messages, JSON line, CSV for stdout */
    /* for --report: the JSON line, the plot and the filmstrip (PNG bytes) */
    char *rjson, *plot_note;
    uint8_t *plot_png, *strip_png;
    size_t plot_len, strip_len;
    SettleReportFrame *mark_pics; /* --report with --marks: the frames at the marks */
    int nmark_pics;
    uint8_t *answer_png; /* --report: the answer outlined (settle_outline_answer) */
    size_t answer_len;
    char *answer_caption;
    /* the last capture's --plot, written and left to run_batch's end to sync
     * and rename with the report and the JSON (plot_draw_keep's pending) */
    OutFile plot_out;
    char *plot_name;
} Job;

typedef struct Batch {
    SettleSettings s;
    const char *csv, *json, *dir;
    const char *plot, *plot_script, *frames, *report, *db;
    SettleHistory *hist;
    int no_gnuplot_said;
    int per_frame, skip_existing, quiet, verbose, strict;
    char **labels;
    int nlabels;
    FILE *summary;
    OutFile jout;
    CliMarks marks;

    Job *jobs;
    size_t n, next, emitted;
    pthread_mutex_t lock;
    int ret;
} Batch;

typedef struct Worker {
    Batch *b;
    int id;
    FILE *err; /* the current capture's messages */
    pthread_t thread;
    int started, ret;
    Progress progress;
    PlotWarm warm;     /* --plot, --report: gnuplot started with the analysis */
} Worker;

static int worse(int a, int b)
{
    return a > b ? a : b;
}

static void log_cb(void *opaque, SettleLogLevel level, const char *msg)
{
    Worker *w = opaque;
    FILE *f = w && w->err ? w->err : stderr;
    fprintf(f, "settle: %s%s\n", level == SETTLE_LOG_WARNING ? "warning: " : "", msg);
}

static void fmt_time(char *buf, size_t n, double t)
{
    if (isfinite(t))
        snprintf(buf, n, "%.3f s", t);
    else
        snprintf(buf, n, "-");
}

/* The capture's name for %n: its base name without the extension. */
static char *csv_name(const char *pattern, const char *input)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t blen = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        blen = (size_t)(dot - base);
    size_t cap = strlen(pattern) + 1;
    for (const char *p = pattern; (p = strstr(p, "%n")); p += 2)
        cap += blen;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    char *w = out;
    for (const char *p = pattern; *p;) {
        if (p[0] == '%' && p[1] == 'n') {
            memcpy(w, base, blen);
            w += blen;
            p += 2;
        } else {
            *w++ = *p++;
        }
    }
    *w = 0;
    return out;
}

/* Writes a result file through a temporary name. */
static int write_file(SettleContext *ctx, const char *path, int csv, FILE *err)
{
    OutFile o;
    if (out_open(&o, path) < 0) {
        fprintf(err, "settle: -o: %s: %s\n", path, strerror(errno));
        return EXIT_OUTPUT;
    }
    int r = csv ? settle_write_csv(ctx, o.f) : settle_write_json(ctx, o.f);
    if (r < 0) {
        out_abort(&o);
        fprintf(err, "settle: -o: %s: out of memory\n", path);
        return EXIT_OUTPUT;
    }
    if (out_commit(&o) < 0) {
        fprintf(err, "settle: -o: %s: %s\n", path, strerror(errno ? errno : EIO));
        return EXIT_OUTPUT;
    }
    return EXIT_OK;
}

/* A result that is current: its stored outcome stands for the exit code. */
static int skip(Worker *w, Job *j, const char *path, FILE *out, FILE *err)
{
    Batch *b = w->b;
    j->json = cli_read_file(path, NULL);
    if (!j->json)
        return 0; /* vanished since the check: analyse */
    SettleResultInfo info;
    int pr = settle_result_info_parse(j->json, strlen(j->json), &info);
    if (pr < 0) {
        settle_result_info_free(&info);
        free(j->json);
        j->json = NULL;
        return 0;
    }
    const char *st = info.status;
    j->code = !strcmp(st, "stable")                                   ? EXIT_OK
              : !strcmp(st, "not_stable") || !strcmp(st, "no_start") ? EXIT_NOT_STABLE
              : !strcmp(st, "partial")                                ? EXIT_PARTIAL
                                                                      : EXIT_INPUT;
    if (!b->quiet)
        fprintf(out, "%s: skipped, current result in %s (%s)\n", j->input, path, st);
    if (info.error)
        fprintf(err, "settle: %s: %s (current result in %s)\n", j->input, info.error, path);
    settle_result_info_free(&info);
    if (b->report) {
        j->rjson = strdup(j->json);
        j->plot_note = strdup("skipped: its result was current (--skip-existing)");
    }
    return 1;
}

/* The PNGs of one capture's pictures (key frames, then the filmstrip), each
 * encoded once (two roles of one frame share their bytes), and the answer's
 * (answer_make), on two threads of their own while the plot is drawn: the
 * decoding is over, both cores are free. With --frames each file is written
 * by the thread that encoded it, as soon as its bytes are there, under its
 * temporary name; its fsync and rename wait until no picture is left to
 * encode (encoded_commit), so that neither thread waits for the disk while
 * the other could use it. What went wrong is said after, in the files' order. */
#define ENCODED_FILES 6 /* the five images' files and the answer's */
typedef struct Encoded {
    const SettlePictures *pics;
    int n;                 /* images: the key frames and the filmstrip */
    const SettleImage *img[5];
    uint8_t *png[5];
    size_t len[5];
    int shared[5];         /* the bytes are those of image shared[k] (< k), or -1 */
    int failed;            /* out of memory */
    /* --frames: each image's file (NULL: not written) and its errno (0: written) */
    char *path[5];
    int err[5];
    char *answer_path;
    int answer_err;
    /* the answer outlined on a key frame (answer_make): full size for
     * --frames, at most 640 pixels a side for --report */
    const SettleResult *r;
    const SettleImage *answer_src;
    int answer_full, answer_small;
    uint8_t *answer_png, *small_png;
    size_t answer_len, small_len;
    int answer_failed;
    /* --frames: the files written (ready) or being written, to commit
     * from out[next_out] on, and where each one's errno goes */
    OutFile out[ENCODED_FILES];
    int *out_err[ENCODED_FILES];
    int ready[ENCODED_FILES];
    int nout, next_out;
    pthread_mutex_t lock;
    int lock_ok;           /* lock initialised */
    int next;              /* the next job: the answer (-1), then the images */
} Encoded;

/* --frames: the file at path written under its temporary name, left to
 * encoded_commit; *err is its errno when it fails. */
static void encoded_file(Encoded *e, const char *path, const uint8_t *png, size_t len, int *err)
{
    /* a slot of its own: the OutFile cannot move once open (its memory
     * stream points into it) */
    pthread_mutex_lock(&e->lock);
    int k = e->nout < ENCODED_FILES ? e->nout++ : -1;
    pthread_mutex_unlock(&e->lock);
    OutFile tmp, *o = k >= 0 ? &e->out[k] : &tmp;
    if (out_write_start(o, path, png, len) < 0)
        *err = errno ? errno : EIO;
    /* a file written in place (a FIFO, a device) has nothing to sync */
    else if ((k < 0 || !o->tmp) && out_commit(o) < 0)
        *err = errno ? errno : EIO;
    if (k >= 0) {
        pthread_mutex_lock(&e->lock);
        e->out_err[k] = err;
        e->ready[k] = 1;
        pthread_mutex_unlock(&e->lock);
    }
}

/* The files written and not yet committed: synced and renamed into place. */
static void encoded_commit(Encoded *e)
{
    for (;;) {
        pthread_mutex_lock(&e->lock);
        /* a file still being written is left to its writer, which commits
         * after its last picture */
        int k = e->next_out < e->nout && e->ready[e->next_out] ? e->next_out++ : -1;
        pthread_mutex_unlock(&e->lock);
        if (k < 0)
            break;
        if (out_commit(&e->out[k]) < 0)
            *e->out_err[k] = errno ? errno : EIO;
    }
}

/* The answer outlined on its key frame, encoded: the full-size PNG and/or
 * the report's small one (made a few rows at a time, no full-size copy). */
static void answer_make(Encoded *e)
{
    SettleImage small = { 0 };
    if (settle_encode_answer(e->answer_src, e->r, e->answer_full ? &e->answer_png : NULL,
                             &e->answer_len, 640, e->answer_small ? &small : NULL) < 0) {
        e->answer_failed = 1;
        return;
    }
    if (e->answer_path)
        encoded_file(e, e->answer_path, e->answer_png, e->answer_len, &e->answer_err);
    if (e->answer_small && out_png_bytes(&small, &e->small_png, &e->small_len) < 0)
        e->answer_failed = 1;
    free(small.rgb);
}

/* --frames: the files of image k, just encoded, and of the later images
 * that share its bytes. */
static void encoded_write(Encoded *e, int k)
{
    for (int i = k; i < e->n; i++)
        if ((i == k || e->shared[i] == k) && e->path[i])
            encoded_file(e, e->path[i], e->png[k], e->len[k], &e->err[i]);
}

static void *encode_pictures(void *opaque)
{
    Encoded *e = opaque;
    for (;;) {
        pthread_mutex_lock(&e->lock);
        int k = e->next++;
        pthread_mutex_unlock(&e->lock);
        if (k >= e->n)
            break;
        if (k < 0) {
            if (e->answer_src)
                answer_make(e);
        } else if (e->shared[k] < 0) {
            /* a key frame's PNG may have been made ahead (SETTLE_KEEP_PNG) */
            if (!e->png[k] && out_png_bytes(e->img[k], &e->png[k], &e->len[k]) < 0)
                e->failed = 1;
            else
                encoded_write(e, k);
        }
    }
    encoded_commit(e);
    return NULL;
}

/* The key frame the answer is outlined on: the stable frame the pictures
 * kept (the last-change frame when there is none but animated areas or
 * regions to show), or NULL. */
static const SettleImage *answer_source(const SettlePictures *pics, const SettleResult *r)
{
    const SettleImage *src = NULL;
    for (int k = 0; k < pics->nframes && !src; k++)
        if (pics->frame[k].rgb && !strcmp(pics->frame[k].role, "stable"))
            src = &pics->frame[k];
    for (int k = 0; k < pics->nframes && !src && (r->nanimated || r->nregions); k++)
        if (pics->frame[k].rgb && !strcmp(pics->frame[k].role, "last-change"))
            src = &pics->frame[k];
    return src;
}

/* frames: the key frames too (--frames), else only the filmstrip (--report).
 * The PNGs the analysis made ahead are taken from pics. */
static void encoded_init(Encoded *e, SettlePictures *pics, const SettleResult *r, int frames,
                         int report)
{
    memset(e, 0, sizeof(*e));
    e->pics = pics;
    e->r = r;
    e->next = -1;
    for (int k = frames ? 0 : pics->nframes; k <= pics->nframes; k++) {
        const SettleImage *img = k < pics->nframes ? &pics->frame[k] : &pics->filmstrip;
        if (!img->rgb)
            continue;
        e->img[e->n] = img;
        e->shared[e->n] = -1;
        for (int j = 0; j < e->n; j++)
            if (e->img[j]->rgb == img->rgb)
                e->shared[e->n] = j;
        if (k < pics->nframes && e->shared[e->n] < 0 && pics->png[k]) {
            e->png[e->n] = pics->png[k];
            e->len[e->n] = pics->png_len[k];
            for (int j = pics->nframes - 1; j >= 0; j--) /* its roles' */
                if (pics->png[j] == e->png[e->n])
                    pics->png[j] = NULL;
        }
        e->n++;
    }
    e->answer_src = answer_source(pics, r);
    e->answer_full = frames;
    e->answer_small = report;
}

static void encoded_free(Encoded *e)
{
    for (int k = 0; k < e->n; k++) {
        free(e->png[k]);
        free(e->path[k]);
    }
    free(e->answer_path);
    free(e->answer_png);
    free(e->small_png);
}

/* --frames: the files the encoding threads write, DIR/STEM-ROLE.png and
 * DIR/STEM-answer.png (a name left NULL when out of memory: said after). */
static void encoded_paths(const Batch *b, Encoded *e, const char *stem)
{
    for (int k = 0; k < e->n; k++) {
        const char *role = e->img[k]->role;
        size_t n = strlen(stem) + strlen(role) + 6;
        char *name = malloc(n);
        e->path[k] = name ? (snprintf(name, n, "%s-%s.png", stem, role), cli_join(b->frames, name, ""))
                          : NULL;
        free(name);
    }
    if (e->answer_src)
        e->answer_path = cli_join(b->frames, stem, "-answer.png");
}

/* --frames: what became of the files the encoding threads wrote. */
static int write_encoded(const Encoded *e, FILE *err)
{
    int code = EXIT_OK;
    for (int k = 0; k < e->n && code != EXIT_INTERNAL; k++) {
        if (!e->path[k]) {
            code = EXIT_INTERNAL;
        } else if (e->err[k]) {
            fprintf(err, "settle: --frames: %s: %s\n", e->path[k], strerror(e->err[k]));
            code = worse(code, EXIT_OUTPUT);
        }
    }
    return code;
}

/* Says once per run that gnuplot is missing. */
static void no_gnuplot(Batch *b, const char *what, FILE *err)
{
    pthread_mutex_lock(&b->lock);
    int said = b->no_gnuplot_said;
    b->no_gnuplot_said = 1;
    pthread_mutex_unlock(&b->lock);
    if (!said)
        fprintf(err, "settle: %s%s: " PLOT_NO_GNUPLOT "; the other outputs are written\n",
                strcmp(what, "--plot") ? "warning: " : "", what);
}

/* The answer outlined on the stable frame the pictures kept (answer_make):
 * NAME-answer.png at full size in --frames, a picture of at most 640 pixels
 * a side for --report. */
static int answer_pictures(const Batch *b, Encoded *e, Job *j, const SettleResult *r, FILE *err)
{
    const SettleImage *src = e->answer_src;
    if (!src)
        return EXIT_OK;
    if (e->answer_failed)
        return EXIT_INTERNAL;
    int code = EXIT_OK;
    if (b->frames && !e->answer_path) {
        code = EXIT_INTERNAL;
    } else if (b->frames && e->answer_err) {
        fprintf(err, "settle: --frames: %s: %s\n", e->answer_path, strerror(e->answer_err));
        code = EXIT_OUTPUT;
    }
    if (b->report && code != EXIT_INTERNAL) {
        char cap[160], t[32];
        fmt_time(t, sizeof(t), src->time);
        snprintf(cap, sizeof(cap), "%s: frame %lld at %s",
                 r->stable_frame >= 0 ? "stable" : "last change (no stable frame)",
                 (long long)src->frame, t);
        j->answer_png = e->small_png;
        j->answer_len = e->small_len;
        e->small_png = NULL;
        if (!(j->answer_caption = strdup(cap)))
            code = EXIT_INTERNAL;
    }
    return code;
}

/* --frames and --report: the key frames and the filmstrip, kept during the
 * analysis, and their PNGs encoding on e's thread (*started) while the plot
 * is drawn. */
static int grab(Worker *w, SettleContext *ctx, Job *j, const SettleResult *r, const char *stem,
                SettlePictures **pics, Encoded *e, pthread_t th[2], int started[2], FILE *err)
{
    Batch *b = w->b;
    const char *in = j->input;
    int code = EXIT_OK;
    progress_begin(&w->progress, in, "pictures");
    int gr = settle_grab_pictures(ctx, pics);
    if (gr == SETTLE_ERR_NOMEM)
        return EXIT_INTERNAL;
    if (gr == SETTLE_ERR_INVAL) {
        fprintf(err, "settle: %s: no pictures: they need a capture that can be read twice "
                     "(a file, not a pipe)\n", in);
        return EXIT_OUTPUT;
    }
    if (gr < 0) {
        fprintf(err, "settle: %s: no pictures: %s\n", in, settle_strerror(gr));
        return gr == SETTLE_ERR_INTERRUPTED ? EXIT_SIGNAL : EXIT_OUTPUT;
    }
    encoded_init(e, *pics, r, b->frames != NULL, b->report != NULL);
    if (b->frames)
        encoded_paths(b, e, stem);
    if (pthread_mutex_init(&e->lock, NULL))
        return EXIT_INTERNAL;
    e->lock_ok = 1;
    for (int t = 0; t < 2; t++)
        started[t] = pthread_create(&th[t], NULL, encode_pictures, e) == 0;
    if (!started[0] && !started[1])
        encode_pictures(e);
    int mr = b->report && b->marks.m
                 ? cli_marks_pictures(&b->marks, ctx, r, &j->mark_pics, &j->nmark_pics)
                 : 0;
    if (mr == SETTLE_ERR_NOMEM)
        code = EXIT_INTERNAL;
    else if (mr < 0)
        fprintf(err, "settle: warning: --report: %s: no pictures of the marks: %s\n",
                in, settle_strerror(mr));
    return code;
}

/* --plot and the report's plot, from the per-frame CSV at tcsv (ok: it was
 * written, else errno was err_no). */
static int plots(Worker *w, Job *j, const SettleResult *r, const char *tcsv, int ok, int err_no,
                 FILE *err)
{
    Batch *b = w->b;
    const char *in = j->input;
    int code = EXIT_OK;
    char msg[512];
    PlotInfo pi = {
        .name = in, .method = settle_method_name(r->method),
        .diff_threshold = r->diff_threshold, .entropy_threshold = b->s.entropy_threshold,
        .start = r->start_frame >= 0 ? r->start_time : NAN,
        .stable = r->stable_frame >= 0 ? r->stable_time : NAN, .load = r->load_time,
        .decide = r->deciding_change.frame >= 0 ? r->deciding_change.time : NAN,
    };
    for (int k = 0; k < r->nregions && k < PLOT_MAX_REGIONS; k++) {
        pi.region_name[pi.nregions] = r->regions[k].name;
        pi.region_time[pi.nregions++] = r->regions[k].stable_time;
    }
    if (b->marks.m)
        cli_marks_plot(&b->marks, &pi);
    if (!ok) {
        fprintf(err, "settle: %s: no plot: cannot write a temporary CSV: %s\n", in,
                strerror(err_no ? err_no : EIO));
        code = worse(code, EXIT_OUTPUT);
    } else {
        char *name = b->plot ? csv_name(b->plot, in) : NULL;
        /* the last capture's plot is synced with the files written after it */
        OutFile *pending = j == &b->jobs[b->n - 1] ? &j->plot_out : NULL;
        if (b->plot && !name) {
            code = EXIT_INTERNAL;
        } else if (b->plot && plot_draw_keep(&pi, tcsv, name, b->plot_script,
                                             b->report ? &j->plot_png : NULL, &j->plot_len,
                                             &w->warm, pending, msg, sizeof(msg)) < 0) {
            if (!strcmp(msg, PLOT_NO_GNUPLOT))
                no_gnuplot(b, "--plot", err);
            else
                fprintf(err, "settle: --plot: %s: %s\n", name, msg);
            code = worse(code, EXIT_OUTPUT);
        } else if (pending && pending->f) {
            j->plot_name = name;
            name = NULL;
        }
        free(name);
        /* the report's plot is --plot's PNG when there is one */
        if (b->report && code != EXIT_INTERNAL && !j->plot_png &&
            plot_draw_png(&pi, tcsv, b->plot_script, &j->plot_png, &j->plot_len, &w->warm,
                          msg, sizeof(msg)) < 0) {
            if (!strcmp(msg, PLOT_NO_GNUPLOT))
                no_gnuplot(b, "--report", err);
            else
                fprintf(err, "settle: warning: --report: %s: no plot: %s\n", in, msg);
            j->plot_note = strdup(msg);
        }
    }
    return code;
}

/* The plots drawn on a thread of their own while the pictures are picked
 * and encoded, gnuplot's start-up and drawing hidden; their messages kept
 * (msgs) and said after the pictures', in the order they always came. */
typedef struct Plots {
    Worker *w;
    Job *j;
    const SettleResult *r;
    char *tcsv;
    int ok, err_no, code;
    char *text;
    size_t len;
    FILE *msgs;
    pthread_t th;
    int started;
} Plots;

static void *plots_thread(void *opaque)
{
    Plots *p = opaque;
    p->code = plots(p->w, p->j, p->r, p->tcsv, p->ok, p->err_no, p->msgs);
    return NULL;
}

/* Writes the per-frame CSV (the records are read here, before the pictures
 * read them), then starts the plots. */
static void plots_begin(Plots *p, Worker *w, SettleContext *ctx, Job *j, const SettleResult *r)
{
    memset(p, 0, sizeof(*p));
    p->w = w;
    p->j = j;
    p->r = r;
    p->tcsv = plot_temp_file("csv");
    FILE *f = p->tcsv ? fopen(p->tcsv, "w") : NULL;
    p->ok = f && settle_write_csv(ctx, f) == 0;
    if (f && fclose(f))
        p->ok = 0;
    p->err_no = errno;
    p->msgs = open_memstream(&p->text, &p->len);
    p->started = p->msgs && pthread_create(&p->th, NULL, plots_thread, p) == 0;
}

/* Waits for the plots (or draws them now) and says their messages. */
static int plots_end(Plots *p, FILE *err)
{
    if (p->started)
        pthread_join(p->th, NULL);
    else
        p->code = plots(p->w, p->j, p->r, p->tcsv, p->ok, p->err_no, p->msgs ? p->msgs : err);
    if (p->msgs && fclose(p->msgs) == 0 && p->text)
        fputs(p->text, err);
    free(p->text);
    if (p->tcsv)
        unlink(p->tcsv);
    free(p->tcsv);
    return p->code;
}

/* --frames, --plot and --report's pictures of one analysed capture. */
static int pictures(Worker *w, SettleContext *ctx, Job *j, const SettleResult *r, FILE *err)
{
    Batch *b = w->b;
    int code = EXIT_OK;
    SettlePictures *pics = NULL;
    Encoded e;
    memset(&e, 0, sizeof(e));
    pthread_t th[2];
    int started[2] = { 0, 0 };
    Plots pl;
    char *stem = NULL;
    if (b->frames || b->report) {
        stem = b->n == 1 ? csv_name("%n", j->input) : strdup(j->stem ? j->stem : "capture");
        if (!stem)
            return EXIT_INTERNAL;
    }
    if (b->plot || b->report)
        plots_begin(&pl, w, ctx, j, r);
    if (b->frames || b->report)
        code = grab(w, ctx, j, r, stem, &pics, &e, th, started, err);
    if (b->plot || b->report)
        code = worse(code, plots_end(&pl, err));
    for (int t = 0; t < 2; t++)
        if (started[t])
            pthread_join(th[t], NULL);
    if (e.lock_ok)
        pthread_mutex_destroy(&e.lock);
    if (e.failed)
        code = EXIT_INTERNAL;
    if (pics && code != EXIT_INTERNAL) {
        if (b->frames)
            code = worse(code, write_encoded(&e, err));
        if (code != EXIT_INTERNAL)
            code = worse(code, answer_pictures(b, &e, j, r, err));
        /* the filmstrip's bytes (the last image, never shared) go to the report */
        if (b->report && code != EXIT_INTERNAL && pics->filmstrip.rgb) {
            j->strip_png = e.png[e.n - 1];
            j->strip_len = e.len[e.n - 1];
            e.png[e.n - 1] = NULL;
        }
    }
    encoded_free(&e);
    settle_pictures_free(&pics);
    free(stem);
    return code;
}

/* The one line every capture gets, whatever became of it. */
static void summary_line(FILE *out, const char *in, int ar, const SettleResult *r,
                         const SettleWarning *warn, int nwarn)
{
    int measured = r && r->frames > 0;
    const char *method = measured ? settle_method_name(r->method) : NULL;
    const char *why = r && r->error_message ? r->error_message : settle_strerror(ar);
    if (r && r->stable_frame >= 0) {
        char st[32], lt[32];
        fmt_time(st, sizeof(st), r->stable_time);
        fmt_time(lt, sizeof(lt), r->load_time);
        char note[160];
        cli_animated_note(r, note, sizeof(note));
        fprintf(out, "%s: stable at %s (frame %lld of %lld), load time %s [%s]%s%s", in, st,
                (long long)r->stable_frame, (long long)r->frames, lt, method,
                r->partial ? " (partial)" : "", note);
    } else if (ar == SETTLE_ERR_NOT_STABLE || ar == SETTLE_ERR_NO_START) {
        fprintf(out, "%s: %s: %s (%lld frames) [%s]", in,
                ar == SETTLE_ERR_NO_START ? "no start found" : "not stable", why,
                measured ? (long long)r->frames : 0LL, method ? method : "-");
    } else if (ar == SETTLE_ERR_INTERRUPTED) {
        fprintf(out, "%s: interrupted after %lld frames, no result", in,
                r ? (long long)r->frames : 0LL);
    } else {
        fprintf(out, "%s: %s: %s%s", in, r && r->partial ? "partial, no stable frame" : "failed",
                why, measured ? "" : "");
    }
    for (int i = 0; i < nwarn; i++)
        fprintf(out, "; warning: %s", warn[i].message);
    fputc('\n', out);
}

/* --csv: the per-frame CSV to standard output (kept in j->csv until the
 * job's turn) or to a file named for the input. -1 when out of memory. */
static int csv_output(Batch *b, SettleContext *ctx, Job *j, FILE *err)
{
    const char *in = j->input;
    if (!strcmp(b->csv, "-")) {
        size_t len = 0;
        FILE *m = open_memstream(&j->csv, &len);
        if (!m)
            return -1;
        int wr = settle_write_csv(ctx, m);
        fclose(m);
        if (wr < 0)
            return -1;
    } else {
        char *name = csv_name(b->csv, in);
        if (!name)
            return -1;
        OutFile co;
        if (out_open(&co, name) < 0) {
            fprintf(err, "settle: --csv: %s: %s\n", name, strerror(errno));
            j->code = worse(j->code, EXIT_OUTPUT);
        } else if (settle_write_csv(ctx, co.f) < 0) {
            out_abort(&co);
            fprintf(err, "settle: --csv: %s: out of memory\n", name);
            j->code = worse(j->code, EXIT_OUTPUT);
        } else if (out_commit(&co) < 0) {
            fprintf(err, "settle: --csv: %s: %s\n", name, strerror(errno));
            j->code = worse(j->code, EXIT_OUTPUT);
        }
        free(name);
    }
    return 0;
}

static void run_job(Worker *w, SettleContext *ctx, Job *j, FILE *out, FILE *err)
{
    Batch *b = w->b;
    const char *in = j->input;
    char *jpath = b->dir ? cli_join(b->dir, j->stem, ".json") : NULL;
    if (b->dir && !jpath)
        goto nomem;
    if (b->skip_existing) {
        int cur = settle_result_is_current(ctx, in, jpath);
        if (cur == SETTLE_ERR_NOMEM)
            goto nomem;
        if (cur == 1 && skip(w, j, jpath, out, err))
            goto end;
    }

    const SettleResult *r = NULL;
    progress_begin(&w->progress, in, NULL);
    /* gnuplot starts and draws its first picture while the capture is read */
    if (b->plot || b->report)
        plot_warm_start(&w->warm);
    int ar = settle_analyze_file(ctx, in, &r);
    if (cli_stop && ar != SETTLE_ERR_INTERRUPTED && r && r->partial)
        ar = SETTLE_ERR_INTERRUPTED;
    j->code = cli_outcome_code(ar);
    int mcode = EXIT_OK;
    if (b->marks.m && ar != SETTLE_ERR_INTERRUPTED)
        mcode = cli_marks_apply(&b->marks, ctx, r, in, err);
    const char *method = r ? settle_method_name(r->method) : "?";
    SettleWarning warn[SETTLE_MAX_WARNINGS];
    int nwarn = r && ar != SETTLE_ERR_INTERRUPTED ? settle_get_warnings(ctx, warn) : 0;
    if (nwarn < 0)
        nwarn = 0;
    if (!b->quiet)
        summary_line(out, in, ar, r, warn, nwarn);
    if (b->strict && nwarn > 0)
        j->code = worse(j->code, EXIT_NOT_STABLE);
    if (r && r->nregions && !b->quiet)
        cli_regions(out, in, r);
    if (b->marks.m && ar != SETTLE_ERR_INTERRUPTED && !b->quiet && mcode != EXIT_INTERNAL)
        cli_marks_print(&b->marks, in, out);
    j->code = worse(j->code, mcode);
    if (mcode == EXIT_INTERNAL)
        goto nomem;
    if (ar < 0 && r && r->error_message) {
        char note[160];
        cli_animated_note(r, note, sizeof(note));
        fprintf(err, "settle: %s: %s%s%s%s\n", in, r->error_message,
                r->partial ? " (result partial)" : "", *note ? "; " : "", note);
    } else if (ar < 0) {
        fprintf(err, "settle: %s: %s\n", in, settle_strerror(ar));
    }
    if (b->verbose && r && r->frames > 1) {
        fprintf(err, "settle: %s: method %s: %s\n", in, method, r->method_reason);
        if (r->scale > 1 || r->scale_reread)
            fprintf(err, "settle: %s: measured %s %dx%d: %s\n", in,
                    r->scale > 1 ? "reduced to" : "at full size,", r->scale > 1 ? r->scale_width
                    : r->width, r->scale > 1 ? r->scale_height : r->height, r->scale_reason);
        cli_explain(err, in, r);
    }

    if (b->json) {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m)
            goto nomem;
        int wr = settle_write_json(ctx, m);
        fclose(m);
        j->json = buf;
        if (wr < 0)
            goto nomem;
    }
    /* an interrupted capture leaves no result in DIR, so a rerun analyses it */
    if (jpath && ar != SETTLE_ERR_INTERRUPTED) {
        j->code = worse(j->code, write_file(ctx, jpath, 0, err));
        if (b->per_frame && r && r->frames > 0) {
            char *cpath = cli_join(b->dir, j->stem, ".csv");
            if (!cpath)
                goto nomem;
            j->code = worse(j->code, write_file(ctx, cpath, 1, err));
            free(cpath);
        }
    }
    if (b->csv && r && r->frames > 0 && csv_output(b, ctx, j, err) < 0)
        goto nomem;
    if ((b->plot || b->frames || b->report) && r && r->frames > 0 &&
        ar != SETTLE_ERR_INTERRUPTED && !cli_stop &&
        (j->code = worse(j->code, pictures(w, ctx, j, r, err))) == EXIT_INTERNAL)
        goto nomem;
    if ((b->report || b->db) && !j->rjson) {
        size_t len = 0;
        FILE *m = open_memstream(&j->rjson, &len);
        if (!m)
            goto nomem;
        int wr = settle_write_json(ctx, m);
        fclose(m);
        if (wr < 0)
            goto nomem;
    }
    goto end;
nomem:
    fprintf(err, "settle: %s: out of memory\n", in);
    j->code = worse(j->code, EXIT_INTERNAL);
end:
    plot_warm_stop(&w->warm);
    free(jpath);
}

/* --db: the result and where its outputs are. */
static int store_result(Batch *b, Job *j)
{
    const char *in = j->input;
    char *stem = b->n == 1 ? csv_name("%n", in) : strdup(j->stem ? j->stem : "capture");
    char *res = b->dir && j->stem ? cli_join(b->dir, j->stem, ".json") : NULL;
    char *csv = b->per_frame && b->dir && j->stem ? cli_join(b->dir, j->stem, ".csv")
                : b->csv && strcmp(b->csv, "-") ? csv_name(b->csv, in) : NULL;
    char *strip = b->frames && stem ? cli_join(b->frames, stem, "-filmstrip.png") : NULL;
    int code = stem ? cli_store_result(b->hist, b->db, j->rjson, in, res, csv, b->report, strip)
                    : EXIT_INTERNAL;
    free(stem);
    free(res);
    free(csv);
    free(strip);
    return code;
}

static const char *json_name(const char *path)
{
    return strcmp(path, "-") ? path : "stdout";
}

/* Writes what finished captures have to say, in the order of the inputs, so
 * that the output is the same whatever --jobs. Called with the lock held. */
static void emit_ready(Batch *b)
{
    while (b->emitted < b->n && b->jobs[b->emitted].done) {
        Job *j = &b->jobs[b->emitted++];
        progress_clear();
        if (j->out && *j->out)
            fputs(j->out, b->summary);
        else if (!b->quiet)
            fprintf(b->summary, "%s: failed: see the messages on stderr\n", j->input);
        if (j->err && *j->err)
            fputs(j->err, stderr);
        if (b->summary == stdout)
            out_flush_stdout();
        else
            fflush(b->summary);
        if (j->json && b->jout.f && (fputs(j->json, b->jout.f) == EOF || out_flush(&b->jout) < 0)) {
            fprintf(stderr, "settle: --json: %s: %s\n", json_name(b->json), strerror(errno));
            out_abort(&b->jout); /* no partial file: the rest of the lines are not written */
            j->code = worse(j->code, EXIT_OUTPUT);
        }
        if (j->csv)
            fputs(j->csv, stdout);
        if (b->hist && j->rjson && j->code != EXIT_SIGNAL)
            j->code = worse(j->code, store_result(b, j));
        b->ret = worse(b->ret, j->code);
        free(j->out);
        free(j->err);
        free(j->json);
        free(j->csv);
        j->out = j->err = j->json = j->csv = NULL;
    }
}

static void *worker_main(void *opaque)
{
    Worker *w = opaque;
    Batch *b = w->b;
    SettleSettings s = b->s;
    s.log_cb = log_cb;
    s.log_opaque = w;
    if (progress_enabled()) {
        s.progress_cb = progress_cb;
        s.progress_opaque = &w->progress;
    }
    SettleContext *ctx = NULL;
    if (settle_open(&ctx, &s) < 0) {
        w->ret = EXIT_INTERNAL;
        return NULL;
    }
    /* --frames and --report: their pictures kept during the one reading */
    settle_keep_pictures(ctx, b->frames ? 1 | SETTLE_KEEP_PNG : b->report != NULL);
    /* the per-frame CSV (--csv, --per-frame) and the plots drawn from it
     * show every frame's entropy; nothing else here reads it */
    settle_frame_entropy(ctx, b->csv || b->per_frame || b->plot || b->report);
    for (int i = 0; i < b->nlabels; i++) {
        const char *eq = strchr(b->labels[i], '=');
        char *key = strndup(b->labels[i], (size_t)(eq - b->labels[i]));
        int r = key ? settle_add_label(ctx, key, eq + 1) : SETTLE_ERR_NOMEM;
        free(key);
        if (r < 0) {
            w->ret = EXIT_INTERNAL;
            settle_close(&ctx);
            return NULL;
        }
    }
    cli_watch_context(w->id, ctx);
    for (;;) {
        pthread_mutex_lock(&b->lock);
        size_t i = b->next < b->n && !cli_stop ? b->next++ : b->n;
        pthread_mutex_unlock(&b->lock);
        if (i >= b->n)
            break;
        Job *j = &b->jobs[i];
        size_t ol = 0, el = 0;
        FILE *out = open_memstream(&j->out, &ol);
        FILE *err = open_memstream(&j->err, &el);
        if (!out || !err) {
            if (out)
                fclose(out);
            if (err)
                fclose(err);
            j->code = EXIT_INTERNAL;
        } else {
            w->err = err;
            run_job(w, ctx, j, out, err);
            w->err = NULL;
            fclose(out);
            fclose(err);
        }
        pthread_mutex_lock(&b->lock);
        j->done = 1;
        emit_ready(b);
        pthread_mutex_unlock(&b->lock);
    }
    cli_watch_context(w->id, NULL);
    settle_close(&ctx);
    return NULL;
}

/* --report: one page, a row per capture, in the order of the inputs,
 * written into *o, left to the caller's out_commit (*started) so that its
 * fsync shares a journal commit with the JSON's. */
static int write_report(Batch *b, OutFile *o, int *started)
{
    SettleReportCapture *caps = calloc(b->n + 1, sizeof(*caps));
    if (!caps) {
        fprintf(stderr, "settle: --report: out of memory\n");
        return EXIT_INTERNAL;
    }
    int n = 0;
    for (size_t i = 0; i < b->n; i++) {
        const Job *j = &b->jobs[i];
        if (!j->rjson)
            continue;
        caps[n++] = (SettleReportCapture){
            .json = j->rjson, .plot_png = j->plot_png, .plot_len = j->plot_len,
            .plot_note = j->plot_note, .filmstrip_png = j->strip_png,
            .filmstrip_len = j->strip_len, .frame_pictures = j->mark_pics,
            .nframe_pictures = j->nmark_pics, .answer_png = j->answer_png,
            .answer_len = j->answer_len, .answer_caption = j->answer_caption,
        };
    }
    int ret = EXIT_OK;
    *started = 0;
    if (out_open(o, b->report) < 0) {
        fprintf(stderr, "settle: --report: %s: %s\n", b->report, strerror(errno));
        ret = EXIT_OUTPUT;
    } else if (settle_write_report(o->f, caps, n) < 0) {
        out_abort(o);
        fprintf(stderr, "settle: --report: %s: out of memory\n", b->report);
        ret = EXIT_OUTPUT;
    } else if (out_start(o) < 0) {
        fprintf(stderr, "settle: --report: %s: %s\n", b->report, strerror(errno));
        out_abort(o);
        ret = EXIT_OUTPUT;
    } else {
        *started = 1;
    }
    free(caps);
    return ret;
}

/* The files written at the end, each synced before its rename: the last
 * capture's plot, the report, the JSON. Their bytes are all written and
 * their writeback started before the first fsync, which waits for one
 * commit of the journal for the three instead of one each in turn. */
static int commit_last(Batch *b, OutFile *report, int report_started)
{
    int ret = EXIT_OK;
    if (b->jout.f && out_start(&b->jout) < 0) {
        fprintf(stderr, "settle: --json: %s: %s\n", json_name(b->json), strerror(errno));
        out_abort(&b->jout);
        ret = EXIT_OUTPUT;
    }
    Job *last = b->n ? &b->jobs[b->n - 1] : NULL;
    if (last && out_commit(&last->plot_out) < 0) {
        fprintf(stderr, "settle: --plot: %s: %s\n", last->plot_name, strerror(errno));
        ret = EXIT_OUTPUT;
    }
    if (report_started && out_commit(report) < 0) {
        fprintf(stderr, "settle: --report: %s: %s\n", b->report, strerror(errno));
        ret = EXIT_OUTPUT;
    }
    if (b->jout.f && out_commit(&b->jout) < 0) {
        fprintf(stderr, "settle: --json: %s: %s\n", json_name(b->json), strerror(errno));
        ret = EXIT_OUTPUT;
    }
    return ret;
}

/* Every file a run will write, known before any capture is read. */
typedef struct Planned {
    const char *opt;   /* the option that names it */
    char *path;
    const char *input; /* the capture it belongs to, or NULL */
} Planned;

typedef struct Plan {
    Planned *v;
    size_t n, cap;
} Plan;

/* Takes `path` (NULL when out of memory). */
static int plan_add(Plan *p, const char *opt, char *path, const char *input)
{
    if (!path)
        return -1;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        Planned *v = realloc(p->v, cap * sizeof(*v));
        if (!v) {
            free(path);
            return -1;
        }
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = (Planned){ opt, path, input };
    return 0;
}

static int plan_outputs(const Batch *b, Plan *p)
{
    static const char *const roles[] = { "start", "stable", "first-change", "last-change",
                                         "filmstrip" };
    int bad = 0;
    if (b->json && strcmp(b->json, "-"))
        bad |= plan_add(p, "--json", strdup(b->json), NULL);
    if (b->report)
        bad |= plan_add(p, "--report", strdup(b->report), NULL);
    if (b->marks.csv && strcmp(b->marks.csv, "-"))
        bad |= plan_add(p, "--marks-csv", strdup(b->marks.csv), NULL);
    for (size_t i = 0; i < b->n && !bad; i++) {
        const Job *j = &b->jobs[i];
        if (b->csv && strcmp(b->csv, "-"))
            bad |= plan_add(p, "--csv", csv_name(b->csv, j->input), j->input);
        if (b->plot)
            bad |= plan_add(p, "--plot", csv_name(b->plot, j->input), j->input);
        if (b->dir) {
            bad |= plan_add(p, "-o", cli_join(b->dir, j->stem, ".json"), j->input);
            if (b->per_frame)
                bad |= plan_add(p, "-o", cli_join(b->dir, j->stem, ".csv"), j->input);
        }
        char *stem = b->n == 1 ? csv_name("%n", j->input) : strdup(j->stem);
        for (size_t k = 0; b->frames && stem && k < sizeof(roles) / sizeof(*roles); k++) {
            size_t n = strlen(stem) + strlen(roles[k]) + 6;
            char *name = malloc(n);
            if (name)
                snprintf(name, n, "-%s.png", roles[k]);
            bad |= plan_add(p, "--frames", name ? cli_join(b->frames, stem, name) : NULL, j->input);
            free(name);
        }
        bad |= b->frames && !stem;
        free(stem);
    }
    return bad ? -1 : 0;
}

static int cmp_planned(const void *a, const void *b)
{
    return strcmp(((const Planned *)a)->path, ((const Planned *)b)->path);
}

/* Before any capture is read: no output may name an input or another output,
 * and every output's folder exists. */
static int check_outputs(Batch *b, const InputList *in, const char **files_from, int nfiles_from)
{
    OutGuard g = { 0 };
    Plan p = { 0 };
    int ret = EXIT_OK, bad = 0;
    for (size_t i = 0; i < in->n; i++)
        bad |= strcmp(in->v[i], "-") && out_guard_add(&g, in->v[i]) < 0;
    for (int i = 0; i < nfiles_from; i++)
        bad |= strcmp(files_from[i], "-") && out_guard_add(&g, files_from[i]) < 0;
    if (b->plot_script)
        bad |= out_guard_add(&g, b->plot_script) < 0;
    for (int i = 0; i < b->marks.nfiles; i++)
        bad |= out_guard_add(&g, b->marks.files[i]) < 0;
    if (bad || plan_outputs(b, &p) < 0) {
        ret = EXIT_INTERNAL;
        goto end;
    }
    const char *dirs[2][2] = { { "-o", b->dir }, { "--frames", b->frames } };
    for (int k = 0; k < 2; k++) {
        if (dirs[k][1] && out_guard_hit(&g, dirs[k][1])) {
            fprintf(stderr, "settle: %s: %s is one of the inputs; refusing to write there\n",
                    dirs[k][0], dirs[k][1]);
            ret = EXIT_USAGE;
        }
    }
    if (b->db && (out_guard_hit(&g, b->db) || out_is_video(b->db))) {
        fprintf(stderr, "settle: --db: %s is %s; refusing to write there\n", b->db,
                out_guard_hit(&g, b->db) ? "one of the inputs" : "a video, not a history store");
        ret = EXIT_USAGE;
    }
    for (size_t i = 0; i < p.n; i++) {
        if (out_guard_hit(&g, p.v[i].path)) {
            fprintf(stderr, "settle: %s: %s is one of the inputs; refusing to overwrite it\n",
                    p.v[i].opt, p.v[i].path);
            ret = EXIT_USAGE;
        } else if (out_is_video(p.v[i].path)) {
            fprintf(stderr, "settle: %s: %s is a video, not a result of settle; refusing to "
                            "overwrite it (was its file name forgotten?)\n", p.v[i].opt, p.v[i].path);
            ret = EXIT_USAGE;
        }
    }
    if (ret)
        goto end;
    if (p.n > 1) /* qsort needs a valid pointer even for no element */
        qsort(p.v, p.n, sizeof(*p.v), cmp_planned);
    for (size_t i = 1; i < p.n; i++) {
        if (!strcmp(p.v[i].path, p.v[i - 1].path)) {
            const Planned *x = &p.v[i - 1], *y = &p.v[i];
            fprintf(stderr, "settle: %s would be written twice (%s%s%s, %s%s%s)\n", y->path,
                    x->opt, x->input ? " for " : "", x->input ? x->input : "", y->opt,
                    y->input ? " for " : "", y->input ? y->input : "");
            ret = EXIT_USAGE;
            break;
        }
    }
    if (ret)
        goto end;
    for (int k = 0; k < 2; k++) {
        if (dirs[k][1] && out_mkdirs(dirs[k][1]) < 0) {
            fprintf(stderr, "settle: %s: %s: %s\n", dirs[k][0], dirs[k][1], strerror(errno));
            ret = EXIT_OUTPUT;
            goto end;
        }
    }
    for (size_t i = 0; i < p.n; i++) {
        if (out_prepare(p.v[i].path) < 0) {
            fprintf(stderr, "settle: %s: %s: %s\n", p.v[i].opt, p.v[i].path, strerror(errno));
            ret = EXIT_OUTPUT;
            goto end;
        }
    }
end:
    if (ret == EXIT_INTERNAL)
        fprintf(stderr, "settle: out of memory\n");
    for (size_t i = 0; i < p.n; i++)
        free(p.v[i].path);
    free(p.v);
    out_guard_free(&g);
    return ret;
}

enum { OPT_CSV = 1000, OPT_JSON, OPT_PER_FRAME, OPT_SKIP, OPT_LABEL, OPT_FILES_FROM,
       OPT_SHARD, OPT_PLOT, OPT_PLOT_SCRIPT, OPT_FRAMES, OPT_REPORT, OPT_STRICT, OPT_DB,
       OPT_MARKS, OPT_TABLE = OPT_MARKS + CLI_MARKS_NOPTS };

/* The options whose value names a file or a folder, as the user spells them. */
static const char *file_option(int c)
{
    switch (c) {
    case OPT_CSV: return "--csv";
    case OPT_JSON: return "--json";
    case 'o': return "-o";
    case OPT_FILES_FROM: return "--files-from";
    case OPT_PLOT: return "--plot";
    case OPT_PLOT_SCRIPT: return "--plot-script";
    case OPT_FRAMES: return "--frames";
    case OPT_REPORT: return "--report";
    case OPT_DB: return "--db";
    case OPT_MARKS: return "--marks";
    case OPT_MARKS + 5: return "--marks-csv";
    default: return NULL;
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What the command line says besides the Batch's own settings. */
typedef struct AnalyzeArgs {
    int jobs, shard_k, shard_n;
    InputList in;
    const char **files_from;
    int nfiles_from;
} AnalyzeArgs;

/* Returned by the parsers for --help: done, exit 0. */
#define ARGS_HELP (-1)

/* One option of analyze's own (getopt_long's answer c). Returns 0, an exit
 * code or ARGS_HELP. */
static int parse_option(Batch *b, AnalyzeArgs *a, int c, char **argv,
                        const struct option *longopts, int ntable)
{
    const char *fopt = file_option(c);
    int ret;
    if (fopt && (ret = cli_file_value(fopt, optarg)))
        return ret;
    switch (c) {
    case OPT_CSV: b->csv = optarg; break;
    case OPT_JSON: b->json = optarg; break;
    case 'o': b->dir = optarg; break;
    case OPT_PER_FRAME: b->per_frame = 1; break;
    case OPT_STRICT: b->strict = 1; break;
    case OPT_PLOT: b->plot = optarg; break;
    case OPT_PLOT_SCRIPT: b->plot_script = optarg; break;
    case OPT_FRAMES: b->frames = optarg; break;
    case OPT_REPORT: b->report = optarg; break;
    case OPT_DB: b->db = optarg; break;
    case OPT_SKIP: b->skip_existing = 1; break;
    case OPT_LABEL: {
        const char *eq = strchr(optarg, '=');
        if (!eq || eq == optarg) {
            fprintf(stderr, "settle: --label: expected KEY=VALUE, got '%s'\n", optarg);
            return EXIT_USAGE;
        }
        b->labels[b->nlabels++] = optarg;
        break;
    }
    case OPT_FILES_FROM: a->files_from[a->nfiles_from++] = optarg; break;
    case 'j': {
        char *e;
        long v = strtol(optarg, &e, 10);
        if (e == optarg || *e || v < 1 || v > CLI_MAX_CONTEXTS) {
            fprintf(stderr, "settle: --jobs: expected 1 to %d, got '%s'\n", CLI_MAX_CONTEXTS,
                    optarg);
            return EXIT_USAGE;
        }
        a->jobs = (int)v;
        break;
    }
    case OPT_SHARD:
        if (shard_parse(optarg, &a->shard_k, &a->shard_n) < 0) {
            fprintf(stderr, "settle: --shard: expected K/N with 1 <= K <= N, got '%s'\n", optarg);
            return EXIT_USAGE;
        }
        break;
    case 'q': b->quiet = 1; break;
    case 'v': b->verbose++; break;
    case 'h':
        usage_analyze(stdout);
        return ARGS_HELP;
    case '?':
    case ':':
        cli_bad_option("analyze", argv, longopts, c);
        return EXIT_USAGE;
    default:
        if (c >= OPT_MARKS && c < OPT_TABLE)
            return cli_marks_option(&b->marks, c - OPT_MARKS, optarg);
        if (c >= OPT_TABLE && c < OPT_TABLE + ntable)
            return cli_set_option(&b->s, settle_options()[c - OPT_TABLE].name, optarg);
    }
    return 0;
}

/* The options that only make sense together, checked once all are read. */
static int check_args(Batch *b, const AnalyzeArgs *a)
{
    if (a->in.n < 1 && !a->nfiles_from) {
        fprintf(stderr, "settle: analyze: no capture given; see 'settle help analyze'\n");
        return EXIT_USAGE;
    }
    if (b->csv && strcmp(b->csv, "-") && a->in.n > 1 && !strstr(b->csv, "%n")) {
        fprintf(stderr, "settle: --csv: several captures need a file name with %%n "
                        "(the capture's name) or '-', got '%s'\n", b->csv);
        return EXIT_USAGE;
    }
    if (b->csv && b->json && !strcmp(b->csv, "-") && !strcmp(b->json, "-")) {
        fprintf(stderr, "settle: --csv and --json cannot both go to stdout\n");
        return EXIT_USAGE;
    }
    if (b->plot && a->in.n > 1 && !strstr(b->plot, "%n")) {
        fprintf(stderr, "settle: --plot: several captures need a file name with %%n "
                        "(the capture's name), got '%s'\n", b->plot);
        return EXIT_USAGE;
    }
    if ((b->plot && !strcmp(b->plot, "-")) || (b->report && !strcmp(b->report, "-"))) {
        fprintf(stderr, "settle: --%s: expected a file name, got '-'\n", b->plot ? "plot" : "report");
        return EXIT_USAGE;
    }
    if (b->plot_script && access(b->plot_script, R_OK)) {
        fprintf(stderr, "settle: --plot-script: %s: %s\n", b->plot_script, strerror(errno));
        return EXIT_USAGE;
    }
    if ((b->per_frame || b->skip_existing) && !b->dir) {
        fprintf(stderr, "settle: --%s needs -o DIR\n", b->per_frame ? "per-frame" : "skip-existing");
        return EXIT_USAGE;
    }
    char err[256];
    if (settle_settings_check(&b->s, err, sizeof(err)) < 0) {
        fprintf(stderr, "settle: %s\n", err);
        return EXIT_USAGE;
    }
    return cli_marks_load(&b->marks, a->in.n,
                          (b->csv && !strcmp(b->csv, "-")) || (b->json && !strcmp(b->json, "-")));
}

static int no_memory(void)
{
    fprintf(stderr, "settle: out of memory\n");
    return EXIT_INTERNAL;
}

/* The command line into b and a. Returns 0, an exit code or ARGS_HELP. */
static int parse_args(Batch *b, AnalyzeArgs *a, int argc, char **argv)
{
    static const struct option own[] = {
        { "csv", required_argument, NULL, OPT_CSV },
        { "json", required_argument, NULL, OPT_JSON },
        { "output-dir", required_argument, NULL, 'o' },
        { "per-frame", no_argument, NULL, OPT_PER_FRAME },
        { "skip-existing", no_argument, NULL, OPT_SKIP },
        { "label", required_argument, NULL, OPT_LABEL },
        { "files-from", required_argument, NULL, OPT_FILES_FROM },
        { "jobs", required_argument, NULL, 'j' },
        { "shard", required_argument, NULL, OPT_SHARD },
        { "plot", required_argument, NULL, OPT_PLOT },
        { "plot-script", required_argument, NULL, OPT_PLOT_SCRIPT },
        { "frames", required_argument, NULL, OPT_FRAMES },
        { "report", required_argument, NULL, OPT_REPORT },
        { "db", required_argument, NULL, OPT_DB },
        { "strict", no_argument, NULL, OPT_STRICT },
        { "marks", required_argument, NULL, OPT_MARKS + 0 },
        { "mark-regex", required_argument, NULL, OPT_MARKS + 1 },
        { "marks-zero", required_argument, NULL, OPT_MARKS + 2 },
        { "marks-anchor", required_argument, NULL, OPT_MARKS + 3 },
        { "mark-run", required_argument, NULL, OPT_MARKS + 4 },
        { "marks-csv", required_argument, NULL, OPT_MARKS + 5 },
        { NULL, 0, NULL, 0 },
    };
    int ntable = 0, ret = 0;
    struct option *longopts = cli_longopts(own, OPT_TABLE, &ntable);
    b->labels = calloc((size_t)argc, sizeof(*b->labels));
    a->files_from = calloc((size_t)argc, sizeof(*a->files_from));
    if (!longopts || !b->labels || !a->files_from || cli_marks_init(&b->marks, argc) < 0) {
        free(longopts);
        return no_memory();
    }
    int c;
    optind = 1;
    opterr = 0;
    while (!ret && (c = getopt_long(argc, argv, ":qvho:j:", longopts, NULL)) != -1)
        ret = parse_option(b, a, c, argv, longopts, ntable);
    free(longopts);
    if (ret)
        return ret;
    for (int i = optind; i < argc; i++)
        if (inputs_add(&a->in, argv[i]) < 0)
            return no_memory();
    for (int i = 0; i < a->nfiles_from; i++) {
        if (inputs_read(&a->in, a->files_from[i]) < 0) {
            if (errno == ENOMEM)
                return no_memory();
            fprintf(stderr, "settle: --files-from: %s: %s\n", a->files_from[i], strerror(errno));
            return EXIT_USAGE;
        }
    }
    return check_args(b, a);
}

/* Every capture once, and only this shard's: b->jobs. */
static int make_jobs(Batch *b, const AnalyzeArgs *a)
{
    const InputList *in = &a->in;
    int ret = EXIT_OK;
    size_t kept = 0;
    b->jobs = calloc(in->n ? in->n : 1, sizeof(*b->jobs));
    char **keys = calloc(in->n ? in->n : 1, sizeof(*keys));
    if (!b->jobs || !keys) {
        free(keys);
        return no_memory();
    }
    for (size_t i = 0; i < in->n; i++) {
        char *key = input_key(in->v[i]);
        if (!key) {
            for (size_t q = 0; q < i; q++)
                free(keys[q]);
            free(keys);
            return no_memory();
        }
        keys[i] = key;
    }
    if (b->dir) {
        /* the same capture twice would race for one result file */
        char **sorted = malloc(in->n * sizeof(*sorted) + 1);
        if (sorted) {
            memcpy(sorted, keys, in->n * sizeof(*sorted));
            qsort(sorted, in->n, sizeof(*sorted), cmp_str);
            for (size_t i = 1; i < in->n; i++) {
                if (!strcmp(sorted[i], sorted[i - 1])) {
                    fprintf(stderr, "settle: %s: given more than once\n", sorted[i]);
                    ret = EXIT_USAGE;
                }
            }
            free(sorted);
        }
    }
    for (size_t i = 0; i < in->n && ret == EXIT_OK; i++) {
        if (a->shard_n && !shard_take(keys[i], a->shard_k, a->shard_n))
            continue;
        Job *j = &b->jobs[kept++];
        b->n = kept;
        j->input = in->v[i];
        if (!(j->stem = result_stem(keys[i])))
            ret = EXIT_INTERNAL;
    }
    for (size_t i = 0; i < in->n; i++)
        free(keys[i]);
    free(keys);
    if (!ret)
        b->n = kept;
    return ret;
}

/* The outputs checked and their folders made, the number of workers and the
 * decoders' threads, the log levels and the JSON file: all before the first
 * capture. */
static int prepare(Batch *b, AnalyzeArgs *a, int *jobs)
{
    int ret;
    if ((ret = check_outputs(b, &a->in, a->files_from, a->nfiles_from)))
        return ret;
    progress_enable(!b->quiet);
    int cores = cli_cores();
    if (!*jobs)
        *jobs = cores;
    if ((size_t)*jobs > b->n)
        *jobs = b->n ? (int)b->n : 1;
    /* share the cores between the decoders unless told otherwise */
    if (*jobs > 1 && b->s.threads == 0)
        b->s.threads = cores / *jobs > 1 ? cores / *jobs : 1;
    settle_codec_log_level(b->verbose > 1 ? SETTLE_LOG_WARNING : b->verbose ? SETTLE_LOG_ERROR : -1);
    b->s.log_level = b->verbose ? SETTLE_LOG_INFO : SETTLE_LOG_WARNING;
    /* the summary moves to stderr when stdout carries data */
    b->summary = (b->csv && !strcmp(b->csv, "-")) || (b->json && !strcmp(b->json, "-")) ||
                         (b->marks.csv && !strcmp(b->marks.csv, "-"))
                     ? stderr
                     : stdout;
    if (b->json && out_open(&b->jout, b->json) < 0) {
        fprintf(stderr, "settle: --json: %s: %s\n", b->json, strerror(errno));
        return EXIT_OUTPUT;
    }
    if (b->db && (ret = cli_store_open(&b->hist, b->db)) != 0) {
        out_abort(&b->jout);
        return ret;
    }
    return 0;
}

/* The captures analysed by `jobs` workers (this thread the first), then what
 * is written once for all: the report and the JSON file. */
static int run_batch(Batch *b, int jobs)
{
    cli_catch_signals();
    pthread_mutex_init(&b->lock, NULL);
    Worker *workers = calloc((size_t)jobs, sizeof(*workers));
    if (!workers) {
        out_abort(&b->jout);
        pthread_mutex_destroy(&b->lock);
        return no_memory();
    }
    for (int i = 0; i < jobs; i++) {
        workers[i] = (Worker){ .b = b, .id = i };
        if (i == 0)
            continue; /* the first runs on this thread */
        workers[i].started = pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) == 0;
    }
    worker_main(&workers[0]);
    for (int i = 1; i < jobs; i++)
        if (workers[i].started)
            pthread_join(workers[i].thread, NULL);
    progress_clear();
    for (int i = 0; i < jobs; i++)
        b->ret = worse(b->ret, workers[i].ret);
    free(workers);
    pthread_mutex_destroy(&b->lock);
    int ret = b->ret;
    if (b->emitted < b->n && !cli_stop) {
        fprintf(stderr, "settle: %zu captures were not analysed\n", b->n - b->emitted);
        ret = worse(ret, EXIT_INTERNAL);
    }
    for (size_t i = b->emitted; i < b->n && !b->quiet; i++)
        fprintf(b->summary, "%s: not analysed: %s\n", b->jobs[i].input,
                cli_stop ? "interrupted" : "internal error");
    OutFile report;
    int report_started = 0;
    if (b->report)
        ret = worse(ret, write_report(b, &report, &report_started));
    ret = worse(ret, commit_last(b, &report, report_started));
    if (cli_stop)
        ret = worse(ret, EXIT_SIGNAL);
    return ret;
}

int cmd_analyze(int argc, char **argv)
{
    Batch b;
    memset(&b, 0, sizeof(b));
    settle_default_settings(&b.s);
    AnalyzeArgs a = { 0 };
    int ret = parse_args(&b, &a, argc, argv);
    if (ret == ARGS_HELP)
        ret = EXIT_OK;
    else if (!ret && !(ret = make_jobs(&b, &a)) && !(ret = prepare(&b, &a, &a.jobs)))
        ret = run_batch(&b, a.jobs);
    for (size_t i = 0; b.jobs && i < b.n; i++) {
        free(b.jobs[i].stem);
        free(b.jobs[i].out);
        free(b.jobs[i].err);
        free(b.jobs[i].json);
        free(b.jobs[i].csv);
        free(b.jobs[i].rjson);
        free(b.jobs[i].plot_note);
        free(b.jobs[i].plot_png);
        free(b.jobs[i].strip_png);
        free(b.jobs[i].answer_png);
        free(b.jobs[i].answer_caption);
        free(b.jobs[i].plot_name);
        cli_marks_pictures_free(&b.jobs[i].mark_pics, b.jobs[i].nmark_pics);
    }
    free(b.jobs);
    inputs_free(&a.in);
    settle_history_close(&b.hist);
    cli_marks_free(&b.marks);
    free(b.labels);
    free(a.files_from);
    return ret;
}
