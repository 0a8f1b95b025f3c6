/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * settle: when did the screen finish loading?
 *
 * The library reads a recorded capture (anything libavformat opens), measures
 * every frame against the previous one and decides at which frame the picture
 * became stable. Usage:
 *
 *     SettleSettings s;
 *     settle_default_settings(&s);
 *     settle_settings_set(&s, "diff-threshold", "0.5%", err, sizeof(err));
 *     SettleContext *c;
 *     if (settle_open(&c, &s) < 0) ...
 *     const SettleResult *r;
 *     int ret = settle_analyze_file(c, "capture.mp4", &r);
 *     ... r->stable_time, settle_write_json(c, stdout) ...
 *     settle_close(&c);
 *
 * Frames can also be pushed by the caller (settle_begin, settle_send_picture,
 * settle_finish) when they come from somewhere other than a file.
 *
 * Every function returns 0 (or a non-negative value where documented) on
 * success and a negative SETTLE_ERR_* code on failure. The library never prints
 * and never exits; it reports through the log callback in the settings.
 * Memory use does not grow with the length of a capture.
 */
#ifndef SETTLE_SETTLE_H
#define SETTLE_SETTLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define SETTLE_API
#else
#define SETTLE_API __attribute__((visibility("default")))
#endif

#include "settle/version.h"

/* The version of the library a program runs with, which may be newer than
 * the headers it was built with: SETTLE_VERSION's text. Static. */
SETTLE_API const char *settle_version(void);

/* Its interface version, packed as SETTLE_API_VERSION: a program built with
 * SETTLE_API_VERSION_MAJOR M needs settle_version_api() >> 16 == M. */
SETTLE_API unsigned settle_version_api(void);

/* Error codes: negative, returned by every function that can fail. */
enum {
    SETTLE_OK = 0,
    SETTLE_ERR_INVAL = -1,       /* invalid argument or setting */
    SETTLE_ERR_NOMEM = -2,       /* out of memory */
    SETTLE_ERR_IO = -3,          /* the file is missing or cannot be read or written */
    SETTLE_ERR_FORMAT = -4,      /* not a media file libavformat can open */
    SETTLE_ERR_NO_VIDEO = -5,    /* the file has no video stream */
    SETTLE_ERR_DECODE = -6,      /* the stream is truncated or corrupt (what decoded is kept) */
    SETTLE_ERR_LIMIT = -7,       /* the picture is larger than the limits allow */
    SETTLE_ERR_TOO_SHORT = -8,   /* fewer than two frames: nothing to compare */
    SETTLE_ERR_NO_START = -9,    /* the start of the measurement was not found */
    SETTLE_ERR_NOT_STABLE = -10, /* no frame qualifies as stable */
    SETTLE_ERR_STATE = -11,      /* function called out of order */
    SETTLE_ERR_INTERRUPTED = -12, /* settle_interrupt() stopped the analysis */
    SETTLE_ERR_CROP = -13        /* the --crop rectangle does not fit the picture */
};

/* A short English description of an error code ("no video stream"). Static. */
SETTLE_API const char *settle_strerror(int err);

typedef enum SettleMethod {
    SETTLE_METHOD_AUTO = 0, /* choose from the capture (see SettleResult.method_reason): blocks for
                             * camera-like captures; for clean ones diff, or blocks when every
                             * change diff sees after the block test's stable frame is faint (an
                             * encoder re-coding) or lies only in the status bar */
    SETTLE_METHOD_DIFF,     /* quiet when diff_pixels <= the diff threshold */
    SETTLE_METHOD_ENTROPY,  /* quiet when entropy_delta <= the entropy threshold */
    SETTLE_METHOD_BLOCKS    /* quiet unless a coherent area of 16x16 blocks changed by more than
                             * the capture's own noise allows, once exposure and white-balance
                             * drift and flicker are taken out (src/measure_blocks.h) */
} SettleMethod;

typedef enum SettleStart {
    SETTLE_START_FIRST_FRAME = 0, /* the capture's first frame */
    SETTLE_START_TIME,            /* a time in seconds from the first frame (start_time) */
    SETTLE_START_FIRST_CHANGE,    /* the first frame that is not quiet */
    SETTLE_START_MARKER,          /* the first frame mostly covered by marker_rgb */
    SETTLE_START_MARKER_END       /* the first frame after the marker frames end */
} SettleStart;

typedef enum SettleCrop {
    SETTLE_CROP_NONE = 0,  /* the whole picture */
    SETTLE_CROP_VIEWPORT,  /* the browser viewport, found in the first frames (see crop_*) */
    SETTLE_CROP_RECT,      /* the rectangle crop_x, crop_y, crop_w, crop_h */
    SETTLE_CROP_AUTO       /* a camera capture: the device's screen, found in the first frame */
} SettleCrop;

