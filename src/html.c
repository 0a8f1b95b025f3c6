/* SPDX-License-Identifier: BSD-2-Clause */
/* The HTML report: one self-contained page, images embedded as data: URIs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "settle/pictures.h"

static void put_escaped(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A block of base64 at a time into buf, written with one fwrite: a report
 * embeds megabytes of pictures, and a character at a time through stdio's
 * locked fputc cost more than the encoding. */
static void put_base64(FILE *f, const uint8_t *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char buf[4096];
    size_t i = 0, o = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        buf[o++] = tab[v >> 18];
        buf[o++] = tab[(v >> 12) & 63];
        buf[o++] = tab[(v >> 6) & 63];
        buf[o++] = tab[v & 63];
        if (o == sizeof(buf)) {
            fwrite(buf, 1, o, f);
            o = 0;
        }
    }
    if (n - i) {
        uint32_t v = (uint32_t)p[i] << 16 | (n - i == 2 ? (uint32_t)p[i + 1] << 8 : 0);
        buf[o++] = tab[v >> 18];
        buf[o++] = tab[(v >> 12) & 63];
        buf[o++] = n - i == 2 ? tab[(v >> 6) & 63] : '=';
        buf[o++] = '=';
    }
    fwrite(buf, 1, o, f);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A time in seconds, "-" when there is none. */
static void put_time(FILE *f, double t)
{
    char b[48];
    if (!isfinite(t)) {
        fputs("&ndash;", f);
        return;
    }
    settle_format_fixed(b, sizeof(b), t, 3);
    fprintf(f, "%s&nbsp;s", b);
}

static void put_frame(FILE *f, double frame, double t)
{
    if (!isfinite(frame)) {
        fputs("&ndash;", f);
        return;
    }
    fprintf(f, "frame %.0f at ", frame);
    put_time(f, t);
}

static void row_begin(FILE *f, const char *name)
{
    fprintf(f, "<tr><th>%s</th><td>", name);
}

static void put_image(FILE *f, const char *cls, const char *alt, const uint8_t *png, size_t len)
{
    fprintf(f, "<img class=\"%s\" alt=\"%s\" src=\"data:image/png;base64,", cls, alt);
    put_base64(f, png, len);
    fputs("\">\n", f);
}

/* The app's own marks (settle analyze --marks): a row a mark, its time on
 * the capture, its frame and its gap to the stable time, or why it has none;
 * then the frame on screen at each mark beside the stable frame. */
