/* SPDX-License-Identifier: BSD-2-Clause */
/* The analysis options as a table: names, parsing, printing and checks. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const SettleOption options[] = {
    { "method", "auto|diff|entropy|blocks",
      "how a frame is judged quiet; blocks = coherent areas changed by more than the capture's "
      "own noise, drift and flicker; auto chooses blocks for camera-like and re-encoded "
      "captures, diff for pixel-exact ones, and says why",
      "auto" },
    { "tolerance", "LEVELS",
      "a pixel changed when R, G or B moved by more than this (0-255)", "5" },
    { "diff-threshold", "PIXELS|PERCENT%",
      "method diff: a frame is quiet when at most this many pixels changed", "4096" },
    { "entropy-threshold", "BITS",
      "method entropy: quiet when entropy differs from the rolling mean by at most this", "0.05" },
    { "window", "FRAMES", "frames in the entropy rolling mean (1-120)", "5" },
    { "settle", "SECONDS",
      "a change is final after this much quiet (never before the first change after the "
      "start); 0 = quiet to the end of the capture", "0" },
    { "start", "first-frame|first-change|SECONDS|marker:COLOR|marker-end:COLOR|orange",
      "where the measurement starts; orange = marker-end:#de640d (WebPageTest, browsertime)",
      "first-frame" },
    { "marker-tolerance", "LEVELS", "per-channel tolerance of the start marker colour", "40" },
    { "marker-coverage", "PERCENT%", "share of the picture the marker colour must cover", "50%" },
    { "codec-filter", "on|off",
      "ignore keyframes and intra refreshes that change only codec noise", "on" },
    { "crop", "none|viewport|auto|X,Y,W,H",
      "measure only this part of the picture; viewport = the browser viewport in the first "
      "frame; auto = a camera capture's screen, the bright region of the first frame",
      "none" },
    { "ignore", "X,Y,W,H|animated|none",
      "repeatable: a region of the input picture (before --crop) that does not count, "
      "such as a status-bar clock; animated = the areas found to keep changing (diff method, "
      "or the block test on a clean capture); none clears the list", "none" },
    { "region", "NAME=X,Y,W,H|none",
      "repeatable: an area of the input picture whose own stable time is reported beside the "
      "whole picture's (WebPageTest's hero time); none clears the list", "none" },
    { "blur", "off|N|box:N|median:N",
      "prefilter against sensor noise before measuring: box (mean) of radius N (1-8) "
      "or median of radius N (1-2); N alone = box", "off" },
    { "noise-factor", "FACTOR",
      "method diff: the threshold follows the noise floor measured so far, "
      "max(diff threshold, FACTOR x noise floor); 0 = fixed threshold", "0" },
    { "visual-metrics", "on|off",
      "compute visual progress, Speed Index, visually complete 85/95/99 (WebPageTest)", "off" },
    { "last-change", "fuzzy|exact",
      "visual metrics: fuzzy = frames within 15% of the last one are the same picture (videos); "
      "exact = any change counts (filmstrips already deduplicated)", "fuzzy" },
    { "status-bar", "leave-out|keep",
      "phone screen recordings: the status bar at the top (clock, recording indicator), when it "
      "changes on its own, is left out (of the block test, and of diff's count in the frames it "
      "changed alone) or kept", "leave-out" },
    { "scroll-bar", "leave-out|keep",
      "phone screen recordings: the right edge (3 %, below the status bar), where the system "
      "draws a scroll indicator that fades out after a page grows or scrolls, is left out of "
      "the block test or kept", "leave-out" },
    { "home-indicator", "leave-out|keep",
      "phone screen recordings: the bottom 3 %, where iOS draws its home indicator and Android "
      "its gesture handle (their colour follows the screen, after it), is left out of the block "
      "test or kept", "leave-out" },
    { "scale", "auto|full|N",
      "the picture size measured: auto = camera-like captures reduced by 2 (box averages; "
      "the noise leaves nothing finer), clean ones at full size; full = always full size; "
      "N = 2, 4 or 8 always; counts stay in full-size pixels", "auto" },
    { "threads", "N", "decoder threads, 0 = libavcodec's choice", "0" },
    { "max-pixels", "PIXELS", "refuse pictures larger than this", "67108864" },
    { NULL, NULL, NULL, NULL },
};

const SettleOption *settle_options(void)
{
    return options;
}

void settle_default_settings(SettleSettings *s)
{
    memset(s, 0, sizeof(*s));
    s->method = SETTLE_METHOD_AUTO;
    s->status_bar = 1;
    s->tolerance = 5;
    s->diff_threshold = 4096;
    s->diff_threshold_percent = 0;
    s->entropy_threshold = 0.05;
    s->window = 5;
    s->settle = 0;
    s->start = SETTLE_START_FIRST_FRAME;
    s->marker_tolerance = 40;
    s->marker_coverage = 0.5;
    s->codec_filter = 1;
    s->scale = 0;
    s->threads = 0;
    s->max_pixels = (int64_t)8192 * 8192;
    s->log_level = SETTLE_LOG_WARNING;
}

/* The options that leave a part of a phone's picture out of the measure or
 * keep it (leave-out|keep): the setting each sets (an int), which is 1 for
 * "keep" when holds_keep, else 1 for "leave-out". */