/* The prefilter applied before measuring (SettleSettings.blur). */
typedef enum SettleBlur {
    SETTLE_BLUR_NONE = 0,
    SETTLE_BLUR_BOX,       /* mean of the (2r+1) x (2r+1) square around each pixel */
    SETTLE_BLUR_MEDIAN     /* median of that square, per channel */
} SettleBlur;

/* Most --region areas, and the longest name (with its NUL). */
#define SETTLE_MAX_REGIONS 8
#define SETTLE_REGION_NAME 32

/* Most --ignore rectangles. */
#define SETTLE_MAX_IGNORE 16

typedef enum SettleLogLevel {
    SETTLE_LOG_ERROR = 0,
    SETTLE_LOG_WARNING,
    SETTLE_LOG_INFO,
    SETTLE_LOG_DEBUG
} SettleLogLevel;

typedef struct SettleSettings {
    /* How a frame is judged quiet. Default SETTLE_METHOD_AUTO. */
    SettleMethod method;
    /* A pixel has changed when one of its R, G or B values moved by more than
     * this many levels against the previous frame. 0..255, default 5. */
    int tolerance;
    /* Method diff: a frame is quiet when at most this many pixels changed.
     * Default 4096. Ignored when diff_threshold_percent > 0. */
    double diff_threshold;
    /* Method diff: the threshold as a percentage of the picture's pixels
     * (0.5 means 0.5 %). 0 (default) uses diff_threshold. */
    double diff_threshold_percent;
    /* Method entropy: a frame is quiet when its entropy differs by at most this
     * many bits from the mean of the previous `window` frames. Default 0.05. */
    double entropy_threshold;
    /* Frames in the entropy rolling average. 1..120, default 5. */
    int window;
    /* Seconds of quiet that make a change final. 0 (default): the picture must
     * stay quiet to the end of the capture. > 0: the stable frame is the first
     * frame, at or after the first change following the start, that is
     * followed by this much quiet; the quiet after a frame lasts from its
     * presentation time to that of the next frame that changes, or to the end
     * of the recording (the last frame's time plus its duration), so a gap
     * without frames is quiet. A pause during loading longer than this ends
     * the measurement there. */
    double settle;
    /* Where the measurement starts; load_time = stable_time - start_time. */
    SettleStart start;
    double start_time;        /* seconds, for SETTLE_START_TIME */
    uint8_t marker_rgb[3];    /* for the marker starts */
    int marker_tolerance;     /* per channel, 0..255, default 40 */
    double marker_coverage;   /* share of the picture, 0..1, default 0.5 */
    /* 1 (default): a frame the decoder coded as a keyframe or intra refresh,
     * whose change is only low-amplitude codec noise, is not a screen change.
     * 0: every measured change counts. */
    int codec_filter;
    /* The part of the picture every measure looks at. Default SETTLE_CROP_NONE.
     * SETTLE_CROP_VIEWPORT finds the browser viewport the way WebPageTest
     * does: the area around the centre of the first frame that has the
     * centre's colour (an orange or blank first frame fills exactly the
     * viewport); a result narrower or lower than 101 pixels is retried on the
     * next frames (up to 60), which are not measured meanwhile.
     * SETTLE_CROP_AUTO finds a device's screen in a camera's picture: the
     * bright, roughly rectangular region against a darker surround in the
     * first frame (Otsu's threshold on the luma, the longest runs of mostly
     * bright rows and columns, 2 % margin inside). When the first frame has
     * no such region (one that reaches two edges of the picture, as in a
     * screen recording or a capture already cropped to the screen, or one
     * under a quarter of the picture) the whole picture is measured. The
     * region found is in the result's crop_*, to pin it with
     * SETTLE_CROP_RECT for a series of captures. */
    SettleCrop crop;
    int crop_x, crop_y, crop_w, crop_h; /* SETTLE_CROP_RECT, pixels; must fit the picture */
    /* Rectangles x, y, w, h of the input picture (before any crop) whose
     * pixels do not count: a status-bar clock, a blinking caret, a
     * notification area. They are left out of the changed-pixel count and the
     * histogram (so of the entropy) alike; the visual metrics still see them.
     * Parts outside the measured rectangle are dropped. Default none. */
    int nignore;
    int ignore[SETTLE_MAX_IGNORE][4];
    /* 1: leave out the animated areas found in the capture itself
     * (SettleResult.animated): the rest of the screen decides. Applies to
     * the diff method; with the entropy method it changes nothing (a
     * warning says so). Set with the "ignore" option's value "animated".
     * Default 0. */
    int ignore_animated;
    /* Areas x, y, w, h of the input picture (before any crop), each with a
     * name of 1-31 letters, digits, '_' or '-', whose own stable time is
     * measured beside the whole picture's (SettleResult.regions): the diff
     * rule on the area's pixels, with the diff threshold scaled to its share
     * of the measured rectangle, from the whole picture's start, with
     * --settle when set. Set with the "region" option, NAME=X,Y,W,H.
     * Default none. */
    int nregions;
    char region_name[SETTLE_MAX_REGIONS][SETTLE_REGION_NAME];
    int region[SETTLE_MAX_REGIONS][4];
    /* A prefilter against sensor noise, applied to the pictures before the
     * changed-pixel count and the histogram (only to the bands measured).
     * Default SETTLE_BLUR_NONE. blur_radius: 1-8 for BOX, 1-2 for MEDIAN. */
    SettleBlur blur;
    int blur_radius;
    /* Method diff: when > 0, a frame is quiet when at most
     * max(diff threshold, noise_factor * the noise floor of the frames before
     * it) pixels changed, the noise floor being the 10th percentile of their
     * changed-pixel counts (as SettleResult.noise_floor). 0 (default): the
     * fixed threshold. 0..1000. */
    double noise_factor;
    /* 1: compute the web's visual metrics (visual progress, Speed Index,
     * visually complete 85/95/99, and first/last visual change as WebPageTest
     * defines them). 0 (default): not computed. */
    int visual_metrics;
    /* How the last visual change is found. 0 (default, WebPageTest's rule for
     * videos): the first frame of the final run of frames that match the last
     * frame within 15 % in all but 5 pixels. 1: the last frame that changed at
     * all, for pictures that were already deduplicated (a filmstrip). */
    int last_change_exact;
    /* Decoder threads; 0 (default) = one per core. */
    int threads;
    /* Largest picture accepted, in pixels (default 8192 * 8192 = 67108864). */
    int64_t max_pixels;
    /* Log callback; NULL (default) discards messages. */
    void (*log_cb)(void *opaque, SettleLogLevel level, const char *msg);
    void *log_opaque;
    SettleLogLevel log_level; /* most verbose level passed on, default WARNING */
    /* Progress callback, NULL (default) = none: called from the thread that
     * measures, after each frame of settle_analyze_file / settle_analyze_io,
     * with the frame's time (seconds from the first frame), the duration the
     * file declares (NaN when it declares none) and the frames measured so far.
     * It must be quick; it must not call into this context. */
    void (*progress_cb)(void *opaque, double time, double duration, int64_t frames);
    void *progress_opaque;
    /* Phone screen recordings (a portrait picture that is not camera-like):
     * the top 7.5 % (whole 16-row blocks), where the system draws its status
     * bar (clock, battery, a pulsing recording indicator), is left out when
     * it changed on its own in some frame: of the block test, and of the
     * diff method's count in the frames where the block test saw it change
     * alone (a clock's tick). 1 (default): left out (reported in
     * SettleResult.status_bar_*); 0: kept. */
    int status_bar;
    /* The scale the pictures are measured at. 0 (default, auto): camera-like
     * captures (sensor noise changes pixels all over the picture in every
     * quiet frame of the first second) are measured on the picture reduced
     * by box averages of 2 x 2 pixels when the reduced picture keeps a short
     * side of 160 pixels (the noise leaves nothing finer to see, and the
     * per-pixel measures cost a quarter);
     * clean captures (HDMI, screen grabs, screen recordings) at full size.
     * 1: always full size. 2, 4 or 8: always reduced by that factor. Pixel
     * counts, rectangles and thresholds stay in full-size pixels either way;
     * see SettleResult.scale. Only 8-bit 4:2:0 video is reduced, and never
     * with --ignore, --region, --crop X,Y,W,H, --blur or visual metrics
     * (auto then measures at full size; a factor is refused). auto also
     * keeps the full size for --method diff and entropy (their counts and
     * histogram are full-size measures). The pictures kept while reading
     * (settle_keep_pictures) are the full-size picture's whatever the scale:
     * a reduced reading converts a frame at full size too when one is kept. */
    int scale;
    /* Phone screen recordings (a portrait picture): the right edge's 3 %
     * (whole columns of blocks) below the status bar, where Android and iOS
     * draw a scroll indicator that fades out after a page grows or scrolls,
     * is left out of the block test. 0 (default, as settle_default_settings
     * leaves it): left out (reported in SettleResult.scroll_bar_*); 1: kept.
     * Added in interface 1.1.0. */
    int scroll_bar_keep;
    /* Phone screen recordings (a portrait picture): the bottom 3 % (whole
     * rows of blocks), where iOS draws its home indicator and Android its
     * gesture handle, whose colour follows what lies under them, is left out
     * of the block test. 0 (default): left out (reported in
     * SettleResult.home_indicator_*); 1: kept. Added in interface 1.2.0. */
    int home_indicator_keep;
    /* Room for settings added later without changing the structure's size
     * (callers allocate it): zeroed by settle_default_settings, leave it so. */
    uint8_t reserved[48];
} SettleSettings;

