/* SPDX-License-Identifier: BSD-2-Clause */
/* settle dashboard: HTML with inline SVG charts and a page a night. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dashboard.h"
#include "results_in.h"

#define CHART_W 960
#define CHART_H 340
#define PAD_L 64
#define PAD_R 24
#define PAD_T 24
#define PAD_B 44

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                       "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };
#define NCOLORS (sizeof(palette) / sizeof(*palette))

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A relative path as a URL: every byte but unreserved ones and '/' encoded. */
static void href(FILE *f, const char *rel)
{
    for (const unsigned char *s = (const unsigned char *)rel; *s; s++) {
        int ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                 (*s >= '0' && *s <= '9') || strchr("/._~-", *s);
        if (ok)
            fputc(*s, f);
        else
            fprintf(f, "%%%02X", *s);
    }
}

/* Writes buf to dir/name through dir/.name.tmp and a rename. */
static int put_file(const char *dir, const char *name, const char *buf, size_t len, char *err,
                    size_t errlen)
{
    size_t n = strlen(dir) + strlen(name) + 32;
    char *path = malloc(n), *tmp = malloc(n);
    int ret = -2;
    if (!path || !tmp)
        goto end;
    snprintf(path, n, "%s/%s", dir, name);
    const char *slash = strrchr(name, '/');
    snprintf(tmp, n, "%s/%.*s.%s.tmp%ld", dir, slash ? (int)(slash - name + 1) : 0, name,
             slash ? slash + 1 : name, (long)getpid());
    FILE *f = fopen(tmp, "w");
    int ok = f && fwrite(buf, 1, len, f) == len;
    ok = f && fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        if (f)
            unlink(tmp);
        ret = -1;
        goto end;
    }
    ret = 0;
end:
    free(path);
    free(tmp);
    return ret;
}

/* The --along values of series [a, b), sorted and once each. */
typedef struct Axis {
    const Point **cat;
    size_t n;
    double lo, hi; /* value range of every capture */
} Axis;

static int numeric_sort;

static int cmp_cat(const void *x, const void *y)
{
    const Point *p = *(const Point *const *)x, *q = *(const Point *const *)y;
    if (numeric_sort)
        return (p->num > q->num) - (p->num < q->num);
    return strcmp(p->along, q->along);
}

static int axis_of(const SeriesSet *set, size_t a, size_t b, Axis *ax)
{
    size_t total = 0;
    for (size_t i = a; i < b; i++)
        total += set->s[i].np;
    if (!(ax->cat = calloc(total + 1, sizeof(*ax->cat))))
        return -2;
    ax->n = 0;
    ax->lo = INFINITY, ax->hi = -INFINITY;
    for (size_t i = a; i < b; i++)
        for (size_t j = 0; j < set->s[i].np; j++) {
            const Point *p = &set->s[i].p[j];
            ax->cat[ax->n++] = p;
            for (size_t k = 0; k < p->nx; k++) {
                ax->lo = fmin(ax->lo, p->x[k]);
                ax->hi = fmax(ax->hi, p->x[k]);
            }
        }
    numeric_sort = set->numeric;
    qsort(ax->cat, ax->n, sizeof(*ax->cat), cmp_cat);
    size_t w = 0;
    for (size_t r = 0; r < ax->n; r++)
        if (!w || cmp_cat(&ax->cat[w - 1], &ax->cat[r]))
            ax->cat[w++] = ax->cat[r];
    ax->n = w;
    if (!(ax->lo <= ax->hi))
        ax->lo = 0, ax->hi = 1;
    double pad = fmax((ax->hi - ax->lo) * 0.08, fmax(fabs(ax->hi) * 0.02, 1e-3));
    ax->lo -= pad, ax->hi += pad;
    return 0;
}

static double xpos(const Axis *ax, const SeriesSet *set, const Point *p)
{
    size_t lo = 0, hi = ax->n;
    numeric_sort = set->numeric;
    while (lo + 1 < hi) { /* the category of p: binary search */
        size_t mid = (lo + hi) / 2;
        if (cmp_cat(&ax->cat[mid], &p) <= 0)
            lo = mid;
        else
            hi = mid;
    }
    return PAD_L + ((double)lo + 0.5) * (CHART_W - PAD_L - PAD_R) / (double)ax->n;
}

static double ypos(const Axis *ax, double v)
{
    return PAD_T + (ax->hi - v) / (ax->hi - ax->lo) * (CHART_H - PAD_T - PAD_B);
}

