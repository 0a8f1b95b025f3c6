/* SPDX-License-Identifier: BSD-2-Clause */
/* settle analyze --marks: reading the marks, placing them after the analysis,
 * the summary lines and --marks-csv. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "marks.h"
#include "output.h"

const struct option cli_marks_options[CLI_MARKS_NOPTS + 1] = {
    { "marks", required_argument, NULL, 0 },
    { "mark-regex", required_argument, NULL, 0 },
    { "marks-zero", required_argument, NULL, 0 },
    { "marks-anchor", required_argument, NULL, 0 },
    { "mark-run", required_argument, NULL, 0 },
    { "marks-csv", required_argument, NULL, 0 },
    { NULL, 0, NULL, 0 },
};

int cli_marks_init(CliMarks *cm, int argc)
{
    memset(cm, 0, sizeof(*cm));
    cm->run = -1;
    cm->anchor_time = NAN;
    cm->zero = NAN;
    cm->files = calloc((size_t)argc + 1, sizeof(*cm->files));
    cm->regex = calloc((size_t)argc + 1, sizeof(*cm->regex));
    return cm->files && cm->regex ? 0 : -1;
}

void cli_marks_free(CliMarks *cm)
{
    free(cm->files);
    free(cm->regex);
    free(cm->anchor);
    settle_marks_free(&cm->m);
    memset(cm, 0, sizeof(*cm));
}

/* NAME or NAME@SECONDS (a number of seconds after the last '@'). */
static int parse_anchor(CliMarks *cm, const char *arg)
{
    const char *at = strrchr(arg, '@');
    size_t n = strlen(arg);
    if (at && at[1]) {
        char *e;
        errno = 0;
        double v = strtod(at + 1, &e);
        if (!*e && !errno && isfinite(v) && v >= 0) {
            cm->anchor_time = v;
            n = (size_t)(at - arg);
        }
    }
    if (!n)
        return -1;
    free(cm->anchor);
    cm->anchor = strndup(arg, n);
    return cm->anchor ? 0 : -1;
}

int cli_marks_option(CliMarks *cm, int index, const char *arg)
{
    const char *name = cli_marks_options[index].name;
    switch (index) {
    case 0: cm->files[cm->nfiles++] = arg; return 0;
    case 1:
        if (!strchr(arg, '=') || arg[0] == '=') {
            fprintf(stderr, "settle: --%s: expected NAME=REGEX, got '%s'\n", name, arg);
            return EXIT_USAGE;
        }
        cm->regex[cm->nregex++] = arg;
        return 0;
    case 2:
        if (settle_marks_parse_stamp(arg, &cm->zero_clock, &cm->zero) < 0) {
            fprintf(stderr, "settle: --%s: expected a logcat time stamp (01-23 12:34:56.789, "
                            "1706012096.789, 12345.678), got '%s'\n", name, arg);
            return EXIT_USAGE;
        }
        return 0;
    case 3:
        if (parse_anchor(cm, arg) < 0) {
            fprintf(stderr, "settle: --%s: expected NAME or NAME@SECONDS, got '%s'\n", name, arg);
            return EXIT_USAGE;
        }
        return 0;
    case 4: {
        char *e;
        errno = 0;
        long v = strtol(arg, &e, 10);
        if (e == arg || *e || errno || v < 0 || v > 1000000) {
            fprintf(stderr, "settle: --%s: expected an iteration from 0, got '%s'\n", name, arg);
            return EXIT_USAGE;
        }
        cm->run = (int)v;
        return 0;
    }
    case 5: cm->csv = arg; return 0;
    }
    return EXIT_USAGE;
}