/* Fills `s` with the defaults documented above. */
SETTLE_API void settle_default_settings(SettleSettings *s);

/* One analysis setting as a named option, for command lines, help texts and
 * the "settings" block of the JSON output. */
typedef struct SettleOption {
    const char *name;    /* "diff-threshold" */
    const char *arg;     /* the value's form, "PIXELS|PERCENT%" */
    const char *help;    /* one line */
    const char *dflt;    /* default as text */
} SettleOption;

/* The table of analysis options, terminated by an entry whose name is NULL. Static. */
SETTLE_API const SettleOption *settle_options(void);

/* Sets the option `name` from its text form `value`. On error returns
 * SETTLE_ERR_INVAL and writes "expected ..., got '...'" into err (if given). */
SETTLE_API int settle_settings_set(SettleSettings *s, const char *name, const char *value,
                                   char *err, size_t errlen);

/* Writes the current value of option `name` in the text form settle_settings_set
 * accepts. Returns the length, or SETTLE_ERR_INVAL for an unknown name. */
SETTLE_API int settle_settings_get(const SettleSettings *s, const char *name, char *buf,
                                   size_t buflen);

/* Checks the settings as a whole. Returns 0 or SETTLE_ERR_INVAL, with a
 * message naming the offending option in err. */
SETTLE_API int settle_settings_check(const SettleSettings *s, char *err, size_t errlen);