static const struct {
    const char *name;
    size_t offset;
    int holds_keep;
} phone_parts[] = {
    { "status-bar", offsetof(SettleSettings, status_bar), 0 },
    { "scroll-bar", offsetof(SettleSettings, scroll_bar_keep), 1 },
    { "home-indicator", offsetof(SettleSettings, home_indicator_keep), 1 },
};
#define PHONE_PARTS ((int)(sizeof(phone_parts) / sizeof(phone_parts[0])))

/* phone_parts' index of the option `name`, or -1. */
static int phone_part(const char *name)
{
    for (int i = 0; i < PHONE_PARTS; i++)
        if (!strcmp(name, phone_parts[i].name))
            return i;
    return -1;
}

/* The setting of phone_parts[i] in s. */
static int *part_slot(SettleSettings *s, int i)
{
    return (int *)((char *)s + phone_parts[i].offset);
}

static int part_value(const SettleSettings *s, int i)
{
    return *part_slot((SettleSettings *)s, i);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return SETTLE_ERR_INVAL;
}

/* A whole-string number in [lo, hi]; strtod accepts the C locale's '.' only
 * because the program never calls setlocale for LC_NUMERIC. */
static int parse_double(const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    if (!v || !*v || isspace((unsigned char)*v))
        return -1;
    double d = strtod(v, &end);
    if (errno || *end || !isfinite(d) || d < lo || d > hi)
        return -1;
    *out = d;
    return 0;
}