/* Grid, value ticks at 1, 2 or 5 times a power of ten, and --along ticks. */
static void put_axes(FILE *f, const Axis *ax)
{
    double raw = (ax->hi - ax->lo) / 5, mag = pow(10, floor(log10(raw)));
    double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag
                                                                                      : 10 * mag;
    fprintf(f, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", PAD_L,
            PAD_T, CHART_W - PAD_L - PAD_R, CHART_H - PAD_T - PAD_B);
    for (double v = ceil(ax->lo / step) * step; v <= ax->hi; v += step) {
        double y = ypos(ax, v);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                   "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n",
                PAD_L, CHART_W - PAD_R, y, y, PAD_L - 6, y + 4, step < 1 ? (int)ceil(-log10(step))
                                                                          : 0, v);
    }
    size_t every = ax->n / 16 + 1;
    for (size_t c = 0; c < ax->n; c += every) {
        double x = PAD_L + ((double)c + 0.5) * (CHART_W - PAD_L - PAD_R) / (double)ax->n;
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x,
                CHART_H - PAD_B + 16);
        esc(f, ax->cat[c]->along);
        fputs("</text>\n", f);
    }
}

/* One line: spread, captures, the medians joined, each median a link. */
static void put_line(FILE *f, const SeriesSet *set, const Axis *ax, size_t si, double dx,
                     const char *color)
{
    const Series *s = &set->s[si];
    char *name = series_name(set, s, ", ");
    fprintf(f, "<g class=\"line\" stroke=\"%s\" fill=\"%s\">\n<polyline fill=\"none\" points=\"",
            color, color);
    for (size_t j = 0; j < s->np; j++)
        if (s->p[j].nx)
            fprintf(f, "%.1f,%.1f ", xpos(ax, set, &s->p[j]) + dx, ypos(ax, s->p[j].sum.median));
    fputs("\"/>\n", f);
    for (size_t j = 0; j < s->np; j++) {
        const Point *p = &s->p[j];
        if (!p->nx)
            continue;
        double x = xpos(ax, set, p) + dx;
        fprintf(f, "<line class=\"spread\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                x, x, ypos(ax, p->sum.min), ypos(ax, p->sum.max));
        for (size_t k = 0; k < p->nx; k++)
            fprintf(f, "<circle class=\"capture\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>\n", x,
                    ypos(ax, p->x[k]));
        fprintf(f, "<a href=\"night/%zu-%zu.html\"><circle class=\"median\" cx=\"%.1f\" "
                   "cy=\"%.1f\" r=\"4.5\"><title>", si, j, x, ypos(ax, p->sum.median));
        esc(f, name);
        fprintf(f, ", %s ", set->along);
        esc(f, p->along);
        fprintf(f, ": median %.3f, min %.3f, max %.3f, %zu captures</title></circle></a>\n",
                p->sum.median, p->sum.min, p->sum.max, p->nx);
    }
    for (size_t c = 0; c < s->nch; c++) {
        const SettleChange *ch = &s->ch[c];
        double x = xpos(ax, set, &s->p[ch->at]);
        double prev = ch->at ? xpos(ax, set, &s->p[ch->at - 1]) : x;
        double xm = (x + prev) / 2;
        fprintf(f, "<g class=\"change\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                   "<text x=\"%.1f\" y=\"%d\" stroke=\"none\">%+.3f</text><title>",
                xm, xm, PAD_T, CHART_H - PAD_B, xm + 3, PAD_T + 12 + (int)(si % 4) * 12, ch->step);
        esc(f, name);
        fprintf(f, ": change at %s ", set->along);
        esc(f, s->p[ch->at].along);
        fprintf(f, ", step %+.3f, CI95 [%+.3f, %+.3f], p %.4f</title></g>\n", ch->step,
                ch->ci_low, ch->ci_high, ch->p);
    }
    fputs("</g>\n", f);
    free(name);
}

static int same_line(const SeriesSet *set, const Series *x, const Series *y)
{
    for (int k = 1; k < set->nby; k++)
        if (x->values[k] != y->values[k] &&
            (!x->values[k] || !y->values[k] || strcmp(x->values[k], y->values[k])))
            return 0;
    return 1;
}

/* A device keeps its colour in every chart: the rank of its line's first
 * appearance in the set. */
static const char *line_color(const SeriesSet *set, size_t si)
{
    size_t rank = 0;
    for (size_t j = 0; j < si; j++) {
        if (same_line(set, &set->s[j], &set->s[si]))
            return palette[rank % NCOLORS];
        int seen = 0;
        for (size_t k = 0; k < j && !seen; k++)
            seen = same_line(set, &set->s[k], &set->s[j]);
        rank += !seen;
    }
    return palette[rank % NCOLORS];
}

/* The chart of series [a, b): SVG, legend and a table of its changes. */
static int put_chart(FILE *f, const SeriesSet *set, size_t a, size_t b)
{
    Axis ax = { 0 };
    if (axis_of(set, a, b, &ax) < 0)
        return -2;
    int regression = 0;
    for (size_t i = a; i < b; i++)
        regression |= set->s[i].regression;
    fputs("<section class=\"chart\">\n<h2>", f);
    esc(f, set->by[0]);
    fputs(" ", f);
    esc(f, set->s[a].values[0] ? set->s[a].values[0] : "(none)");
    if (regression)
        fputs(" <span class=\"alert\">regression at the newest night</span>", f);
    fprintf(f, "</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
               "width=\"%d\" height=\"%d\" role=\"img\">\n", CHART_W, CHART_H, CHART_W, CHART_H);
    put_axes(f, &ax);
    fprintf(f, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", CHART_W / 2,
            CHART_H - 6);
    esc(f, set->along);
    fprintf(f, "</text><text class=\"label\" transform=\"translate(14 %d) rotate(-90)\" "
               "text-anchor=\"middle\">", CHART_H / 2);
    esc(f, set->metric);
    fputs("</text>\n", f);
    for (size_t i = a; i < b; i++)
        put_line(f, set, &ax, i, ((double)(i - a) - (double)(b - a - 1) / 2) * 5,
                 line_color(set, i));
    fputs("</svg>\n<ul class=\"legend\">\n", f);
    for (size_t i = a; i < b; i++) {
        char *name = series_name(set, &set->s[i], ", ");
        fprintf(f, "<li><span style=\"background:%s\"></span>", line_color(set, i));
        esc(f, name ? name : "");
        for (size_t c = 0; c < set->s[i].nch; c++) {
            const SettleChange *ch = &set->s[i].ch[c];
            fputs(c ? "; " : ": change at ", f);
            esc(f, set->s[i].p[ch->at].along);
            fprintf(f, " %+.3f [%+.3f, %+.3f], p %.4f", ch->step, ch->ci_low, ch->ci_high, ch->p);
        }
        if (!set->s[i].nch)
            fputs(": no change", f);
        if (set->s[i].regression)
            fputs(" <span class=\"alert\">REGRESSION</span>", f);
        fputs("</li>\n", f);
        free(name);
    }
    fputs("</ul>\n</section>\n", f);
    free(ax.cat);
    return ferror(f) ? -1 : 0;
}

static const char style[] =
    "<style>\n"
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}\n"
    "h1{font-size:22px}h2{font-size:17px;margin:28px 0 6px}\n"
    ".plot{fill:#fff;stroke:#999}.grid{stroke:#eee}.tick,.label{font-size:12px;fill:#555}\n"
    ".line polyline{stroke-width:1.5}.spread{stroke-width:3;opacity:.35}\n"
    ".capture{opacity:.45;stroke:none}.median{stroke:#fff;stroke-width:1}\n"
    ".change line{stroke-dasharray:5 4;stroke-width:1.5}.change text{font-size:12px}\n"
    ".legend{list-style:none;padding:0}.legend span{display:inline-block;width:12px;"
    "height:12px;margin-right:6px;vertical-align:middle}\n"
    ".alert{color:#fff;background:#c00;padding:1px 6px;border-radius:3px;font-size:13px}\n"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;"
    "text-align:left}img{max-width:480px;display:block}\n"
    "</style>\n";