typedef struct SettleContext SettleContext;

/* Creates a context with a copy of the settings (defaults when s is NULL).
 * On success *c owns it; free with settle_close. */
SETTLE_API int settle_open(SettleContext **c, const SettleSettings *s);

/* Frees the context and sets *c to NULL. Safe on NULL. */
SETTLE_API void settle_close(SettleContext **c);

/* Asks a running analysis to stop at the next frame, from any thread or a
 * signal handler. The analysis then finishes with what it measured, marked
 * partial, and returns SETTLE_ERR_INTERRUPTED. Called between analyses, it
 * stops the next one at its first frame. settle_finish clears it. */
SETTLE_API void settle_interrupt(SettleContext *c);

/* Measures of one frame. */
typedef struct SettleFrame {
    int64_t index;        /* 0 = the first decoded frame */
    double time;          /* seconds since the first frame's timestamp */
    int64_t diff_pixels;  /* pixels changed by more than `tolerance` (0 for frame 0) */
    double entropy;       /* Shannon entropy in bits of the 768-bin RGB histogram */
    double entropy_delta; /* |entropy - mean entropy of the previous window frames| */
    double marker;        /* share of the picture within marker_tolerance of marker_rgb (0 without a marker) */
    int keyframe;         /* the decoder coded this frame as a keyframe / intra frame */
    int codec_refresh;    /* the change was judged codec noise and does not count */
    int quiet;            /* quiet under the method in use */
    double progress;      /* visual progress, 0..100 (whole percent), NaN when visual
                           * metrics are off or the frame is before the start */
    double block_peak;    /* the block test: the largest block residual over its threshold
                           * (above 1: that block changed; 0 for frame 0); NaN when the
                           * block test did not run (SettleResult.block_test) */
    int blocks_changed;   /* the block test: blocks over their threshold; -1 when it did not run */
    /* Each --region area's changed pixels (SettleSettings.region, in the order
     * given; as diff_pixels, on the area's pixels); 0 for the others. */
    int64_t region_pixels[SETTLE_MAX_REGIONS];
} SettleFrame;

/* A change between two frames: the rectangle that holds the pixels that
 * changed, in the input picture's pixels (as --crop is given), how many
 * changed, and when. */
typedef struct SettleChangeArea {
    int64_t frame;              /* -1 when there is none */
    double time;                /* seconds from the first frame */
    int x, y, width, height;    /* 0 x 0 when unknown */
    int64_t pixels;             /* pixels changed, as SettleFrame.diff_pixels */
} SettleChangeArea;

/* An area that kept changing until the end of the recording or for most of
 * it (a carousel, a clock, a spinner, a caret): found on a grid of 16x16
 * cells of the measured rectangle; a cell is animated when, after the rest
 * of the picture made its last change, it still changed in at least 3 frames
 * that counted as changes (not quiet for the diff method), and either kept
 * that rhythm to the end (the quiet after its last change is at most 1.5
 * times its longest pause between them) or changed over at least half of
 * the time from the start to the end. The changes other cells make during
 * the turns of such cells that change in bursts (a carousel's slides) are
 * theirs. Touching cells form one area (doc/screens.md has the whole rule). */
typedef struct SettleAnimatedRegion {
    int x, y, width, height;   /* the pixels it changed after the rest settled, input picture */
    int64_t changes;           /* frames after the start that changed it (its busiest cell) */
    double first_time;         /* its first change after the start, seconds from the first frame */
} SettleAnimatedRegion;

/* The stable time of one --region area. */
typedef struct SettleRegionResult {
    const char *name;
    int x, y, width, height;   /* as given */
    int measured;              /* 0: it lies outside the measured rectangle */
    int64_t stable_frame;      /* -1 when none: it still changes in the last frame */
    double stable_time;        /* seconds from the first frame; NaN when none */
    double load_time;          /* stable_time - the start */
    int64_t changes;           /* frames after the start in which it changed */
    SettleChangeArea deciding_change; /* its last change that counted (frame -1: none) */
} SettleRegionResult;