static int parse_int(const char *v, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    if (!v || !*v || isspace((unsigned char)*v))
        return -1;
    long long n = strtoll(v, &end, 10);
    if (errno || *end || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

/* "#rrggbb" or "rrggbb". */
int settle_parse_color(const char *v, uint8_t rgb[3])
{
    if (*v == '#')
        v++;
    if (strlen(v) != 6)
        return -1;
    for (int i = 0; i < 6; i++)
        if (!isxdigit((unsigned char)v[i]))
            return -1;
    unsigned long x = strtoul(v, NULL, 16);
    rgb[0] = (uint8_t)(x >> 16);
    rgb[1] = (uint8_t)(x >> 8);
    rgb[2] = (uint8_t)x;
    return 0;
}

/* "12.5%" -> 12.5 */
static int parse_percent(const char *v, double lo, double hi, double *out)
{
    size_t n = strlen(v);
    if (n < 2 || v[n - 1] != '%' || n > 63)
        return -1;
    char buf[64];
    memcpy(buf, v, n - 1);
    buf[n - 1] = 0;
    return parse_double(buf, lo, hi, out);
}

/* PIXELS or PERCENT%. */
static int set_diff_threshold(SettleSettings *s, const char *v, char *err, size_t errlen)
{
    double d;
    if (strchr(v, '%')) {
        if (parse_percent(v, 0, 100, &d))
            return fail(err, errlen, "expected pixels or a percentage, got '%s'", v);
        s->diff_threshold_percent = d;
        if (d == 0) /* 0% means no change at all is allowed */
            s->diff_threshold = 0;
    } else {
        if (parse_double(v, 0, 1e12, &d) || d != floor(d))
            return fail(err, errlen, "expected pixels or a percentage, got '%s'", v);
        s->diff_threshold = d;
        s->diff_threshold_percent = 0;
    }
    return 0;
}

/* first-frame, first-change, SECONDS, marker:COLOR, marker-end:COLOR, orange. */
static int set_start(SettleSettings *s, const char *v, char *err, size_t errlen)
{
    double d;
    if (!strcmp(v, "first-frame")) {
        s->start = SETTLE_START_FIRST_FRAME;
    } else if (!strcmp(v, "first-change")) {
        s->start = SETTLE_START_FIRST_CHANGE;
    } else if (!strcmp(v, "orange")) {
        /* the colour WebPageTest and browsertime paint before navigating */
        s->start = SETTLE_START_MARKER_END;
        s->marker_rgb[0] = 222;
        s->marker_rgb[1] = 100;
        s->marker_rgb[2] = 13;
    } else if (!strncmp(v, "marker:", 7) || !strncmp(v, "marker-end:", 11)) {
        int end = v[6] == '-';
        const char *col = v + (end ? 11 : 7);
        if (settle_parse_color(col, s->marker_rgb))
            return fail(err, errlen, "expected a colour as #rrggbb after '%s', got '%s'",
                        end ? "marker-end:" : "marker:", col);
        s->start = end ? SETTLE_START_MARKER_END : SETTLE_START_MARKER;
    } else if (!parse_double(v, 0, 1e9, &d)) {
        s->start = SETTLE_START_TIME;
        s->start_time = d;
    } else {
        return fail(err, errlen,
                    "expected first-frame, first-change, seconds, marker:COLOR, "
                    "marker-end:COLOR or orange, got '%s'", v);
    }
    return 0;
}

/* none, viewport, auto or X,Y,W,H. */
static int set_crop(SettleSettings *s, const char *v, char *err, size_t errlen)
{
    int x, y, w, h, used = 0;
    if (!strcmp(v, "none")) {
        s->crop = SETTLE_CROP_NONE;
    } else if (!strcmp(v, "viewport")) {
        s->crop = SETTLE_CROP_VIEWPORT;
    } else if (!strcmp(v, "auto")) {
        s->crop = SETTLE_CROP_AUTO;
    } else if (sscanf(v, "%d,%d,%d,%d%n", &x, &y, &w, &h, &used) == 4 && !v[used] &&
               isdigit((unsigned char)v[0]) && x >= 0 && y >= 0 && w >= 1 && h >= 1 &&
               x <= 65535 && y <= 65535 && w <= 65536 && h <= 65536) {
        s->crop = SETTLE_CROP_RECT;
        s->crop_x = x;
        s->crop_y = y;
        s->crop_w = w;
        s->crop_h = h;
    } else {
        return fail(err, errlen, "expected none, viewport, auto or X,Y,W,H in pixels, got '%s'",
                    v);
    }
    return 0;
}

/* X,Y,W,H or animated added to the list (or several separated by ';' as
 * settle_settings_get writes them), or none. */
static int set_ignore(SettleSettings *s, const char *v, char *err, size_t errlen)
{
    if (!strcmp(v, "none")) {
        s->nignore = 0;
        s->ignore_animated = 0;
        return 0;
    }
    int cnt = s->nignore, animated = s->ignore_animated;
    for (const char *p = v;;) {
        int x, y, w, h, used = 0;
        if (!strncmp(p, "animated", 8) && (!p[8] || p[8] == ';')) {
            animated = 1;
            if (!p[8])
                break;
            p += 9;
            continue;
        }
        if (cnt >= SETTLE_MAX_IGNORE)
            return fail(err, errlen, "at most %d regions, got '%s'", SETTLE_MAX_IGNORE, v);
        if (sscanf(p, "%d,%d,%d,%d%n", &x, &y, &w, &h, &used) != 4 ||
            !isdigit((unsigned char)p[0]) || (p[used] && p[used] != ';') || x < 0 || y < 0 ||
            w < 1 || h < 1 || x > 65535 || y > 65535 || w > 65536 || h > 65536)
            return fail(err, errlen, "expected X,Y,W,H in pixels, animated or none, got '%s'", v);
        s->ignore[cnt][0] = x;
        s->ignore[cnt][1] = y;
        s->ignore[cnt][2] = w;
        s->ignore[cnt][3] = h;
        cnt++;
        if (!p[used])
            break;
        p += used + 1;
    }
    s->nignore = cnt;
    s->ignore_animated = animated;
    return 0;
}

/* off, N, box:N or median:N. */
static int set_blur(SettleSettings *s, const char *v, char *err, size_t errlen)
{
    long long n;
    SettleBlur kind = SETTLE_BLUR_BOX;
    const char *num = v;
    if (!strcmp(v, "off") || !strcmp(v, "0")) {
        s->blur = SETTLE_BLUR_NONE;
        s->blur_radius = 0;
        return 0;
    }
    if (!strncmp(v, "box:", 4)) {
        num = v + 4;
    } else if (!strncmp(v, "median:", 7)) {
        kind = SETTLE_BLUR_MEDIAN;
        num = v + 7;
    }
    if (parse_int(num, 1, kind == SETTLE_BLUR_MEDIAN ? 2 : 8, &n))
        return fail(err, errlen, "expected off, N or box:N (1-8), or median:N (1-2), got '%s'",
                    v);
    s->blur = kind;
    s->blur_radius = (int)n;
    return 0;
}

static int region_name_ok(const char *p, size_t n)
{
    if (n < 1 || n >= SETTLE_REGION_NAME)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)p[i]) && p[i] != '_' && p[i] != '-')
            return 0;
    return 1;
}

