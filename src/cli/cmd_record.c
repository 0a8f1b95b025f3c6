/* SPDX-License-Identifier: BSD-2-Clause */
/* settle record: capture live, launch the app, stop when the screen has settled. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "settle/capture.h"
#include "settle/stats.h"

#include "cli.h"
#include "inputs.h"
#include "output.h"

extern char **environ;

/* A picture must come within this many seconds of opening the input. */
#define FIRST_PICTURE_WAIT 10.0
/* How long a launched process group has to end after SIGTERM. */
#define TERM_WAIT 2.0
/* How long an input that worked in the previous run may take to reopen. */
#define REOPEN_WAIT 3.0

void usage_record(FILE *f)
{
    fprintf(f,
            "usage: settle record [OPTIONS] -- COMMAND [ARGS...]\n"
            "\n"
            "Captures the screen, runs COMMAND (the launch) after a pre-roll, analyses the\n"
            "pictures as they arrive and stops when the screen has settled. The load time\n"
            "counts from the launch. Writes the capture (DIR/NAME.mkv) and its result\n"
            "(DIR/NAME-HASH.json, as 'settle analyze -o DIR DIR/NAME.mkv' names it).\n"
            "\n"
            "Capture:\n"
            "  -i, --input INPUT x11grab:DISPLAY[+X,Y]  an X display (\":99\", \":0+0,0\")\n"
            "                    v4l2:/dev/videoN       a capture dongle or webcam\n"
            "                    lavfi:GRAPH            a libavfilter source (tests)\n"
            "                    -                      raw H.264 or Matroska on stdin (one run)\n"
            "                    FORMAT:URL             another libavdevice input\n"
            "  --video-size WxH  capture size (x11grab: the area from X,Y; v4l2)\n"
            "  --framerate FPS   capture rate (default 30 for x11grab)\n"
            "  --pixel-format F  v4l2 input format (mjpeg, yuyv422, ...)\n"
            "  --input-format F  format of '-' (h264, hevc, matroska; default probed)\n"
            "  --encoder E       x264 (lossless H.264, default) or ffv1\n"
            "  --encoder-threads N\n"
            "                    encoder threads (default: the encoder's choice)\n"
            "  --queue N         pictures held while the encoder catches up (default 120)\n"
            "  --draw-mouse      draw the pointer (x11grab)\n"
            "\n"
            "Run:\n"
            "  --pre-roll S      seconds recorded before the launch (default 1)\n"
            "  --tail S          seconds recorded after the screen settled (default 1)\n"
            "  --max S           stop this many seconds after the launch at the latest\n"
            "                    (default 60); the result is then not stable\n"
            "  --keep-running    leave COMMAND's process group running at the end\n"
            "  --repeat N        N runs, each its own capture and result, labelled run=K\n"
            "  --between CMD     shell command run between two runs (reset, clear caches)\n"
            "  --summary FILE    the N load times' median and spread as JSON ('-' = stdout;\n"
            "                    default: one line on stdout with --repeat)\n"
            "  --name NAME       capture name (default record-YYYYMMDD-HHMMSS)\n"
            "\n"
            "Outputs (as for analyze):\n"
            "  -o, --output-dir DIR\n"
            "                    where the captures and results go (default .)\n"
            "  --per-frame       also DIR/NAME-HASH.csv, the per-frame CSV\n"
            "  --json FILE       one JSON line per run ('-' = stdout)\n"
            "  --csv FILE        per-frame CSV, %%n = the capture's name ('-' = stdout)\n"
            "  --label KEY=VALUE copied into every result's \"labels\" (repeatable)\n"
            "  -q, --quiet       no summary lines\n"
            "  -v, --verbose     more messages\n"
            "\n"
            "Analysis: every option of 'settle help analyze'. --start defaults to the\n"
            "launch. Recording stops when, after the first change that follows the launch,\n"
            "the screen was quiet for --settle seconds (2 when --settle is not given) and\n"
            "then --tail more; a screen that stays blank after the launch never stops it.\n"
            "\n"
            "COMMAND runs in its own process group, with its standard output sent to\n"
            "standard error; it is ended (SIGTERM, then SIGKILL) when the run ends unless\n"
            "--keep-running. ^C or SIGTERM stops cleanly: the capture so far is kept, the\n"
            "result is partial, no child is left running.\n"
            "\n"
            "Exit codes: those of analyze (the highest of the runs); 3 also when the input\n"
            "could not be captured or COMMAND could not be started.\n");
}

typedef struct Record {
    SettleCaptureSettings cs;
    SettleSettings s;
    int start_given, settle_given;
    double preroll, tail, max;
    int keep_running, repeat, per_frame, quiet, verbose;
    const char *between, *summary, *dir, *json, *csv;
    char name[256];
    char **labels;
    int nlabels;
    char **cmd;
    OutFile jout;
} Record;