/* The outcome of one analysis. Valid until the next analysis starts on the
 * same context or the context is closed; owned by the context. Times are in
 * seconds; NaN where there is no value. */
typedef struct SettleResult {
    const char *input;          /* name given to settle_begin / the file path */
    int64_t frames;             /* frames measured */
    double duration;            /* first frame to the end of the last frame */
    int width, height;
    SettleMethod method;        /* the method used: DIFF or ENTROPY, never AUTO */
    const char *method_reason;  /* why, one sentence */
    double diff_threshold;      /* effective threshold in pixels */
    double noise_floor;         /* typical changed pixels of a quiet frame (10th percentile) */
    int64_t start_frame;        /* -1 when not found */
    double start_time;          /* from the first frame */
    int64_t stable_frame;       /* -1 when not found */
    double stable_time;         /* from the first frame */
    double load_time;           /* stable_time - start_time */
    /* First and last visual change, measured from the start. Without visual
     * metrics: the first and last non-quiet frame after the start. With
     * visual metrics, WebPageTest's definitions on the picture scaled down to
     * at most 400 pixels a side: the first frame in which a pixel moved by
     * more than 25 levels (10 %) from the start frame (ignoring the centre
     * 5 % and a bottom strip), and the first frame of the final run of frames
     * that differ from the last frame in at most 5 pixels by more than 38
     * levels (15 %) (see last_change_exact). */
    double first_visual_change;
    double last_visual_change;
    double quiet_tail;          /* seconds from the stable frame to the end of the capture */
    int64_t codec_refreshes;    /* frames whose change was judged codec noise */
    int partial;                /* the capture was not read to its end */
    int error;                  /* 0 or the SETTLE_ERR_* code that ended or marred the analysis */
    const char *error_message;  /* one line without the file name, or NULL */
    /* The rectangle measured (the whole picture without a crop). */
    int crop_x, crop_y, crop_w, crop_h;
    /* Visual metrics (NaN when off or when there is no start): seconds from
     * the start. speed_index is the integral of (1 - progress) from the start
     * to the last visual change; visually_complete_N is the first time
     * progress reached N % and stayed at or above it. */
    double speed_index;
    double visually_complete_85, visually_complete_95, visually_complete_99;
    int rotation;               /* degrees clockwise (0, 90, 180, 270) a player turns the
                                 * stored picture to show it (a phone's display matrix); 0 when
                                 * none. The analysis uses the stored picture: rotating it would
                                 * change no pixel count. */
    /* The status bar of a phone screen recording: status_bar is 1 when rows
     * status_bar_y .. status_bar_y + status_bar_h - 1 of the measured
     * rectangle were left out, 0 when none was found or it was kept
     * (status_bar_frames then tells whether one was seen). */
    int status_bar;
    int status_bar_y, status_bar_h;
    int64_t status_bar_frames;  /* frames in which only those rows changed */
    /* Whether the block test ran: with SETTLE_METHOD_AUTO and
     * SETTLE_METHOD_BLOCKS, and with SETTLE_START_FIRST_CHANGE; methods diff
     * and entropy alone do not read it and leave it out (about a tenth of the
     * analysis). When 0, the fields below are NaN, 0 or -1, and the status bar
     * is not looked for. */
    int block_test;
    /* The block test's noise model (method blocks): per brightness level (8 levels of 32, by the reference's
     * luma) the estimated median residual of a block mean, in levels, and
     * the threshold it gave; NaN for levels the capture did not show. */
    double block_noise[8], block_threshold[8];
    double gain_min, gain_max;  /* luma gain against the reference: exposure drift taken out */
    double row_offset_max;      /* largest row offset taken out (rolling-shutter flicker), levels */
    int64_t faint_frames;       /* frames diff counts as a change that the block test judged
                                 * not content (encoder re-codes, noise, drift); -1 when
                                 * the block test did not run */
    /* The change that made the stable frame: the last change that counted
     * (frame -1 when there is no stable frame, or when the stable frame is
     * the start because nothing changed after it). */
    SettleChangeArea deciding_change;
    /* --settle, when no frame qualifies: the longest quiet after a change
     * (seconds), when it began (seconds from the first frame) and the frame
     * of that change; NaN and -1 otherwise, and when nothing changed. */
    double longest_quiet;
    double longest_quiet_time;
    int64_t longest_quiet_frame;
    /* The animated areas (see SettleAnimatedRegion), valid as the result is.
     * animated_known is 1 when they were looked for (nanimated 0: none
     * found), 0 when they were not: the entropy method, the block test on a
     * camera-like capture (a camera's noise changes every cell), no start. */
    int animated_known;
    int nanimated;
    const SettleAnimatedRegion *animated;
    /* --ignore animated was applied: the answer is the rest's (with the diff
     * method also when no area was found: the decision made again without
     * what an encoder re-coded in frames with no content for the block test,
     * doc/screens.md). */
    int animated_ignored;
    /* The --region areas, in the order given; valid as the result is. */
    int nregions;
    const SettleRegionResult *regions;
    /* The scale the capture was measured at (SettleSettings.scale): 1 = full
     * size, else the factor F of the reduction and the reduced picture's size;
     * every count, rectangle and threshold above is in full-size pixels
     * (counts of the reduced picture x F x F). scale_reason says why (valid
     * as the result is); scale_reread: the first reading was reduced but the
     * whole capture turned out clean, so it was read again at full size. */
    int scale;
    int scale_width, scale_height;
    const char *scale_reason;
    int scale_reread;
    /* The right edge a phone's scroll indicator is drawn at
     * (SettleSettings.scroll_bar_keep): scroll_bar is 1 when columns
     * scroll_bar_x .. scroll_bar_x + scroll_bar_w - 1 of the measured
     * rectangle, below the status bar's rows, were left out of the block
     * test; scroll_bar_frames: the frames in which the block test saw only
     * them change (besides the status bar) while they were left out. An
     * edge that changes on its own in 30 frames is kept from then on
     * (scroll_bar 0, scroll_bar_frames > 0). Added in interface 1.1.0. */
    int scroll_bar;
    int scroll_bar_x, scroll_bar_w;
    int64_t scroll_bar_frames;
    /* The bottom rows a phone's home indicator is drawn in
     * (SettleSettings.home_indicator_keep): home_indicator is 1 when rows
     * home_indicator_y .. home_indicator_y + home_indicator_h - 1 of the
     * measured rectangle were left out of the block test;
     * home_indicator_frames: the frames in which the block test saw only
     * them change (besides the status bar) while they were left out. Rows
     * that change on their own in 30 frames are kept from then on
     * (home_indicator 0, home_indicator_frames > 0). Added in interface
     * 1.2.0. */
    int home_indicator;
    int home_indicator_y, home_indicator_h;
    int64_t home_indicator_frames;
} SettleResult;