/* NAME=X,Y,W,H, or a list separated by ';' as settle_settings_get writes it;
 * a name given again replaces its area. */
static int set_region(SettleSettings *s, const char *v, char *err, size_t errlen)
{
    if (!strcmp(v, "none")) {
        s->nregions = 0;
        return 0;
    }
    SettleSettings t = *s;
    for (const char *p = v;;) {
        const char *eq = strchr(p, '=');
        int x, y, w, h, used = 0;
        if (!eq || !region_name_ok(p, (size_t)(eq - p)))
            return fail(err, errlen, "expected NAME=X,Y,W,H with a name of 1-%d letters, digits, "
                        "'_' or '-', got '%s'", SETTLE_REGION_NAME - 1, v);
        const char *q = eq + 1;
        if (sscanf(q, "%d,%d,%d,%d%n", &x, &y, &w, &h, &used) != 4 ||
            !isdigit((unsigned char)q[0]) || (q[used] && q[used] != ';') || x < 0 || y < 0 ||
            w < 1 || h < 1 || x > 65535 || y > 65535 || w > 65536 || h > 65536)
            return fail(err, errlen, "expected NAME=X,Y,W,H in pixels, got '%s'", v);
        int k = 0;
        while (k < t.nregions && (strlen(t.region_name[k]) != (size_t)(eq - p) ||
                                  strncmp(t.region_name[k], p, (size_t)(eq - p))))
            k++;
        if (k == SETTLE_MAX_REGIONS)
            return fail(err, errlen, "at most %d regions, got '%s'", SETTLE_MAX_REGIONS, v);
        memcpy(t.region_name[k], p, (size_t)(eq - p));
        t.region_name[k][eq - p] = 0;
        t.region[k][0] = x;
        t.region[k][1] = y;
        t.region[k][2] = w;
        t.region[k][3] = h;
        t.nregions = k == t.nregions ? k + 1 : t.nregions;
        if (!q[used])
            break;
        p = q + used + 1;
    }
    *s = t;
    return 0;
}