static int put_index(FILE *f, const SeriesSet *set, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
    esc(f, title);
    fprintf(f, "</title>\n%s</head><body>\n<h1>", style);
    esc(f, title);
    fputs("</h1>\n<p>", f);
    esc(f, set->metric);
    fputs(" along ", f);
    esc(f, set->along);
    fputs(", one chart a ", f);
    esc(f, set->by[0]);
    fputs(", one line a ", f);
    for (int k = 1; k < set->nby; k++) {
        fputs(k > 1 ? ", " : "", f);
        esc(f, set->by[k]);
    }
    fputs(set->nby < 2 ? "chart" : "", f);
    fputs(". A dot is the median of a night's captures (click it for them), the bar their "
          "spread, small dots the captures; a dashed line marks a change point.</p>\n", f);
    int ret = 0;
    for (size_t a = 0; a < set->n && ret == 0;) {
        size_t b = a + 1;
        while (b < set->n && !strcmp(set->s[b].values[0] ? set->s[b].values[0] : "",
                                     set->s[a].values[0] ? set->s[a].values[0] : ""))
            b++;
        ret = put_chart(f, set, a, b);
        a = b;
    }
    fputs("</body></html>\n", f);
    return ret ? ret : ferror(f) ? -1 : 0;
}

/* A link to path (absolute) from the folder `from` when the file exists. */
static void put_link(FILE *f, const char *from, const char *path, const char *text, int img)
{
    char *rel = path && access(path, R_OK) == 0 ? rel_path(from, path) : NULL;
    if (!rel) {
        fputs("<td>-</td>", f);
        return;
    }
    fputs("<td><a href=\"", f);
    href(f, rel);
    fputs("\">", f);
    if (img) {
        fputs("<img alt=\"filmstrip\" src=\"", f);
        href(f, rel);
        fputs("\">", f);
    } else {
        esc(f, text);
    }
    fputs("</a></td>", f);
    free(rel);
}