/* A packed RGB24 picture pushed by the caller. */
typedef struct SettlePicture {
    const uint8_t *rgb;   /* width * 3 bytes a row */
    ptrdiff_t stride;     /* bytes from one row to the next */
    int width, height;    /* must equal those given to settle_begin */
    double time;          /* seconds, increasing; the first picture's time is the origin */
    int keyframe;         /* 1 if the source coded it as a keyframe */
    double duration;      /* seconds it is shown, 0 = unknown (then the last frame interval is used) */
} SettlePicture;

/* Starts an analysis of pictures of the given size; `name` is copied and used
 * in messages and outputs. */
SETTLE_API int settle_begin(SettleContext *c, const char *name, int width, int height);

/* Measures one picture. The picture is not retained after the call. */
SETTLE_API int settle_send_picture(SettleContext *c, const SettlePicture *p);

/* Marks the analysis partial with this error (e.g. the source was truncated)
 * before settle_finish. `message` is copied. */
SETTLE_API void settle_set_error(SettleContext *c, int err, const char *message);

/* Ends the analysis and decides. *res points into the context. Returns 0 when
 * a stable frame was found; otherwise the error (SETTLE_ERR_NOT_STABLE,
 * SETTLE_ERR_NO_START, SETTLE_ERR_TOO_SHORT, or an error set before), and *res
 * still describes what was measured. */
SETTLE_API int settle_finish(SettleContext *c, const SettleResult **res);

/* Decodes the file and analyses every frame: settle_begin, settle_send_picture
 * for each frame, settle_finish. Same return as settle_finish; when the file
 * cannot be opened at all *res still holds the input name and the error. */
SETTLE_API int settle_analyze_file(SettleContext *c, const char *path, const SettleResult **res);

/* Like settle_analyze_file, for a capture that is not a file: libavformat
 * reads it through the caller's callbacks (a buffer in memory, a socket).
 * `name` names the input in the result and messages (and its extension helps
 * to recognise the format).
 *   read: copies up to `size` bytes into buf and returns how many (> 0), 0 at
 *         the end of the input, or a negative number on a read error (the
 *         result is then partial, SETTLE_ERR_DECODE).
 *   seek: like lseek with SEEK_SET, SEEK_CUR or SEEK_END: returns the new
 *         position or a negative number when it cannot. NULL for an input that
 *         cannot seek (a pipe): formats that need seeking (an mp4 with its
 *         index at the end) then cannot be read.
 * The callbacks are called only during this call, from the calling thread;
 * `opaque` is passed to them unchanged. Same returns as settle_analyze_file. */
SETTLE_API int settle_analyze_io(SettleContext *c, const char *name,
                                 int (*read)(void *opaque, uint8_t *buf, int size),
                                 int64_t (*seek)(void *opaque, int64_t offset, int whence),
                                 void *opaque, const SettleResult **res);