/* What one run measured, for the summary. */
typedef struct Run {
    int code;
    double load_time;
} Run;

/* The launch, made by its own thread at the capture's pre-roll time. */
typedef struct Launch {
    SettleCapture *cap;
    const Record *rec;
    double at;         /* capture time to launch at */
    pthread_t thread;
    int started;
    volatile int cancel;
    pid_t pid;         /* -1 when it could not start; read once `done` */
    double time;       /* capture time of the launch; read once `done` */
    int err;
    atomic_int done;   /* set by the launch thread after pid, time and err */
} Launch;

/* The launched process group: 0 before the launch, -1 when it failed. */
static pid_t launched(Launch *l)
{
    return atomic_load(&l->done) ? l->pid : 0;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };
    while (nanosleep(&ts, &ts) && errno == EINTR && !cli_stop)
        ;
}

/* Starts argv in a process group of its own, standard output to standard
 * error (settle's own stdout stays clean) and, when settle reads its stdin,
 * standard input from nowhere. */
static pid_t spawn(char **argv, int stdin_busy, int *err)
{
    posix_spawnattr_t at;
    posix_spawn_file_actions_t fa;
    sigset_t def, none;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    if (stdin_busy)
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int r = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    *err = r;
    return r ? -1 : pid;
}

static void *launch_main(void *opaque)
{
    Launch *l = opaque;
    for (;;) {
        if (l->cancel || cli_stop)
            return NULL;
        double t = settle_capture_clock(l->cap);
        if (isnan(t)) {
            nap(0.001);
            continue;
        }
        if (t >= l->at)
            break;
        double left = l->at - t;
        /* the clock can jump ahead (a better estimate, a stream read faster
         * than real time): look again often */
        nap(left > 0.011 ? 0.01 : left > 0.002 ? left - 0.001 : 0.0002);
    }
    l->time = settle_capture_clock(l->cap);
    l->pid = spawn(l->rec->cmd, !strcmp(l->rec->cs.input, "-"), &l->err);
    atomic_store(&l->done, 1);
    return NULL;
}

/* Whether the group has no live process left; reaps what ended. */
static int group_gone(pid_t pgid)
{
    while (waitpid(-pgid, NULL, WNOHANG) > 0)
        ;
    return kill(-pgid, 0) < 0 && errno == ESRCH;
}

/* Ends the process group: SIGTERM, then SIGKILL after TERM_WAIT. */
static void end_group(pid_t pgid, const char *what)
{
    if (group_gone(pgid))
        return;
    kill(-pgid, SIGTERM);
    for (double t0 = mono(); mono() - t0 < TERM_WAIT; nap(0.02))
        if (group_gone(pgid))
            return;
    kill(-pgid, SIGKILL);
    for (double t0 = mono(); mono() - t0 < TERM_WAIT; nap(0.02))
        if (group_gone(pgid))
            return;
    fprintf(stderr, "settle: warning: %s: process group %d did not end\n", what, (int)pgid);
}