int settle_settings_set(SettleSettings *s, const char *name, const char *v, char *err,
                        size_t errlen)
{
    double d;
    long long n;
    int i;
    if (!s || !name)
        return fail(err, errlen, "no option name");
    if (!v)
        v = "";
    if (!strcmp(name, "method")) {
        if (!strcmp(v, "auto"))
            s->method = SETTLE_METHOD_AUTO;
        else if (!strcmp(v, "diff"))
            s->method = SETTLE_METHOD_DIFF;
        else if (!strcmp(v, "entropy"))
            s->method = SETTLE_METHOD_ENTROPY;
        else if (!strcmp(v, "blocks"))
            s->method = SETTLE_METHOD_BLOCKS;
        else
            return fail(err, errlen, "expected auto, diff, entropy or blocks, got '%s'", v);
    } else if ((i = phone_part(name)) >= 0) {
        int keep = !strcmp(v, "keep");
        if (!keep && strcmp(v, "leave-out"))
            return fail(err, errlen, "expected leave-out or keep, got '%s'", v);
        *part_slot(s, i) = phone_parts[i].holds_keep ? keep : !keep;
    } else if (!strcmp(name, "tolerance")) {
        if (parse_int(v, 0, 255, &n))
            return fail(err, errlen, "expected levels from 0 to 255, got '%s'", v);
        s->tolerance = (int)n;
    } else if (!strcmp(name, "diff-threshold")) {
        return set_diff_threshold(s, v, err, errlen);
    } else if (!strcmp(name, "entropy-threshold")) {
        if (parse_double(v, 0, 16, &d))
            return fail(err, errlen, "expected bits from 0 to 16, got '%s'", v);
        s->entropy_threshold = d;
    } else if (!strcmp(name, "window")) {
        if (parse_int(v, 1, SETTLE_MAX_WINDOW, &n))
            return fail(err, errlen, "expected frames from 1 to %d, got '%s'", SETTLE_MAX_WINDOW, v);
        s->window = (int)n;
    } else if (!strcmp(name, "settle")) {
        if (parse_double(v, 0, 1e6, &d))
            return fail(err, errlen, "expected seconds (0 or more), got '%s'", v);
        s->settle = d;
    } else if (!strcmp(name, "start")) {
        return set_start(s, v, err, errlen);
    } else if (!strcmp(name, "marker-tolerance")) {
        if (parse_int(v, 0, 255, &n))
            return fail(err, errlen, "expected levels from 0 to 255, got '%s'", v);
        s->marker_tolerance = (int)n;
    } else if (!strcmp(name, "marker-coverage")) {
        if (parse_percent(v, 0, 100, &d) || d == 0)
            return fail(err, errlen, "expected a percentage above 0%% and up to 100%%, got '%s'", v);
        s->marker_coverage = d / 100;
    } else if (!strcmp(name, "codec-filter")) {
        if (!strcmp(v, "on"))
            s->codec_filter = 1;
        else if (!strcmp(v, "off"))
            s->codec_filter = 0;
        else
            return fail(err, errlen, "expected on or off, got '%s'", v);
    } else if (!strcmp(name, "crop")) {
        return set_crop(s, v, err, errlen);
    } else if (!strcmp(name, "ignore")) {
        return set_ignore(s, v, err, errlen);
    } else if (!strcmp(name, "region")) {
        return set_region(s, v, err, errlen);
    } else if (!strcmp(name, "blur")) {
        return set_blur(s, v, err, errlen);
    } else if (!strcmp(name, "noise-factor")) {
        if (parse_double(v, 0, 1000, &d))
            return fail(err, errlen, "expected a factor from 0 to 1000, got '%s'", v);
        s->noise_factor = d;
    } else if (!strcmp(name, "visual-metrics")) {
        if (!strcmp(v, "on"))
            s->visual_metrics = 1;
        else if (!strcmp(v, "off"))
            s->visual_metrics = 0;
        else
            return fail(err, errlen, "expected on or off, got '%s'", v);
    } else if (!strcmp(name, "last-change")) {
        if (!strcmp(v, "fuzzy"))
            s->last_change_exact = 0;
        else if (!strcmp(v, "exact"))
            s->last_change_exact = 1;
        else
            return fail(err, errlen, "expected fuzzy or exact, got '%s'", v);
    } else if (!strcmp(name, "scale")) {
        if (!strcmp(v, "auto"))
            s->scale = 0;
        else if (!strcmp(v, "full"))
            s->scale = 1;
        else if (parse_int(v, 1, 8, &n) || (n != 1 && n != 2 && n != 4 && n != 8))
            return fail(err, errlen, "expected auto, full, 2, 4 or 8, got '%s'", v);
        else
            s->scale = (int)n;
    } else if (!strcmp(name, "threads")) {
        if (parse_int(v, 0, 256, &n))
            return fail(err, errlen, "expected a thread count from 0 to 256, got '%s'", v);
        s->threads = (int)n;
    } else if (!strcmp(name, "max-pixels")) {
        if (parse_int(v, 1, (long long)1 << 40, &n))
            return fail(err, errlen, "expected a pixel count of 1 or more, got '%s'", v);
        s->max_pixels = n;
    } else {
        return fail(err, errlen, "unknown option '%s'", name);
    }
    return 0;
}