/* Whether every frame's entropy and entropy_delta are measured (every = 1,
 * the default) or only those the analysis itself reads (every = 0): with
 * the codec refresh filter on, those of a faint frame at a keyframe or one
 * of the two after it whose changed pixels are under the threshold, and of
 * the SettleSettings.window frames before it; without it, none. The colour
 * histogram behind the entropy then costs nothing on the other frames, whose
 * SettleFrame.entropy and entropy_delta are NaN (in settle_foreach_frame,
 * settle_write_csv and settle_last_frame). The results are the same either
 * way. Where the keyframes ahead are known (a VP8 film read by
 * settle_analyze_file or settle_analyze_io: the reading looks a few packets
 * ahead) the frames far from a keyframe keep nothing for it; elsewhere
 * (pictures sent by the caller, any other codec) every frame may be read
 * and keeps its histogram, or a copy of its picture when it follows one
 * that changed most of its rows. It does not apply with
 * SETTLE_METHOD_ENTROPY or settle_keep_pictures, which read every frame's.
 * Set before an analysis; it holds for the next ones. Returns 0,
 * SETTLE_ERR_INVAL (no context) or SETTLE_ERR_STATE (an analysis is
 * running). */
SETTLE_API int settle_frame_entropy(SettleContext *c, int every);

/* The measures of the last picture measured in the analysis under way (a
 * picture settle_send_picture held back, while --crop viewport searches, is
 * not measured), for a caller that decides things as the pictures arrive
 * (settle record's stop rule). `quiet` is under the method the pictures
 * measured so far would choose: with SETTLE_METHOD_AUTO that choice can
 * change until settle_finish. progress is NaN. Returns 0, SETTLE_ERR_STATE
 * when no analysis is under way or none of its pictures was measured yet. */
SETTLE_API int settle_last_frame(SettleContext *c, SettleFrame *f);

/* Moves the start of the analysis under way to `seconds` on the pictures'
 * clock, for a caller that learns the start while the pictures arrive
 * (settle record: the launch). Only with SETTLE_START_TIME, before the start
 * frame was found, and before any picture at or after `seconds` was sent.
 * The result then reads as if `start` had been `seconds` from the beginning.
 * Returns 0, SETTLE_ERR_INVAL (not a time), SETTLE_ERR_STATE otherwise. */
SETTLE_API int settle_set_start_time(SettleContext *c, double seconds);

/* Calls `cb` for every frame of the last finished analysis, in order, with the
 * quiet flag of the method used. Stops and returns cb's value when it is
 * non-zero. */
SETTLE_API int settle_foreach_frame(SettleContext *c,
                                    int (*cb)(void *opaque, const SettleFrame *f),
                                    void *opaque);

/* Writes the per-frame CSV of the last finished analysis: a header line, then
 * frame,time,diff_pixels,entropy,entropy_delta,quiet,keyframe,codec_refresh,progress
 * for every frame (progress is empty without visual metrics). '.' is the
 * decimal point whatever the locale. With marks attached (settle_attach_marks,
 * settle/marks.h) a last column "marks" names the marks on each frame (the
 * frame on screen at the mark's time), joined by "; ". */
SETTLE_API int settle_write_csv(SettleContext *c, FILE *f);

/* Writes the last result as one JSON object on one line, with the effective
 * settings and "warnings": [{"code": ..., "message": ...}, ...] (see
 * settle_get_warnings; an empty list when there are none). */
SETTLE_API int settle_write_json(SettleContext *c, FILE *f);

/* An answer a user should not trust blindly. */
typedef struct SettleWarning {
    /* "short_quiet_tail": the stable frame is followed by less quiet than
     *     SETTLE_QUIET_TAIL_MIN seconds (or the --settle time, when longer)
     *     before the recording ends: a later change may have been cut off;
     * "zero_load_time": the stable frame is the start frame;
     * "no_start": the start was never found. */
    const char *code;
    char message[224]; /* one sentence with the figures, no file name */
} SettleWarning;

#define SETTLE_MAX_WARNINGS 3
/* Seconds of quiet after the stable frame below which "short_quiet_tail" is
 * raised: a second is longer than the pauses between the steps of a start-up
 * (a spinner's frame, a lazy image) that settle's decision can mistake for
 * the end, and short enough that a recording stopped soon after the app
 * settled passes. */
#define SETTLE_QUIET_TAIL_MIN 1.0

/* Fills w[0..n-1] with the warnings about the last finished analysis, in the
 * order of the codes above. Returns n (0 to SETTLE_MAX_WARNINGS), or
 * SETTLE_ERR_INVAL. `w` holds SETTLE_MAX_WARNINGS entries; the caller owns it. */
SETTLE_API int settle_get_warnings(SettleContext *c, SettleWarning *w);

/* Sets how much libavformat/libavcodec print to stderr, for the whole
 * process (their logging is global): SETTLE_LOG_ERROR prints only errors,
 * a negative level silences them. The library itself never calls this. */