/* Runs --between in its own process group and waits for it. */
static int run_between(const Record *r)
{
    char *argv[] = { "/bin/sh", "-c", (char *)r->between, NULL };
    int err;
    pid_t pid = spawn(argv, !strcmp(r->cs.input, "-"), &err);
    if (pid < 0) {
        fprintf(stderr, "settle: --between: cannot run /bin/sh: %s\n", strerror(err));
        return EXIT_INPUT;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        if (cli_stop) {
            end_group(pid, "--between");
            return EXIT_SIGNAL;
        }
    end_group(pid, "--between");
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        fprintf(stderr, "settle: warning: --between: '%s' failed (status %d)\n", r->between,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return EXIT_OK;
}

/* The stop rule, with --settle as the analysis defines it: only quiet after
 * the first change that follows the launch counts. */
typedef struct StopRule {
    double start, quiet, tail;
    int have_start, changed, locked;
    int64_t last_index;
    double last_change;  /* time of the latest change (after the first) */
    double stable;       /* the change followed by `quiet` seconds, once locked */
} StopRule;

static void rule_frame(StopRule *st, const SettleFrame *f)
{
    if (f->index == st->last_index || f->time < st->start - 1e-9)
        return;
    st->last_index = f->index;
    if (!st->have_start) {
        st->have_start = 1; /* the start frame: its change is the launch's, not the app's */
        return;
    }
    if (f->quiet || st->locked)
        return;
    if (st->changed && f->time - st->last_change >= st->quiet - 1e-9) {
        st->locked = 1;
        st->stable = st->last_change;
        return;
    }
    st->changed = 1;
    st->last_change = f->time;
}

static int rule_done(StopRule *st, double now)
{
    if (!st->locked && st->changed && now - st->last_change >= st->quiet - 1e-9) {
        st->locked = 1;
        st->stable = st->last_change;
    }
    return st->locked && now - st->stable >= st->quiet + st->tail - 1e-9;
}

static void log_cb(void *opaque, SettleLogLevel level, const char *msg)
{
    (void)opaque;
    fprintf(stderr, "settle: %s%s\n", level == SETTLE_LOG_WARNING ? "warning: " : "", msg);
}

static int write_result(SettleContext *ctx, const char *path, int csv)
{
    OutFile o;
    if (out_open(&o, path) < 0) {
        fprintf(stderr, "settle: %s: %s\n", path, strerror(errno));
        return EXIT_OUTPUT;
    }
    int r = csv ? settle_write_csv(ctx, o.f) : settle_write_json(ctx, o.f);
    if (r < 0 || out_commit(&o) < 0) {
        fprintf(stderr, "settle: %s: cannot write: %s\n", path, strerror(errno ? errno : EIO));
        out_abort(&o);
        return EXIT_OUTPUT;
    }
    return EXIT_OK;
}

/* %n in --csv: the capture's base name without its extension. */
static char *csv_path(const char *pattern, const char *name)
{
    const char *n = strstr(pattern, "%n");
    if (!n)
        return strdup(pattern);
    size_t len = strlen(pattern) + strlen(name);
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%.*s%s%s", (int)(n - pattern), pattern, name, n + 2);
    return p;
}

/* Results of one run, as analyze -o writes them. */
static int write_outputs(Record *r, SettleContext *ctx, const char *capture, const char *base,
                         const SettleResult *res)
{
    int code = EXIT_OK;
    char *key = input_key(capture);
    char *stem = key ? result_stem(key) : NULL;
    char *jpath = stem ? cli_join(r->dir, stem, ".json") : NULL;
    char *cpath = stem ? cli_join(r->dir, stem, ".csv") : NULL;
    if (!jpath || !cpath) {
        code = EXIT_INTERNAL;
        goto end;
    }
    code = write_result(ctx, jpath, 0);
    if (r->per_frame && res->frames > 0) {
        int c = write_result(ctx, cpath, 1);
        code = c > code ? c : code;
    }
    if (r->jout.f && settle_write_json(ctx, r->jout.f) < 0) {
        fprintf(stderr, "settle: --json: %s: cannot write\n", r->json);
        code = EXIT_OUTPUT;
    }
    if (r->csv && res->frames > 0) {
        char *p = strcmp(r->csv, "-") ? csv_path(r->csv, base) : NULL;
        if (!p && strcmp(r->csv, "-")) {
            code = EXIT_INTERNAL;
        } else if (!p) {
            if (settle_write_csv(ctx, stdout) < 0)
                code = EXIT_OUTPUT;
        } else {
            int c = write_result(ctx, p, 1);
            code = c > code ? c : code;
        }
        free(p);
    }
end:
    free(key);
    free(stem);
    free(jpath);
    free(cpath);
    return code;
}

typedef enum Why { WHY_SETTLED, WHY_MAX, WHY_SIGNAL, WHY_INPUT, WHY_ERROR } Why;

/* A picture taken at or after the pre-roll waits for the launch, whose time
 * on the capture's clock then starts the stop rule and (unless --start was
 * given) the analysis, so that the load time counts from the launch itself.
 * Returns 0, or a negative code when the start could not be moved. */
static int await_launch(const Record *r, SettleContext *ctx, Launch *l, StopRule *st,
                        const SettlePicture *p, int *known)
{
    if (*known || p->time < r->preroll - 1e-6)
        return 0;
    while (!launched(l) && !cli_stop)
        nap(0.0005);
    if (launched(l) <= 0)
        return 0; /* the loop reports the failure or the signal */
    *known = 1;
    st->start = l->time;
    return r->start_given ? 0 : settle_set_start_time(ctx, l->time);
}

/* Reads, analyses and launches until the stop rule, --max, a signal or the
 * input's end. Returns why; *err holds the analysis' or the input's error. */
static Why capture_loop(Record *r, SettleCapture *cap, SettleContext *ctx, const char *capture,
                        Launch *l, int *err)
{
    StopRule st = { .start = r->preroll, .quiet = r->settle_given ? r->s.settle : 2.0,
                    .tail = r->tail, .last_index = -1 };
    int begun = 0, known = 0;
    double opened = mono();
    for (;;) {
        if (cli_stop)
            return WHY_SIGNAL;
        SettlePicture p;
        int got = settle_capture_read(cap, &p, 20), ret;
        if (got < 0) {
            *err = got;
            return got == SETTLE_ERR_INTERRUPTED ? WHY_SIGNAL : WHY_INPUT;
        }
        if (got == 1) {
            if (!begun) {
                if ((ret = settle_begin(ctx, capture, p.width, p.height)) < 0) {
                    *err = ret;
                    return WHY_ERROR;
                }
                begun = 1;
                if (pthread_create(&l->thread, NULL, launch_main, l)) {
                    *err = SETTLE_ERR_NOMEM;
                    return WHY_ERROR;
                }
                l->started = 1;
            }
            if ((ret = await_launch(r, ctx, l, &st, &p, &known)) < 0) {
                *err = ret;
                return WHY_ERROR;
            }
            ret = settle_send_picture(ctx, &p);
            if (ret == SETTLE_ERR_INTERRUPTED)
                return WHY_SIGNAL;
            if (ret < 0) {
                *err = ret;
                return WHY_ERROR;
            }
            SettleFrame f;
            if (settle_last_frame(ctx, &f) == 0)
                rule_frame(&st, &f);
        } else if (!begun && mono() - opened > FIRST_PICTURE_WAIT) {
            fprintf(stderr, "settle: %s: no picture in %.0f s\n", r->cs.input, FIRST_PICTURE_WAIT);
            *err = SETTLE_ERR_TOO_SHORT;
            return WHY_ERROR;
        }
        if (launched(l) < 0) {
            fprintf(stderr, "settle: %s: cannot run: %s\n", r->cmd[0], strerror(l->err));
            *err = SETTLE_ERR_INVAL;
            return WHY_ERROR;
        }
        double now = settle_capture_clock(cap);
        if (launched(l) > 0 && now - l->time >= r->max)
            return WHY_MAX;
        /* the quiet is what the analysis saw: up to the picture just measured
         * while the queue is being worked through, up to the time every
         * picture taken has surely arrived once none is waiting (a stream such
         * as screenrecord's sends none while the screen is still) */
        if (launched(l) > 0 &&
            rule_done(&st, got == 1 ? p.time : settle_capture_horizon(cap)))
            return WHY_SETTLED;
    }
}

static const char *why_name(Why w)
{
    switch (w) {
    case WHY_SETTLED: return "settled";
    case WHY_MAX: return "--max reached";
    case WHY_SIGNAL: return "interrupted";
    case WHY_INPUT: return "the input ended";
    default: return "error";
    }
}

static void capture_report(const Record *r, SettleCapture *cap, const char *capture, Why why,
                           Launch *l)
{
    SettleCaptureStats cs;
    settle_capture_stats(cap, &cs);
    if (cs.dropped_queue)
        fprintf(stderr, "settle: warning: %s: %lld pictures dropped: the encoder fell behind\n",
                capture, (long long)cs.dropped_queue);
    if (cs.device_gaps)
        fprintf(stderr, "settle: warning: %s: %lld pictures skipped by the device\n", capture,
                (long long)cs.device_gaps);
    char launch[48] = "not launched";
    if (launched(l) > 0)
        snprintf(launch, sizeof(launch), "launch at %.3f s", l->time);
    if (r->verbose || (!r->quiet && why != WHY_SETTLED && why != WHY_ERROR))
        fprintf(stderr, "settle: %s: %s; %lld pictures %dx%d %s -> %s in %.3f s, %s, %lld "
                        "dropped, %lld skipped by the device, queue peak %d\n",
                capture, why_name(why), (long long)cs.written, cs.width, cs.height,
                cs.pix_fmt ? cs.pix_fmt : "-", cs.encoder ? cs.encoder : "-", cs.duration,
                launch, (long long)cs.dropped_queue, (long long)cs.device_gaps, cs.max_queued);
}

/* Labels of one run: the user's, run=K, the launch and the drops. */
static int add_labels(const Record *r, SettleContext *ctx, int k)
{
    for (int i = 0; i < r->nlabels; i++) {
        const char *eq = strchr(r->labels[i], '=');
        char *key = strndup(r->labels[i], (size_t)(eq - r->labels[i]));
        int e = key ? settle_add_label(ctx, key, eq + 1) : SETTLE_ERR_NOMEM;
        free(key);
        if (e < 0)
            return e;
    }
    char v[32];
    snprintf(v, sizeof(v), "%d", k);
    return r->repeat > 1 ? settle_add_label(ctx, "run", v) : 0;
}

static int finish_labels(SettleContext *ctx, SettleCapture *cap, Launch *l)
{
    SettleCaptureStats cs;
    settle_capture_stats(cap, &cs);
    char v[32];
    int e = 0;
    snprintf(v, sizeof(v), "%.6f", l->time);
    if (launched(l) > 0) /* no label when interrupted before the launch */
        e = settle_add_label(ctx, "launch", v);
    snprintf(v, sizeof(v), "%lld", (long long)(cs.dropped_queue + cs.device_gaps));
    return e < 0 ? e : settle_add_label(ctx, "dropped", v);
}

/* The end of a run: the rest of the queue analysed, the launched group ended,
 * the capture finished and renamed into place, the analysis decided. */
static int finish_run(Record *r, SettleCapture *cap, SettleContext *ctx, Launch *l, Why why,
                      const char *part, const char *capture, const SettleResult **res)
{
    SettlePicture p;
    settle_capture_stop(cap);
    /* what the device gave before the stop belongs to the capture: analyse it too */
    for (double t0 = mono(); why != WHY_SIGNAL && !cli_stop && mono() - t0 < 1.0;) {
        int got = settle_capture_read(cap, &p, 100);
        if (got < 0 || (got == 1 && settle_send_picture(ctx, &p) < 0))
            break;
    }
    l->cancel = 1;
    if (l->started)
        pthread_join(l->thread, NULL);
    if (launched(l) > 0 && !r->keep_running)
        end_group(l->pid, r->cmd[0]);
    char err[512];
    int code = EXIT_OK;
    int cr = settle_capture_finish(cap, err, sizeof(err));
    if (cr == SETTLE_ERR_TOO_SHORT) {
        unlink(part);
    } else if (cr < 0) {
        fprintf(stderr, "settle: %s\n", err);
        code = EXIT_OUTPUT;
    }
    if (cr != SETTLE_ERR_TOO_SHORT && rename(part, capture)) {
        fprintf(stderr, "settle: %s: %s\n", capture, strerror(errno));
        code = EXIT_OUTPUT;
    }
    if (why == WHY_SIGNAL || cli_stop)
        settle_interrupt(ctx);
    int ret = settle_finish(ctx, res);
    if (cr == SETTLE_ERR_TOO_SHORT && (why == WHY_INPUT || why == WHY_ERROR))
        return EXIT_INPUT;
    int oc = cli_outcome_code(ret);
    return oc > code ? oc : code;
}

static void print_result(const Record *r, const char *capture, const SettleResult *res)
{
    if (res->stable_frame >= 0 && !r->quiet)
        printf("%s: stable at %.3f s (frame %lld of %lld), load time %.3f s [%s]%s\n", capture,
               res->stable_time, (long long)res->stable_frame, (long long)res->frames,
               res->load_time, settle_method_name(res->method), res->partial ? " (partial)" : "");
    if (res->error && res->error_message)
        fprintf(stderr, "settle: %s: %s%s\n", capture, res->error_message,
                res->partial ? " (result partial)" : "");
    fflush(stdout);
}

static int record_once(Record *r, int k, Run *run)
{
    char base[300], fname[320];
    if (r->repeat > 1)
        snprintf(base, sizeof(base), "%s-run%d", r->name, k);
    else
        snprintf(base, sizeof(base), "%s", r->name);
    snprintf(fname, sizeof(fname), "%s.mkv", base);
    char *capture = cli_join(r->dir, fname, "");
    char *part = cli_join(r->dir, fname, ".part");
    SettleContext *ctx = NULL;
    SettleCapture *cap = NULL;
    Launch l = { .rec = r, .at = r->preroll };
    int code = EXIT_OK;
    run->load_time = NAN;
    if (!capture || !part || settle_open(&ctx, &r->s) < 0 || add_labels(r, ctx, k) < 0) {
        code = EXIT_INTERNAL;
        goto end;
    }
    cli_watch_context(0, ctx);
    SettleCaptureSettings cs = r->cs;
    cs.output = part;
    char err[512];
    int oe;
    /* an input that worked in the run before gets REOPEN_WAIT seconds to come
     * back: an X server resets when its last client leaves */
    for (double t0 = mono(); (oe = settle_capture_open(&cap, &cs, err, sizeof(err))) ==
                                 SETTLE_ERR_FORMAT && k > 1 && !cli_stop &&
                             mono() - t0 < REOPEN_WAIT;)
        nap(0.05);
    if (oe < 0) {
        fprintf(stderr, "settle: %s\n", err);
        code = EXIT_INPUT;
        goto end;
    }
    l.cap = cap;
    int lerr = 0;
    Why why = capture_loop(r, cap, ctx, capture, &l, &lerr);
    if (why == WHY_INPUT && lerr != SETTLE_ERR_TOO_SHORT)
        fprintf(stderr, "settle: %s\n", settle_capture_error(cap));
    if (why == WHY_ERROR && lerr != SETTLE_ERR_TOO_SHORT && lerr != SETTLE_ERR_INVAL)
        fprintf(stderr, "settle: %s: %s\n", capture, settle_strerror(lerr));
    const SettleResult *res = NULL;
    code = finish_run(r, cap, ctx, &l, why, part, capture, &res);
    if (why == WHY_ERROR && code < EXIT_INPUT)
        code = EXIT_INPUT;
    capture_report(r, cap, capture, why, &l);
    if (res && res->frames > 0) {
        if (finish_labels(ctx, cap, &l) < 0) {
            code = EXIT_INTERNAL;
            goto end;
        }
        print_result(r, capture, res);
        int wc = write_outputs(r, ctx, capture, base, res);
        code = wc > code ? wc : code;
        if (res->stable_frame >= 0)
            run->load_time = res->load_time;
    }
end:
    run->code = code;
    cli_watch_context(0, NULL);
    settle_capture_close(&cap);
    settle_close(&ctx);
    free(capture);
    free(part);
    return code;
}

/* The N load times: one line on stdout, or JSON into --summary FILE. */
static int write_summary(const Record *r, const Run *runs, int n)
{
    double *v = calloc((size_t)n + 1, sizeof(*v));
    if (!v)
        return EXIT_INTERNAL;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(runs[i].load_time))
            v[k++] = runs[i].load_time;
    SettleSummary sm;
    if (settle_summarize(v, (size_t)k, &sm) < 0) {
        free(v);
        return EXIT_INTERNAL;
    }
    int code = EXIT_OK;
    if (!r->summary) {
        if (!r->quiet && k > 0)
            printf("settle record: %d runs, %d stable: load time median %.3f s, min %.3f s, "
                   "max %.3f s, spread %.3f s%s\n", n, k, sm.median, sm.min, sm.max,
                   sm.max - sm.min, k > 1 ? "" : " (one value)");
        else if (!r->quiet)
            printf("settle record: %d runs, none stable\n", n);
        free(v);
        return EXIT_OK;
    }
    OutFile o;
    if (out_open(&o, r->summary) < 0) {
        fprintf(stderr, "settle: --summary: %s: %s\n", r->summary, strerror(errno));
        free(v);
        return EXIT_OUTPUT;
    }
    fprintf(o.f, "{\"runs\": %d, \"stable\": %d, \"load_times\": [", n, k);
    for (int i = 0; i < n; i++) {
        if (isfinite(runs[i].load_time))
            fprintf(o.f, "%s%.6f", i ? ", " : "", runs[i].load_time);
        else
            fprintf(o.f, "%snull", i ? ", " : "");
    }
    if (k)
        fprintf(o.f, "], \"median\": %.6f, \"min\": %.6f, \"max\": %.6f, \"spread\": %.6f}\n",
                sm.median, sm.min, sm.max, sm.max - sm.min);
    else
        fprintf(o.f, "], \"median\": null, \"min\": null, \"max\": null, \"spread\": null}\n");
    if (out_commit(&o) < 0) {
        fprintf(stderr, "settle: --summary: %s: cannot write: %s\n", r->summary, strerror(errno));
        out_abort(&o);
        code = EXIT_OUTPUT;
    }
    free(v);
    return code;
}

static int parse_seconds(const char *opt, const char *arg, double lo, double *out)
{
    char *e;
    double v = strtod(arg, &e);
    if (e == arg || *e || !isfinite(v) || v < lo || v > 86400) {
        fprintf(stderr, "settle: --%s: expected seconds from %g to 86400, got '%s'\n", opt, lo, arg);
        return EXIT_USAGE;
    }
    *out = v;
    return 0;
}

static int parse_int(const char *opt, const char *arg, int lo, int hi, int *out)
{
    char *e;
    long v = strtol(arg, &e, 10);
    if (e == arg || *e || v < lo || v > hi) {
        fprintf(stderr, "settle: --%s: expected %d to %d, got '%s'\n", opt, lo, hi, arg);
        return EXIT_USAGE;
    }
    *out = (int)v;
    return 0;
}

enum { OPT_VSIZE = 1000, OPT_RATE, OPT_PIXFMT, OPT_INFMT, OPT_ENCODER, OPT_ETHREADS, OPT_QUEUE,
       OPT_MOUSE, OPT_PREROLL, OPT_TAIL, OPT_MAX, OPT_KEEP, OPT_REPEAT, OPT_BETWEEN, OPT_SUMMARY,
       OPT_NAME, OPT_PER_FRAME, OPT_JSON, OPT_CSV, OPT_LABEL, OPT_TABLE };

static int own_option(Record *r, int c, const char *arg)
{
    switch (c) {
    case 'i': r->cs.input = arg; return 0;
    case 'o': r->dir = arg; return 0;
    case OPT_VSIZE: r->cs.video_size = arg; return 0;
    case OPT_RATE: r->cs.framerate = arg; return 0;
    case OPT_PIXFMT: r->cs.pixel_format = arg; return 0;
    case OPT_INFMT: r->cs.format = arg; return 0;
    case OPT_ENCODER:
        if (!strcmp(arg, "x264") || !strcmp(arg, "ffv1")) {
            r->cs.encoder = !strcmp(arg, "x264") ? SETTLE_ENCODER_X264 : SETTLE_ENCODER_FFV1;
            return 0;
        }
        fprintf(stderr, "settle: --encoder: expected x264 or ffv1, got '%s'\n", arg);
        return EXIT_USAGE;
    case OPT_ETHREADS: return parse_int("encoder-threads", arg, 0, 64, &r->cs.threads);
    case OPT_QUEUE: return parse_int("queue", arg, 2, 10000, &r->cs.queue);
    case OPT_MOUSE: r->cs.draw_mouse = 1; return 0;
    case OPT_PREROLL: return parse_seconds("pre-roll", arg, 0, &r->preroll);
    case OPT_TAIL: return parse_seconds("tail", arg, 0, &r->tail);
    case OPT_MAX: return parse_seconds("max", arg, 0.001, &r->max);
    case OPT_KEEP: r->keep_running = 1; return 0;
    case OPT_REPEAT: return parse_int("repeat", arg, 1, 10000, &r->repeat);
    case OPT_BETWEEN: r->between = arg; return 0;
    case OPT_SUMMARY: r->summary = arg; return 0;
    case OPT_NAME:
        if (!*arg || strchr(arg, '/') || strlen(arg) > 200) {
            fprintf(stderr, "settle: --name: expected a file name without '/', got '%s'\n", arg);
            return EXIT_USAGE;
        }
        snprintf(r->name, sizeof(r->name), "%s", arg);
        return 0;
    case OPT_PER_FRAME: r->per_frame = 1; return 0;
    case OPT_JSON: r->json = arg; return 0;
    case OPT_CSV: r->csv = arg; return 0;
    case OPT_LABEL:
        if (!strchr(arg, '=') || *arg == '=') {
            fprintf(stderr, "settle: --label: expected KEY=VALUE, got '%s'\n", arg);
            return EXIT_USAGE;
        }
        r->labels[r->nlabels++] = (char *)arg;
        return 0;
    case 'q': r->quiet = 1; return 0;
    case 'v': r->verbose++; return 0;
    default: return EXIT_USAGE;
    }
}

static const struct option record_own[] = {
    { "input", required_argument, NULL, 'i' },
    { "output-dir", required_argument, NULL, 'o' },
    { "video-size", required_argument, NULL, OPT_VSIZE },
    { "framerate", required_argument, NULL, OPT_RATE },
    { "pixel-format", required_argument, NULL, OPT_PIXFMT },
    { "input-format", required_argument, NULL, OPT_INFMT },
    { "encoder", required_argument, NULL, OPT_ENCODER },
    { "encoder-threads", required_argument, NULL, OPT_ETHREADS },
    { "queue", required_argument, NULL, OPT_QUEUE },
    { "draw-mouse", no_argument, NULL, OPT_MOUSE },
    { "pre-roll", required_argument, NULL, OPT_PREROLL },
    { "tail", required_argument, NULL, OPT_TAIL },
    { "max", required_argument, NULL, OPT_MAX },
    { "keep-running", no_argument, NULL, OPT_KEEP },
    { "repeat", required_argument, NULL, OPT_REPEAT },
    { "between", required_argument, NULL, OPT_BETWEEN },
    { "summary", required_argument, NULL, OPT_SUMMARY },
    { "name", required_argument, NULL, OPT_NAME },
    { "per-frame", no_argument, NULL, OPT_PER_FRAME },
    { "json", required_argument, NULL, OPT_JSON },
    { "csv", required_argument, NULL, OPT_CSV },
    { "label", required_argument, NULL, OPT_LABEL },
    { NULL, 0, NULL, 0 },
};

/* Parses the command line into r. Returns 0, or the exit code (-1: --help). */
static int parse_args(Record *r, int argc, char **argv)
{
    const SettleOption *table = settle_options();
    int ntable = 0;
    struct option *longopts = cli_longopts(record_own, OPT_TABLE, &ntable);
    if (!longopts)
        return EXIT_INTERNAL;
    int c, ret = 0;
    optind = 1;
    opterr = 0;
    while (!ret && (c = getopt_long(argc, argv, "+qvhi:o:", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage_record(stdout);
            ret = -1;
        } else if (c == '?' || c == ':') {
            cli_bad_option("record", argv, longopts, c);
            ret = EXIT_USAGE;
        } else if (c >= OPT_TABLE && c < OPT_TABLE + ntable) {
            const char *name = table[c - OPT_TABLE].name;
            r->start_given |= !strcmp(name, "start");
            r->settle_given |= !strcmp(name, "settle");
            ret = cli_set_option(&r->s, name, optarg);
        } else {
            ret = own_option(r, c, optarg);
        }
    }
    free(longopts);
    if (ret)
        return ret;
    r->cmd = argv + optind;
    if (!r->cs.input || optind >= argc) {
        fprintf(stderr, "settle: record: %s; see 'settle help record'\n",
                !r->cs.input ? "no --input given" : "no COMMAND given after --");
        return EXIT_USAGE;
    }
    if (!strcmp(r->cs.input, "-") && r->repeat > 1) {
        fprintf(stderr, "settle: --repeat: standard input carries one recording; run settle "
                        "once per stream, or record from a device\n");
        return EXIT_USAGE;
    }
    if (r->between && r->repeat < 2)
        fprintf(stderr, "settle: warning: --between without --repeat N (N > 1) is not run\n");
    if (r->json && r->csv && !strcmp(r->json, "-") && !strcmp(r->csv, "-")) {
        fprintf(stderr, "settle: --csv and --json cannot both go to stdout\n");
        return EXIT_USAGE;
    }
    return 0;
}

static void default_name(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "record-%Y%m%d-%H%M%S", &tm);
}

int cmd_record(int argc, char **argv)
{
    Record r = { .preroll = 1.0, .tail = 1.0, .max = 60.0, .repeat = 1, .dir = "." };
    settle_default_settings(&r.s);
    settle_capture_default_settings(&r.cs);
    default_name(r.name, sizeof(r.name));
    Run *runs = NULL;
    r.labels = calloc((size_t)argc + 1, sizeof(*r.labels));
    if (!r.labels) {
        fprintf(stderr, "settle: out of memory\n");
        return EXIT_INTERNAL;
    }
    int ret = parse_args(&r, argc, argv);
    if (ret) {
        ret = ret < 0 ? EXIT_OK : ret;
        goto end;
    }
    r.s.log_cb = log_cb;
    r.s.log_level = r.verbose ? SETTLE_LOG_INFO : SETTLE_LOG_WARNING;
    char start[32], err[256];
    snprintf(start, sizeof(start), "%.6f", r.preroll);
    if (!r.start_given && settle_settings_set(&r.s, "start", start, err, sizeof(err)) < 0) {
        fprintf(stderr, "settle: --pre-roll: %s\n", err);
        ret = EXIT_USAGE;
        goto end;
    }
    if (settle_settings_check(&r.s, err, sizeof(err)) < 0) {
        fprintf(stderr, "settle: %s\n", err);
        ret = EXIT_USAGE;
        goto end;
    }
    struct stat sb;
    if (stat(r.dir, &sb) < 0 && (errno != ENOENT || mkdir(r.dir, 0777) < 0)) {
        fprintf(stderr, "settle: -o: %s: %s\n", r.dir, strerror(errno));
        ret = EXIT_OUTPUT;
        goto end;
    }
    if (r.json && out_open(&r.jout, r.json) < 0) {
        fprintf(stderr, "settle: --json: %s: %s\n", r.json, strerror(errno));
        ret = EXIT_OUTPUT;
        goto end;
    }
    runs = calloc((size_t)r.repeat, sizeof(*runs));
    if (!runs) {
        ret = EXIT_INTERNAL;
        goto end;
    }
    settle_codec_log_level(r.verbose > 1 ? SETTLE_LOG_INFO : -1);
#ifdef __linux__
    /* what COMMAND leaves behind comes back to settle, to be ended and reaped */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
    cli_catch_signals();
    int n = 0;
    for (int k = 1; k <= r.repeat && !cli_stop; k++) {
        if (k > 1 && r.between && (ret = ret > (n = run_between(&r)) ? ret : n) >= EXIT_SIGNAL)
            break;
        n = k;
        int c = record_once(&r, k, &runs[k - 1]);
        ret = c > ret ? c : ret;
        if (c == EXIT_INPUT || c == EXIT_INTERNAL)
            break; /* the input or COMMAND is not there: the next run would fail alike */
    }
    if (cli_stop && ret < EXIT_SIGNAL)
        ret = EXIT_SIGNAL;
    if (r.repeat > 1 || r.summary) {
        int c = write_summary(&r, runs, n);
        ret = c > ret ? c : ret;
    }
    if (r.jout.f && out_commit(&r.jout) < 0) {
        fprintf(stderr, "settle: --json: %s: cannot write: %s\n", r.json, strerror(errno));
        ret = ret > EXIT_OUTPUT ? ret : EXIT_OUTPUT;
    }
    r.jout.f = NULL;
end:
    if (r.jout.f)
        out_abort(&r.jout);
    free(runs);
    free(r.labels);
    return ret;
}