int settle_settings_get(const SettleSettings *s, const char *name, char *buf, size_t len)
{
    int n, part;
    if (!s || !name || !buf)
        return SETTLE_ERR_INVAL;
    if (!strcmp(name, "method"))
        n = snprintf(buf, len, "%s", settle_method_name(s->method));
    else if (!strcmp(name, "tolerance"))
        n = snprintf(buf, len, "%d", s->tolerance);
    else if (!strcmp(name, "diff-threshold"))
        n = s->diff_threshold_percent > 0 ? snprintf(buf, len, "%.15g%%", s->diff_threshold_percent)
                                          : snprintf(buf, len, "%.0f", s->diff_threshold);
    else if (!strcmp(name, "entropy-threshold"))
        n = snprintf(buf, len, "%.15g", s->entropy_threshold);
    else if (!strcmp(name, "window"))
        n = snprintf(buf, len, "%d", s->window);
    else if (!strcmp(name, "settle"))
        n = snprintf(buf, len, "%.15g", s->settle);
    else if (!strcmp(name, "start")) {
        const uint8_t *c = s->marker_rgb;
        switch (s->start) {
        case SETTLE_START_TIME: n = snprintf(buf, len, "%.15g", s->start_time); break;
        case SETTLE_START_FIRST_CHANGE: n = snprintf(buf, len, "first-change"); break;
        case SETTLE_START_MARKER:
            n = snprintf(buf, len, "marker:#%02x%02x%02x", c[0], c[1], c[2]);
            break;
        case SETTLE_START_MARKER_END:
            n = snprintf(buf, len, "marker-end:#%02x%02x%02x", c[0], c[1], c[2]);
            break;
        default: n = snprintf(buf, len, "first-frame"); break;
        }
    } else if (!strcmp(name, "marker-tolerance"))
        n = snprintf(buf, len, "%d", s->marker_tolerance);
    else if (!strcmp(name, "marker-coverage"))
        n = snprintf(buf, len, "%.15g%%", s->marker_coverage * 100);
    else if (!strcmp(name, "codec-filter"))
        n = snprintf(buf, len, "%s", s->codec_filter ? "on" : "off");
    else if (!strcmp(name, "ignore")) {
        n = 0;
        if (s->ignore_animated)
            n = snprintf(buf, len, "animated");
        for (int i = 0; i < s->nignore; i++) {
            int k = snprintf(buf + (n < (int)len ? n : 0), n < (int)len ? len - (size_t)n : 0,
                             "%s%d,%d,%d,%d", n ? ";" : "", s->ignore[i][0], s->ignore[i][1],
                             s->ignore[i][2], s->ignore[i][3]);
            n += k;
        }
        if (!s->nignore && !s->ignore_animated)
            n = snprintf(buf, len, "none");
    } else if (!strcmp(name, "region")) {
        n = 0;
        for (int i = 0; i < s->nregions; i++) {
            const int *g = s->region[i];
            n += snprintf(buf + (n < (int)len ? n : 0), n < (int)len ? len - (size_t)n : 0,
                          "%s%s=%d,%d,%d,%d", i ? ";" : "", s->region_name[i], g[0], g[1], g[2],
                          g[3]);
        }
        if (!s->nregions)
            n = snprintf(buf, len, "none");
    } else if (!strcmp(name, "blur"))
        n = s->blur == SETTLE_BLUR_NONE ? snprintf(buf, len, "off")
                                        : snprintf(buf, len, "%s:%d",
                                                   s->blur == SETTLE_BLUR_MEDIAN ? "median" : "box",
                                                   s->blur_radius);
    else if (!strcmp(name, "crop"))
        n = s->crop == SETTLE_CROP_VIEWPORT ? snprintf(buf, len, "viewport")
            : s->crop == SETTLE_CROP_AUTO ? snprintf(buf, len, "auto")
            : s->crop == SETTLE_CROP_RECT
                ? snprintf(buf, len, "%d,%d,%d,%d", s->crop_x, s->crop_y, s->crop_w, s->crop_h)
                : snprintf(buf, len, "none");
    else if (!strcmp(name, "noise-factor"))
        n = snprintf(buf, len, "%.15g", s->noise_factor);
    else if (!strcmp(name, "visual-metrics"))
        n = snprintf(buf, len, "%s", s->visual_metrics ? "on" : "off");
    else if (!strcmp(name, "last-change"))
        n = snprintf(buf, len, "%s", s->last_change_exact ? "exact" : "fuzzy");
    else if ((part = phone_part(name)) >= 0)
        n = snprintf(buf, len, "%s",
                     part_value(s, part) == phone_parts[part].holds_keep ? "keep" : "leave-out");
    else if (!strcmp(name, "scale"))
        n = s->scale == 0 ? snprintf(buf, len, "auto")
            : s->scale == 1 ? snprintf(buf, len, "full")
                            : snprintf(buf, len, "%d", s->scale);
    else if (!strcmp(name, "threads"))
        n = snprintf(buf, len, "%d", s->threads);
    else if (!strcmp(name, "max-pixels"))
        n = snprintf(buf, len, "%lld", (long long)s->max_pixels);
    else
        return SETTLE_ERR_INVAL;
    return n;
}