static void put_marks(FILE *f, const cJSON *o, const SettleReportCapture *c)
{
    const cJSON *marks = cJSON_GetObjectItemCaseSensitive(o, "marks");
    if (!cJSON_IsArray(marks) || !cJSON_GetArraySize(marks))
        return;
    fputs("<h3>Marks: what the app reported, beside what the screen showed</h3>\n"
          "<table class=\"marks\">\n<tr><th>mark</th><th>time</th><th>frame</th>"
          "<th>gap (stable &minus; mark)</th><th>source</th></tr>\n", f);
    const cJSON *k;
    cJSON_ArrayForEach(k, marks)
    {
        fputs("<tr><td>", f);
        put_escaped(f, str(k, "name"));
        fputs("</td><td>", f);
        put_time(f, num(k, "time"));
        fputs("</td><td>", f);
        if (isfinite(num(k, "frame")))
            fprintf(f, "%.0f", num(k, "frame"));
        else
            fputs("&ndash;", f);
        fputs("</td><td>", f);
        double g = num(k, "gap");
        if (isfinite(g)) {
            char b[48];
            settle_format_fixed(b, sizeof(b), g, 3);
            fprintf(f, "<b>%s%s&nbsp;s</b>", g > 0 ? "+" : "", b);
        } else {
            fputs("&ndash;", f);
        }
        if (str(k, "reason")) {
            fputs(" <span class=\"note\">not placed: ", f);
            put_escaped(f, str(k, "reason"));
            fputs("</span>", f);
        }
        fputs("</td><td>", f);
        put_escaped(f, str(k, "source"));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (!c->nframe_pictures)
        return;
    fputs("<div class=\"markframes\">\n", f);
    for (int i = 0; i < c->nframe_pictures; i++) {
        const SettleReportFrame *p = &c->frame_pictures[i];
        fputs("<figure>", f);
        put_image(f, "markframe", p->caption ? p->caption : "frame", p->png, p->len);
        fputs("<figcaption>", f);
        put_escaped(f, p->caption ? p->caption : "");
        fputs("</figcaption></figure>\n", f);
    }
    fputs("</div>\n", f);
}

/* A rectangle of a JSON object: "x,y,w,h". */
static void put_rect(FILE *f, const cJSON *o)
{
    fprintf(f, "%.0f,%.0f,%.0f,%.0f", num(o, "x"), num(o, "y"), num(o, "width"),
            num(o, "height"));
}

static void put_swatch(FILE *f, uint32_t c)
{
    fprintf(f, "<span class=\"swatch\" style=\"background:#%06x\"></span>", (unsigned)c);
}

/* The answer explained: the outlined frame and its legend, a line per
 * rectangle drawn, from the result's deciding_change, animated_regions and
 * regions. */
static void put_answer(FILE *f, const cJSON *o, const SettleReportCapture *c)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "deciding_change");
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(o, "animated_regions");
    const cJSON *rg = cJSON_GetObjectItemCaseSensitive(o, "regions");
    int nd = cJSON_IsObject(d), na = cJSON_GetArraySize(an), nr = cJSON_GetArraySize(rg);
    if (!c->answer_png && !nd && !na && !nr)
        return;
    fputs("<h3>What decided the answer</h3>\n<div class=\"top\">\n", f);
    if (c->answer_png) {
        fputs("<figure>", f);
        put_image(f, "answer", "the frame with the deciding change, the animated areas and the "
                  "regions outlined", c->answer_png, c->answer_len);
        fputs("<figcaption>", f);
        put_escaped(f, c->answer_caption ? c->answer_caption : "");
        fputs("</figcaption></figure>\n", f);
    }
    fputs("<table class=\"legend\">\n", f);
    fputs("<tr><th>", f);
    put_swatch(f, SETTLE_OUTLINE_DECIDING);
    fputs("deciding change</th><td>", f);
    if (nd) {
        put_rect(f, d);
        fprintf(f, " (%.0f pixels) at ", num(d, "pixels"));
        put_time(f, num(d, "time"));
        fputs(": the last change that counted</td></tr>\n", f);
    } else {
        fputs("none</td></tr>\n", f);
    }
    fputs("<tr><th>", f);
    put_swatch(f, SETTLE_OUTLINE_ANIMATED);
    fputs("animated areas</th><td>", f);
    if (!cJSON_IsArray(an))
        fputs("not looked for", f);
    else if (!na)
        fputs("none", f);
    const cJSON *it;
    int k = 0;
    cJSON_ArrayForEach(it, an)
    {
        fputs(k++ ? "<br>" : "", f);
        put_rect(f, it);
        fprintf(f, ": %.0f changes from ", num(it, "changes"));
        put_time(f, num(it, "first_time"));
    }
    const cJSON *ig = cJSON_GetObjectItemCaseSensitive(o, "animated_ignored");
    if (cJSON_IsTrue(ig))
        fputs("<br>left out of the answer (--ignore animated)", f);
    fputs("</td></tr>\n", f);
    cJSON_ArrayForEach(it, rg)
    {
        fputs("<tr><th>", f);
        put_swatch(f, SETTLE_OUTLINE_REGION);
        fputs("region ", f);
        put_escaped(f, str(it, "name"));
        fputs("</th><td>", f);
        put_rect(f, it);
        fputs(": stable ", f);
        put_time(f, num(it, "stable_time"));
        fputs(", load time ", f);
        put_time(f, num(it, "load_time"));
        fprintf(f, ", %.0f changes</td></tr>\n", num(it, "changes"));
    }
    fputs("</table>\n</div>\n", f);
}