int cli_marks_load(CliMarks *cm, size_t ninputs, int stdout_taken)
{
    int given = cm->nregex || cm->zero_clock != SETTLE_MARK_CLOCK_NONE || cm->anchor ||
                cm->run >= 0 || cm->csv;
    if (!cm->nfiles) {
        if (given) {
            fprintf(stderr, "settle: --mark-regex, --marks-zero, --marks-anchor, --mark-run "
                            "and --marks-csv need --marks FILE\n");
            return EXIT_USAGE;
        }
        return 0;
    }
    if (ninputs != 1) {
        fprintf(stderr, "settle: --marks: the marks belong to one capture; give exactly one, "
                        "got %zu\n", ninputs);
        return EXIT_USAGE;
    }
    if (cm->csv && !strcmp(cm->csv, "-") && stdout_taken) {
        fprintf(stderr, "settle: --marks-csv: stdout already carries --csv or --json\n");
        return EXIT_USAGE;
    }
    char err[1024];
    if (settle_marks_new(&cm->m) < 0) {
        fprintf(stderr, "settle: out of memory\n");
        return EXIT_INTERNAL;
    }
    settle_marks_set_run(cm->m, cm->run);
    for (int i = 0; i < cm->nregex; i++) {
        int r = settle_marks_add_regex(cm->m, cm->regex[i], err, sizeof(err));
        if (r == SETTLE_ERR_NOMEM) {
            fprintf(stderr, "settle: out of memory\n");
            return EXIT_INTERNAL;
        }
        if (r < 0) {
            fprintf(stderr, "settle: --mark-regex: %s\n", err);
            return EXIT_USAGE;
        }
    }
    for (int i = 0; i < cm->nfiles; i++) {
        err[0] = 0;
        int r = settle_marks_read(cm->m, cm->files[i], err, sizeof(err));
        if (r == SETTLE_ERR_NOMEM) {
            fprintf(stderr, "settle: out of memory\n");
            return EXIT_INTERNAL;
        }
        if (r < 0) {
            fprintf(stderr, "settle: --marks: %s\n", err[0] ? err : settle_strerror(r));
            return EXIT_MARKS;
        }
    }
    return 0;
}

/* Device times are looked for only when a mark has a device stamp to place. */
static int wants_device(const SettleMarks *m)
{
    for (int i = 0; i < settle_marks_count(m); i++) {
        SettleMarkClock c = settle_marks_get(m, i)->stamp_clock;
        if (c == SETTLE_MARK_CLOCK_EPOCH || c == SETTLE_MARK_CLOCK_MONOTONIC ||
            c == SETTLE_MARK_CLOCK_BOOT)
            return 1;
    }
    return 0;
}

static void fmt_seconds(char *buf, size_t n, double t)
{
    if (isfinite(t))
        snprintf(buf, n, "%.3f s", t);
    else
        snprintf(buf, n, "-");
}

void cli_marks_print(const CliMarks *cm, const char *input, FILE *out)
{
    const SettleMarks *m = cm->m;
    for (int i = 0; i < settle_marks_count(m); i++) {
        const SettleMark *k = settle_marks_get(m, i);
        if (!isfinite(k->time)) {
            fprintf(out, "%s: mark %s: not placed: %s [%s]\n", input, k->name,
                    k->reason ? k->reason : "no rule places it", k->source);
            continue;
        }
        char t[32], g[32], fr[48] = "outside the capture";
        fmt_seconds(t, sizeof(t), k->time);
        fmt_seconds(g, sizeof(g), k->gap);
        if (k->frame >= 0)
            snprintf(fr, sizeof(fr), "frame %lld", (long long)k->frame);
        fprintf(out, "%s: mark %s at %s (%s), gap %s [%s]\n", input, k->name, t, fr, g,
                k->source);
    }
}

static int write_csv(const CliMarks *cm, FILE *err)
{
    OutFile o;
    if (out_open(&o, cm->csv) < 0) {
        fprintf(err, "settle: --marks-csv: %s: %s\n", cm->csv, strerror(errno));
        return EXIT_OUTPUT;
    }
    if (settle_marks_write_csv(cm->m, o.f) < 0 || out_commit(&o) < 0) {
        fprintf(err, "settle: --marks-csv: %s: cannot write: %s\n", cm->csv,
                strerror(errno ? errno : EIO));
        out_abort(&o);
        return EXIT_OUTPUT;
    }
    return EXIT_OK;
}

