/* SPDX-License-Identifier: BSD-2-Clause */
/* Per-frame CSV: one row a frame, numbers with '.' whatever the locale. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "settle/marks.h"

#include "outputs.h"

void settle_format_fixed(char *buf, size_t len, double x, int decimals)
{
    if (!isfinite(x)) {
        snprintf(buf, len, "%s", "");
        return;
    }
    int64_t scale = 1;
    for (int i = 0; i < decimals; i++)
        scale *= 10;
    double r = round(fabs(x) * (double)scale);
    if (r > 9e18) { /* beyond what the integer form can hold: plain exponent form */
        snprintf(buf, len, "%.6e", x);
        return;
    }
    int64_t v = (int64_t)r;
    const char *sign = x < 0 && v ? "-" : "";
    if (decimals)
        snprintf(buf, len, "%s%" PRId64 ".%0*" PRId64, sign, v / scale, decimals, v % scale);
    else
        snprintf(buf, len, "%s%" PRId64, sign, v);
}

/* The "marks" cell of a frame: ",", then the names of the marks on it joined
 * by "; ", quoted when they hold a comma, a quote or a line break. */
static int marks_cell(const SettleMarks *m, int64_t frame, FILE *out)
{
    char cell[1024];
    size_t len = 0;
    cell[0] = 0;
    for (int i = 0; i < settle_marks_count(m) && len < sizeof(cell); i++) {
        const SettleMark *k = settle_marks_get(m, i);
        if (k->frame != frame)
            continue;
        int w = snprintf(cell + len, sizeof(cell) - len, "%s%s", len ? "; " : "", k->name);
        len = w < 0 ? sizeof(cell) : len + (size_t)w;
    }
    if (fputc(',', out) == EOF)
        return -1;
    if (!strpbrk(cell, ",\"\r\n"))
        return fputs(cell, out) < 0 ? -1 : 0;
    if (fputc('"', out) == EOF)
        return -1;
    for (const char *s = cell; *s; s++)
        if ((*s == '"' && fputc('"', out) == EOF) || fputc(*s, out) == EOF)
            return -1;
    return fputc('"', out) == EOF ? -1 : 0;
}

typedef struct Rows {
    FILE *out;
    int nregions;             /* --region: a column each, "region_NAME" */
    int measured[SETTLE_MAX_REGIONS]; /* 0: outside the measured rectangle, cells empty */
    const SettleMarks *marks; /* attached: a last column "marks" */
} Rows;

static int write_row(void *opaque, const SettleFrame *f)
{
    const Rows *rows = opaque;
    FILE *out = rows->out;
    char t[40], e[40], d[40], pr[40], bp[40], bc[24] = "";
    settle_format_fixed(t, sizeof(t), f->time, 6);
    settle_format_fixed(e, sizeof(e), f->entropy, 6);
    settle_format_fixed(d, sizeof(d), f->entropy_delta, 6);
    settle_format_fixed(pr, sizeof(pr), f->progress, 0);
    settle_format_fixed(bp, sizeof(bp), f->block_peak, 3);
    /* empty where the block test did not run, as block_peak */
    if (f->blocks_changed >= 0)
        snprintf(bc, sizeof(bc), "%d", f->blocks_changed);
    if (fprintf(out, "%" PRId64 ",%s,%" PRId64 ",%s,%s,%d,%d,%d,%s,%s,%s", f->index, t,
                f->diff_pixels, e, d, f->quiet, f->keyframe, f->codec_refresh, pr, bp, bc) < 0)
        return SETTLE_ERR_IO;
    for (int i = 0; i < rows->nregions; i++) {
        if (rows->measured[i] ? fprintf(out, ",%" PRId64, f->region_pixels[i]) < 0
                              : fputc(',', out) == EOF)
            return SETTLE_ERR_IO;
    }
    if (rows->marks && marks_cell(rows->marks, f->index, out) < 0)
        return SETTLE_ERR_IO;
    return fputc('\n', out) == EOF ? SETTLE_ERR_IO : 0;
}

int settle_csv_write(const SettleOutputs *o, FILE *out)
{
    const SettleResult *res = o->res;
    if (fputs("frame,time,diff_pixels,entropy,entropy_delta,quiet,keyframe,codec_refresh,progress,"
              "block_peak,blocks_changed", out) < 0)
        return SETTLE_ERR_IO;
    Rows rows = { .out = out, .nregions = res->nregions, .marks = o->marks };
    for (int i = 0; i < rows.nregions; i++) {
        rows.measured[i] = res->regions[i].measured;
        if (fprintf(out, ",region_%s", o->s->region_name[i]) < 0)
            return SETTLE_ERR_IO;
    }
    if (fputs(o->marks ? ",marks\n" : "\n", out) < 0)
        return SETTLE_ERR_IO;
    if (!o->finished)
        return 0; /* nothing was measured: the header alone */
    int ret = settle_frames_foreach(&o->frames, write_row, &rows);
    if (ret < 0)
        return ret;
    return ferror(out) ? SETTLE_ERR_IO : 0;
}