static void put_capture(FILE *f, int i, const cJSON *o, const SettleReportCapture *c)
{
    const char *status = str(o, "status");
    fprintf(f, "<section class=\"capture\" id=\"c%d\">\n<h2>", i + 1);
    put_escaped(f, str(o, "input"));
    fprintf(f, " <span class=\"status %s\">", status && !strcmp(status, "stable") ? "ok" : "bad");
    put_escaped(f, status ? status : "?");
    fputs("</span></h2>\n<div class=\"top\">\n<table class=\"summary\">\n", f);
    row_begin(f, "load time");
    fputs("<b>", f);
    put_time(f, num(o, "load_time"));
    fputs("</b></td></tr>\n", f);
    row_begin(f, "start");
    put_frame(f, num(o, "start_frame"), num(o, "start_time"));
    fputs("</td></tr>\n", f);
    row_begin(f, "stable");
    put_frame(f, num(o, "stable_frame"), num(o, "stable_time"));
    fputs("</td></tr>\n", f);
    static const char *const vc[][2] = { { "first_visual_change", "first visual change" },
                                         { "last_visual_change", "last visual change" } };
    for (size_t k = 0; k < 2; k++) {
        row_begin(f, vc[k][1]);
        put_time(f, num(o, vc[k][0]));
        fputs(isfinite(num(o, vc[k][0])) ? " after the start</td></tr>\n" : "</td></tr>\n", f);
    }
    static const char *const vm[][2] = { { "speed_index", "Speed Index" },
                                         { "visually_complete_85", "visually complete 85 %" },
                                         { "visually_complete_95", "visually complete 95 %" },
                                         { "visually_complete_99", "visually complete 99 %" } };
    for (size_t k = 0; k < sizeof(vm) / sizeof(vm[0]); k++) {
        if (!isfinite(num(o, vm[k][0])))
            continue;
        row_begin(f, vm[k][1]);
        put_time(f, num(o, vm[k][0]));
        fputs("</td></tr>\n", f);
    }
    row_begin(f, "method");
    put_escaped(f, str(o, "method") ? str(o, "method") : "-");
    if (str(o, "method_reason")) {
        fputs(": ", f);
        put_escaped(f, str(o, "method_reason"));
    }
    fputs("</td></tr>\n", f);
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(o, "settings");
    row_begin(f, "thresholds");
    double dt = num(o, "diff_threshold_pixels");
    if (isfinite(dt))
        fprintf(f, "diff: %.0f changed pixels (levels &gt; ", dt);
    else
        fputs("diff: &ndash; (levels &gt; ", f);
    put_escaped(f, str(set, "tolerance") ? str(set, "tolerance") : "?");
    fputs("); entropy: ", f);
    put_escaped(f, str(set, "entropy-threshold") ? str(set, "entropy-threshold") : "?");
    fputs(" bits from the mean of ", f);
    put_escaped(f, str(set, "window") ? str(set, "window") : "?");
    fputs(" frames</td></tr>\n", f);
    row_begin(f, "capture");
    fprintf(f, "%.0f frames, ", num(o, "frames"));
    put_time(f, num(o, "duration"));
    if (isfinite(num(o, "width")))
        fprintf(f, ", %.0f&times;%.0f", num(o, "width"), num(o, "height"));
    fputs("</td></tr>\n", f);
    if (str(o, "error")) {
        row_begin(f, "error");
        put_escaped(f, str(o, "error"));
        fputs("</td></tr>\n", f);
    }
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(o, "warnings"))
    {
        fputs("<tr class=\"warning\"><th>warning</th><td>", f);
        put_escaped(f, str(w, "message") ? str(w, "message") : "?");
        fputs(" <span class=\"code\">(", f);
        put_escaped(f, str(w, "code") ? str(w, "code") : "?");
        fputs(")</span></td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (c->plot_png)
        put_image(f, "plot", "changed pixels and entropy delta over time", c->plot_png,
                  c->plot_len);
    else {
        fputs("<p class=\"note\">No plot: ", f);
        put_escaped(f, c->plot_note ? c->plot_note : "not drawn");
        fputs("</p>\n", f);
    }
    fputs("</div>\n<h3>Filmstrip</h3>\n", f);
    if (c->filmstrip_png) {
        fputs("<div class=\"strip\">", f);
        put_image(f, "filmstrip", "thumbnails of the visually distinct frames", c->filmstrip_png,
                  c->filmstrip_len);
        fputs("</div>\n", f);
    } else {
        fputs("<p class=\"note\">No filmstrip: no frame to show.</p>\n", f);
    }
    put_answer(f, o, c);
    put_marks(f, o, c);
    fputs("<details><summary>Settings used</summary>\n<table class=\"settings\">\n", f);
    const cJSON *it;
    cJSON_ArrayForEach(it, set)
    {
        fputs("<tr><th>--", f);
        put_escaped(f, it->string);
        fputs("</th><td>", f);
        put_escaped(f, cJSON_IsString(it) ? it->valuestring : "");
        fputs("</td></tr>\n", f);
    }
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "labels");
    cJSON_ArrayForEach(it, labels)
    {
        fputs("<tr><th>label ", f);
        put_escaped(f, it->string);
        fputs("</th><td>", f);
        put_escaped(f, cJSON_IsString(it) ? it->valuestring : "");
        fputs("</td></tr>\n", f);
    }
    fputs("<tr><th>settle</th><td>", f);
    put_escaped(f, str(o, "settle_version"));
    fputs("</td></tr>\n</table></details>\n</section>\n", f);
}