int settle_settings_check(const SettleSettings *s, char *err, size_t errlen)
{
    if (!s)
        return fail(err, errlen, "no settings");
    if (s->method < SETTLE_METHOD_AUTO || s->method > SETTLE_METHOD_BLOCKS)
        return fail(err, errlen, "--method: unknown method %d", (int)s->method);
    if (s->tolerance < 0 || s->tolerance > 255)
        return fail(err, errlen, "--tolerance: expected levels from 0 to 255, got %d", s->tolerance);
    if (!(s->diff_threshold >= 0) || !(s->diff_threshold_percent >= 0) ||
        !(s->diff_threshold_percent <= 100))
        return fail(err, errlen, "--diff-threshold: expected pixels or a percentage");
    if (!(s->entropy_threshold >= 0) || !(s->entropy_threshold <= 16))
        return fail(err, errlen, "--entropy-threshold: expected bits from 0 to 16");
    if (s->window < 1 || s->window > SETTLE_MAX_WINDOW)
        return fail(err, errlen, "--window: expected frames from 1 to %d, got %d",
                    SETTLE_MAX_WINDOW, s->window);
    if (!(s->settle >= 0) || !isfinite(s->settle))
        return fail(err, errlen, "--settle: expected seconds (0 or more)");
    if (s->start < SETTLE_START_FIRST_FRAME || s->start > SETTLE_START_MARKER_END)
        return fail(err, errlen, "--start: unknown start rule %d", (int)s->start);
    if (s->start == SETTLE_START_TIME && (!(s->start_time >= 0) || !isfinite(s->start_time)))
        return fail(err, errlen, "--start: expected seconds (0 or more)");
    if (s->marker_tolerance < 0 || s->marker_tolerance > 255)
        return fail(err, errlen, "--marker-tolerance: expected levels from 0 to 255");
    if (!(s->marker_coverage > 0) || !(s->marker_coverage <= 1))
        return fail(err, errlen, "--marker-coverage: expected a percentage above 0%% and up to 100%%");
    if (s->crop < SETTLE_CROP_NONE || s->crop > SETTLE_CROP_AUTO)
        return fail(err, errlen, "--crop: unknown crop rule %d", (int)s->crop);
    if (s->crop == SETTLE_CROP_RECT &&
        (s->crop_x < 0 || s->crop_y < 0 || s->crop_w < 1 || s->crop_h < 1))
        return fail(err, errlen, "--crop: expected X,Y,W,H with X, Y >= 0 and W, H >= 1");
    if (s->nignore < 0 || s->nignore > SETTLE_MAX_IGNORE)
        return fail(err, errlen, "--ignore: at most %d regions", SETTLE_MAX_IGNORE);
    for (int i = 0; i < s->nignore; i++)
        if (s->ignore[i][0] < 0 || s->ignore[i][1] < 0 || s->ignore[i][2] < 1 ||
            s->ignore[i][3] < 1 || s->ignore[i][0] > 65535 || s->ignore[i][1] > 65535 ||
            s->ignore[i][2] > 65536 || s->ignore[i][3] > 65536)
            return fail(err, errlen, "--ignore: expected X,Y,W,H with X, Y >= 0 and W, H >= 1");
    if (s->nregions < 0 || s->nregions > SETTLE_MAX_REGIONS)
        return fail(err, errlen, "--region: at most %d regions", SETTLE_MAX_REGIONS);
    for (int i = 0; i < s->nregions; i++)
        if (!region_name_ok(s->region_name[i], strnlen(s->region_name[i], SETTLE_REGION_NAME)) ||
            s->region[i][0] < 0 || s->region[i][1] < 0 || s->region[i][2] < 1 ||
            s->region[i][3] < 1 || s->region[i][0] > 65535 || s->region[i][1] > 65535 ||
            s->region[i][2] > 65536 || s->region[i][3] > 65536)
            return fail(err, errlen, "--region: expected NAME=X,Y,W,H with X, Y >= 0 and W, H >= 1");
    if (s->blur < SETTLE_BLUR_NONE || s->blur > SETTLE_BLUR_MEDIAN ||
        (s->blur == SETTLE_BLUR_BOX && (s->blur_radius < 1 || s->blur_radius > 8)) ||
        (s->blur == SETTLE_BLUR_MEDIAN && (s->blur_radius < 1 || s->blur_radius > 2)))
        return fail(err, errlen, "--blur: expected off, box:N (1-8) or median:N (1-2)");
    if (!(s->noise_factor >= 0) || !(s->noise_factor <= 1000))
        return fail(err, errlen, "--noise-factor: expected a factor from 0 to 1000");
    if (s->visual_metrics != 0 && s->visual_metrics != 1)
        return fail(err, errlen, "--visual-metrics: expected on or off");
    if (s->last_change_exact != 0 && s->last_change_exact != 1)
        return fail(err, errlen, "--last-change: expected fuzzy or exact");
    for (int i = 0; i < PHONE_PARTS; i++) {
        if (part_value(s, i) != 0 && part_value(s, i) != 1)
            return fail(err, errlen, "--%s: expected leave-out or keep", phone_parts[i].name);
    }
    if (s->scale != 0 && s->scale != 1 && s->scale != 2 && s->scale != 4 && s->scale != 8)
        return fail(err, errlen, "--scale: expected auto, full, 2, 4 or 8");
    if (s->scale > 1 && !settle_settings_scalable(s))
        return fail(err, errlen, "--scale %d: the picture is measured at full size with --ignore, "
                    "--region, --crop X,Y,W,H, --blur and --visual-metrics on", s->scale);
    if (s->threads < 0 || s->threads > 256)
        return fail(err, errlen, "--threads: expected a thread count from 0 to 256");
    if (s->max_pixels < 1)
        return fail(err, errlen, "--max-pixels: expected a pixel count of 1 or more");
    return 0;
}

int settle_settings_scalable(const SettleSettings *s)
{
    return !s->nignore && !s->ignore_animated && !s->nregions && s->crop != SETTLE_CROP_RECT &&
           !s->visual_metrics && s->blur == SETTLE_BLUR_NONE;
}

const char *settle_method_name(SettleMethod m)
{
    switch (m) {
    case SETTLE_METHOD_DIFF: return "diff";
    case SETTLE_METHOD_ENTROPY: return "entropy";
    case SETTLE_METHOD_BLOCKS: return "blocks";
    default: return "auto";
    }
}