SETTLE_API void settle_codec_log_level(int level);

/* Adds a label, copied into every JSON result of this context as
 * "labels": {"key": "value", ...} in the order added; a key added again
 * replaces its value. Keys and values are copied. Use it for what the
 * analysis cannot know: the build, the device, the run. Returns 0,
 * SETTLE_ERR_INVAL (NULL or empty key) or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_add_label(SettleContext *c, const char *key, const char *value);

/* Whether the JSON result in the file `result_path` (as settle_write_json
 * wrote it) is what analysing `input` with this context would give again:
 * the same "input" name, the file's size and modification time as stored
 * ("input_size", "input_mtime"), the same "settle_version", the same
 * "settings" and the same "labels". Returns 1 when it is, 0 when it is not
 * (or the result is missing or unreadable, or `input` cannot be stat'ed),
 * SETTLE_ERR_NOMEM. */
SETTLE_API int settle_result_is_current(SettleContext *c, const char *input,
                                        const char *result_path);

/* The metrics a comparison can use, by index: 0 load_time,
 * 1 first_visual_change, 2 last_visual_change, 3 speed_index (present only in
 * results from versions that compute it). */
#define SETTLE_NB_METRICS 4
/* After them, SETTLE_MAX_GAPS metric slots for the gaps of the app's marks
 * ("marks" in the JSON: stable time minus mark time), each slot the gap of one
 * mark name, as settle_results_set_gaps (settle/compare.h) assigns them. */
#define SETTLE_MAX_GAPS 12
#define SETTLE_NB_SLOTS (SETTLE_NB_METRICS + SETTLE_MAX_GAPS)
/* The JSON name of metric i, NULL when out of range (and for gap slots). Static. */
SETTLE_API const char *settle_metric_name(int i);

/* One result as read back from a JSON line (or taken from a SettleResult),
 * for comparisons. */
typedef struct SettleResultInfo {
    char *input;                       /* owned; "" when absent */
    char *status;                      /* owned: "stable", "not_stable", "no_start", "partial", "interrupted", "failed" */
    char *error;                       /* owned; NULL when there was no error */
    int partial;
    char *settings;                    /* owned: the "settings" object as compact JSON, "" when absent */
    /* The metrics, then the gap slots (see settle_results_set_gaps; not
     * present until it is called). */
    int present[SETTLE_NB_SLOTS];      /* the field exists (possibly null) */
    double value[SETTLE_NB_SLOTS];     /* NaN when absent or null */
    char *labels;                      /* owned: the "labels" object as compact JSON, "" when absent */
    /* The app's marks of the result ("marks"), in its order: owned names and
     * their gaps in seconds (NaN when null). */
    int nmarks;
    char **mark_name;
    double *mark_gap;
    /* The mark name of each gap slot, pointing into some result's mark_name
     * (not owned), NULL for an unused slot; for a region slot the region's
     * name, pointing into some result's region_name. */
    const char *gap_name[SETTLE_MAX_GAPS];
    /* The --region areas of the result ("regions"), in its order: owned names
     * and their load times in seconds (NaN when null: not stable). */
    int nregions;
    char **region_name;
    double *region_load;
    /* 1 where slot SETTLE_NB_METRICS + k holds the load time of the region
     * gap_name[k] (settle_results_set_regions, settle/compare.h) instead of
     * a mark's gap. */
    int slot_region[SETTLE_MAX_GAPS];
} SettleResultInfo;

/* Parses one JSON object (`len` bytes of `json`, no NUL needed). Results
 * written before "status" existed get it from "error" and "load_time".
 * Returns 0, SETTLE_ERR_FORMAT (not a JSON object, or no "input") or
 * SETTLE_ERR_NOMEM. Free with settle_result_info_free (also after failure). */
SETTLE_API int settle_result_info_parse(const char *json, size_t len, SettleResultInfo *info);

/* Fills `info` from the last finished analysis of the context. Returns 0,
 * SETTLE_ERR_STATE when none finished, or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_result_info_get(SettleContext *c, SettleResultInfo *info);

SETTLE_API void settle_result_info_free(SettleResultInfo *info);

/* The value of label `key` of a result into buf (truncated to len - 1 bytes).
 * Returns 1 when the result has it, 0 when not, SETTLE_ERR_INVAL or
 * SETTLE_ERR_NOMEM. */
SETTLE_API int settle_result_label(const SettleResultInfo *info, const char *key, char *buf,
                                   size_t len);

/* The "status" word of an outcome: "stable" for 0, "not_stable",
 * "no_start", "partial" (SETTLE_ERR_DECODE), "interrupted", or "failed". Static. */
SETTLE_API const char *settle_status_name(int err);

/* The name of a method ("auto", "diff", "entropy"). Static. */
SETTLE_API const char *settle_method_name(SettleMethod m);

#ifdef __cplusplus
}
#endif

#endif /* SETTLE_SETTLE_H */