static int put_night(FILE *f, const SeriesSet *set, const Series *s, const Point *p,
                     const char *from)
{
    char *name = series_name(set, s, ", ");
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
    esc(f, name);
    fprintf(f, "</title>\n%s</head><body>\n<p><a href=\"../index.html\">dashboard</a></p>\n<h1>",
            style);
    esc(f, name);
    fprintf(f, ", %s ", set->along);
    esc(f, p->along);
    fprintf(f, "</h1>\n<p>%s: median %.3f, min %.3f, max %.3f of %zu captures that count "
               "(%zu in all)</p>\n", set->metric, p->sum.median, p->sum.min, p->sum.max, p->nx,
            p->n);
    fputs("<table>\n<tr><th>capture</th><th>value</th><th>video</th><th>report</th>"
          "<th>result</th><th>CSV</th><th>filmstrip</th></tr>\n", f);
    for (size_t i = 0; i < p->n; i++) {
        const Capture *c = &p->c[i];
        fputs("<tr><td>", f);
        esc(f, c->input);
        fputs("</td><td>", f);
        if (c->why)
            esc(f, c->why);
        else
            fprintf(f, "%.3f", c->value);
        fputs("</td>", f);
        put_link(f, from, c->capture, "video", 0);
        put_link(f, from, c->report, "report", 0);
        put_link(f, from, c->result, "JSON", 0);
        put_link(f, from, c->csv, "CSV", 0);
        put_link(f, from, c->frames, "filmstrip", 1);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</body></html>\n", f);
    free(name);
    return ferror(f) ? -1 : 0;
}

/* Renders one page into memory and puts it in place. */
static int page(const char *dir, const char *name, char *err, size_t errlen,
                int (*render)(FILE *f, const void *a, const void *b, const void *c,
                              const void *d),
                const void *a, const void *b, const void *c, const void *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return -2;
    int r = render(m, a, b, c, d);
    if (fclose(m) != 0 && r == 0)
        r = -2;
    if (r == 0)
        r = put_file(dir, name, buf, len, err, errlen);
    else
        snprintf(err, errlen, "out of memory");
    free(buf);
    return r;
}

static int render_index(FILE *f, const void *set, const void *title, const void *c,
                        const void *d)
{
    (void)c, (void)d;
    return put_index(f, set, title);
}

static int render_night(FILE *f, const void *set, const void *s, const void *p,
                        const void *from)
{
    return put_night(f, set, s, p, from);
}

int dashboard_write(const SeriesSet *set, const char *dir, const char *title, char *err,
                    size_t errlen)
{
    char *abs = abs_path(dir), *nights = abs ? malloc(strlen(abs) + 8) : NULL;
    int ret = -2;
    if (!nights)
        goto end;
    sprintf(nights, "%s/night", abs);
    const char *bad = mkdir(abs, 0777) < 0 && errno != EEXIST            ? dir
                      : mkdir(nights, 0777) < 0 && errno != EEXIST ? nights
                                                                    : NULL;
    if (bad) {
        snprintf(err, errlen, "%s: cannot create: %s", bad, strerror(errno));
        ret = -1;
        goto end;
    }
    ret = 0;
    for (size_t i = 0; i < set->n && ret == 0; i++)
        for (size_t j = 0; j < set->s[i].np && ret == 0; j++) {
            char name[64];
            snprintf(name, sizeof(name), "night/%zu-%zu.html", i, j);
            ret = page(abs, name, err, errlen, render_night, set, &set->s[i], &set->s[i].p[j],
                       nights);
        }
    if (ret == 0)
        ret = page(abs, "index.html", err, errlen, render_index, set, title, NULL, NULL);
end:
    if (ret == -2)
        snprintf(err, errlen, "out of memory");
    free(abs);
    free(nights);
    return ret;
}