static const char style[] =
    "body{font:15px/1.4 system-ui,sans-serif;color:#222;margin:16px 24px;background:#fff}\n"
    "h1{font-size:22px;margin:0 0 12px}h2{font-size:18px;margin:18px 0 8px}h3{font-size:15px;margin:12px 0 6px}\n"
    "table{border-collapse:collapse}th,td{text-align:left;padding:3px 10px 3px 0;vertical-align:top}\n"
    "th{font-weight:600;white-space:nowrap}\n"
    ".overview td,.overview th{border-bottom:1px solid #ddd;padding-right:18px}\n"
    ".top{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}\n"
    ".summary{max-width:520px}.plot{border:1px solid #ccc;max-width:100%}\n"
    ".filmstrip{border:1px solid #ccc;display:block;max-width:100%;height:auto}\n"
    ".status{font-size:13px;padding:1px 7px;border-radius:8px;margin-left:8px;vertical-align:middle}\n"
    ".ok{background:#dff3e3;color:#1d6b2e}.bad{background:#fbe3e3;color:#8a1f1f}\n"
    ".note{color:#8a1f1f}.capture{border-top:2px solid #ddd;padding-top:4px;margin-top:14px}\n"
    "details{margin:10px 0}summary{cursor:pointer}\n"
    ".warning th,.warning td{background:#fff4d6;color:#6b4a00}.code{color:#888;font-size:13px}\n"
    ".marks td,.marks th{border-bottom:1px solid #ddd;padding-right:18px}\n"
    ".markframes{display:flex;flex-wrap:wrap;gap:12px;margin-top:8px}figure{margin:0}\n"
    ".markframe{border:1px solid #ccc;display:block;max-width:320px;height:auto}\n"
    "figcaption{font-size:13px;max-width:320px}\n"
    ".answer{border:1px solid #ccc;display:block;max-width:640px;height:auto}\n"
    ".legend td,.legend th{border-bottom:1px solid #ddd;padding-right:18px}\n"
    ".swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle}\n";

int settle_write_report(FILE *f, const SettleReportCapture *caps, int n)
{
    if (!f || (!caps && n) || n < 0)
        return SETTLE_ERR_INVAL;
    cJSON **o = calloc((size_t)n + 1, sizeof(*o));
    if (!o)
        return SETTLE_ERR_NOMEM;
    int ret = 0;
    for (int i = 0; i < n && !ret; i++) {
        if (!caps[i].json) {
            ret = SETTLE_ERR_INVAL;
            break;
        }
        o[i] = cJSON_Parse(caps[i].json);
        if (!o[i])
            ret = cJSON_GetErrorPtr() ? SETTLE_ERR_FORMAT : SETTLE_ERR_NOMEM;
        else if (!cJSON_IsObject(o[i]) || !str(o[i], "input"))
            ret = SETTLE_ERR_FORMAT;
    }
    if (ret)
        goto end;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>settle: ",
          f);
    if (n == 1)
        put_escaped(f, str(o[0], "input"));
    else
        fprintf(f, "%d captures", n);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>settle report</h1>\n", style);
    if (n > 1) {
        fputs("<table class=\"overview\">\n<tr><th>capture</th><th>status</th><th>load time</th>"
              "<th>start</th><th>stable</th><th>method</th></tr>\n", f);
        for (int i = 0; i < n; i++) {
            fprintf(f, "<tr><td><a href=\"#c%d\">", i + 1);
            put_escaped(f, str(o[i], "input"));
            fputs("</a></td><td>", f);
            put_escaped(f, str(o[i], "status"));
            fputs("</td><td>", f);
            put_time(f, num(o[i], "load_time"));
            fputs("</td><td>", f);
            put_time(f, num(o[i], "start_time"));
            fputs("</td><td>", f);
            put_time(f, num(o[i], "stable_time"));
            fputs("</td><td>", f);
            put_escaped(f, str(o[i], "method") ? str(o[i], "method") : "-");
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    for (int i = 0; i < n; i++)
        put_capture(f, i, o[i], &caps[i]);
    fputs("</body>\n</html>\n", f);
    ret = fflush(f) || ferror(f) ? SETTLE_ERR_IO : 0;
end:
    for (int i = 0; i < n; i++)
        cJSON_Delete(o[i]);
    free(o);
    return ret;
}