int cli_marks_apply(CliMarks *cm, SettleContext *ctx, const SettleResult *r,
                    const char *input, FILE *err)
{
    if (!cm->m)
        return EXIT_OK;
    SettleMarkClocks k;
    settle_default_mark_clocks(&k);
    k.launch_time = r && r->start_frame >= 0 ? r->start_time : NAN;
    k.zero_clock = cm->zero_clock;
    k.zero = cm->zero;
    k.anchor = cm->anchor;
    k.anchor_time = cm->anchor_time;
    SettleDeviceTimes *dev = NULL;
    if (wants_device(cm->m)) {
        char msg[512] = "";
        int dr = settle_read_device_times(input, &dev, msg, sizeof(msg));
        if (dr == SETTLE_ERR_NOMEM)
            return EXIT_INTERNAL;
        if (dr < 0)
            fprintf(err, "settle: warning: %s: screenrecord's device times not used: %s\n",
                    input, msg[0] ? msg : settle_strerror(dr));
        k.device = dev;
    }
    int code = EXIT_OK;
    if (settle_marks_place(cm->m, &k) == SETTLE_ERR_NOMEM)
        code = EXIT_INTERNAL;
    settle_device_times_free(&dev);
    if (code)
        return code;
    int ar = r ? settle_attach_marks(ctx, cm->m) : SETTLE_ERR_STATE;
    if (ar == SETTLE_ERR_NOMEM)
        return EXIT_INTERNAL;
    if (ar < 0) /* nothing measured: no frames, no gaps */
        settle_marks_set_gaps(cm->m, NAN);
    if (cm->csv)
        code = write_csv(cm, err);
    return code;
}

void cli_marks_plot(const CliMarks *cm, PlotInfo *pi)
{
    pi->nmarks = 0;
    for (int i = 0; i < settle_marks_count(cm->m) && pi->nmarks < PLOT_MAX_MARKS; i++) {
        const SettleMark *k = settle_marks_get(cm->m, i);
        if (!isfinite(k->time))
            continue;
        pi->mark_name[pi->nmarks] = k->name;
        pi->mark_time[pi->nmarks++] = k->time;
    }
}

void cli_marks_pictures_free(SettleReportFrame **v, int n)
{
    for (int i = 0; *v && i < n; i++) {
        free((char *)(*v)[i].caption);
        free((uint8_t *)(*v)[i].png);
    }
    free(*v);
    *v = NULL;
}

int cli_marks_pictures(const CliMarks *cm, SettleContext *ctx, const SettleResult *r,
                       SettleReportFrame **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    int n = settle_marks_count(cm->m);
    int64_t *want = calloc((size_t)n + 1, sizeof(*want));
    SettleReportFrame *v = calloc((size_t)n + 1, sizeof(*v));
    SettleImage *img = NULL;
    int ret = !want || !v ? SETTLE_ERR_NOMEM : 0;
    for (int i = 0; !ret && i < n; i++)
        want[i] = settle_marks_get(cm->m, i)->frame;
    want[n] = r->stable_frame;
    if (!ret)
        ret = settle_grab_frames(ctx, want, n + 1, 320, &img);
    int k = 0;
    for (int i = 0; !ret && i <= n; i++) {
        if (!img[i].rgb)
            continue;
        char cap[512], t[32];
        fmt_seconds(t, sizeof(t), img[i].time);
        if (i < n) {
            const SettleMark *m = settle_marks_get(cm->m, i);
            char g[32];
            fmt_seconds(g, sizeof(g), m->gap);
            snprintf(cap, sizeof(cap), "%s: frame %lld at %s, gap %s", m->name,
                     (long long)img[i].frame, t, g);
        } else {
            snprintf(cap, sizeof(cap), "stable: frame %lld at %s", (long long)img[i].frame, t);
        }
        uint8_t *png = NULL;
        size_t len = 0;
        char *c = strdup(cap);
        if (!c || out_png_bytes(&img[i], &png, &len) < 0) {
            free(c);
            ret = SETTLE_ERR_NOMEM;
            break;
        }
        v[k++] = (SettleReportFrame){ .caption = c, .png = png, .len = len };
    }
    settle_frames_free(&img, n + 1);
    free(want);
    if (ret < 0) {
        cli_marks_pictures_free(&v, k);
        return ret;
    }
    *out = v;
    *nout = k;
    return 0;
}
