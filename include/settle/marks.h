/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Marks: the times an app or a test harness reports for its own start-up
 * ("Displayed", "Fully drawn", TotalTime, timeToInitialDisplayMs, a marker),
 * read from the files they write, put on the capture's timeline and set
 * beside the stable time the capture shows. Usage:
 *
 *     SettleMarks *m;
 *     settle_marks_new(&m);
 *     settle_marks_add_regex(m, "login=LoginActivity.onResume", err, sizeof(err));
 *     if (settle_marks_read(m, "logcat.txt", err, sizeof(err)) < 0) ... err ...
 *     SettleMarkClocks k;
 *     settle_default_mark_clocks(&k);
 *     k.launch_time = r->start_time;        // the launch, on the capture's clock
 *     settle_marks_place(m, &k);
 *     settle_marks_set_gaps(m, r->stable_time);
 *     for (int i = 0; i < settle_marks_count(m); i++) ... settle_marks_get(m, i) ...
 *     settle_marks_free(&m);
 *
 * Which clock each mark is on is part of the mark; a mark is placed on the
 * capture's clock only by a rule the caller chose (SettleMarkClocks), and a
 * mark that no rule places keeps the reason in `reason`. Nothing is guessed.
 * doc/marks.md says what each platform mark measures.
 *
 * The functions return 0 (or the non-negative value documented) or a
 * negative SETTLE_ERR_* code from settle/settle.h; where an `err` buffer is
 * given, a failure writes one line into it naming the file and, for a bad
 * line, its number ("logcat.txt:12: ..."). The library never prints.
 */
#ifndef SETTLE_MARKS_H
#define SETTLE_MARKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "settle/settle.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The clock a time is on. Every value is in seconds. */
typedef enum SettleMarkClock {
    SETTLE_MARK_CLOCK_NONE = 0,    /* no time at all (a logcat -v brief line) */
    SETTLE_MARK_CLOCK_LAUNCH,      /* from the launch: Displayed +..., TotalTime, Macrobenchmark */
    SETTLE_MARK_CLOCK_CAPTURE,     /* the capture's own clock, from its first frame (CSV marks) */
    SETTLE_MARK_CLOCK_WALL,        /* the device's local wall clock, with the year (-v year) */
    SETTLE_MARK_CLOCK_WALL_NOYEAR, /* local wall clock without a year (threadtime, time): seconds
                                    * from 1 January 00:00 of an unnamed non-leap year */
    SETTLE_MARK_CLOCK_EPOCH,       /* UTC seconds since 1970 (-v epoch, or a dated stamp with its zone) */
    SETTLE_MARK_CLOCK_MONOTONIC,   /* device seconds since boot, not counting sleep (-v monotonic) */
    SETTLE_MARK_CLOCK_BOOT         /* device seconds since boot, counting sleep (screenrecord v2) */
} SettleMarkClock;

/* How a mark was put on the capture's clock. */
typedef enum SettleMarkPlacement {
    SETTLE_MARK_UNPLACED = 0,  /* not placed: see reason */
    SETTLE_MARK_BY_LAUNCH,     /* a duration added to launch_time */
    SETTLE_MARK_BY_CAPTURE,    /* already on the capture's clock */
    SETTLE_MARK_BY_ZERO,       /* its stamp minus the log's reading at the first frame (zero) */
    SETTLE_MARK_BY_ANCHOR,     /* its stamp against the anchor mark's stamp */
    SETTLE_MARK_BY_DEVICE      /* its stamp against screenrecord's per-frame device times */
} SettleMarkPlacement;

/* The formats recognised from a file's content. */
typedef enum SettleMarksFormat {
    SETTLE_MARKS_LOGCAT = 1,     /* adb logcat: threadtime, time, brief, tag, epoch, monotonic, year, zone */
    SETTLE_MARKS_AM_START,       /* the output of am start -W */
    SETTLE_MARKS_MACROBENCHMARK, /* Jetpack Macrobenchmark's *-benchmarkData.json */
    SETTLE_MARKS_CSV,            /* time,name on the capture's clock */
    SETTLE_MARKS_TEXT            /* other text in which a --mark-regex matched */
} SettleMarksFormat;

/* One mark. Strings are owned by the SettleMarks that holds it. */
typedef struct SettleMark {
    const char *name;      /* the source's own words: "Displayed com.example/.Main",
                            * "Fully drawn com.example/.Main", "TotalTime", "WaitTime",
                            * "timeToInitialDisplayMs", "LABEL start" / "LABEL stop" for a
                            * GameBench marker, the --mark-regex NAME, the CSV's name */
    const char *source;    /* "logcat.txt:12", "run-benchmarkData.json:benchmarks[0].metrics.
                            * timeToFullDisplayMs.runs[2]" */
    SettleMarkClock clock; /* the clock of `value` */
    double value;          /* seconds on `clock` */
    SettleMarkClock stamp_clock; /* the line's own time stamp, NONE when it has none */
    double stamp;
    int run, runs;         /* Macrobenchmark: this iteration (from 0) of `runs`; else -1, 0 */
    SettleMarkPlacement placed_by;
    double time;           /* seconds on the capture's clock (as stable_time); NaN when unplaced */
    double gap;            /* stable_time - time, signed; NaN until settle_marks_set_gaps or
                            * when either is unknown */
    int64_t frame;         /* the frame on screen at `time` (from 0): the last frame whose time
                            * is at or before it; -1 until settle_attach_marks, when unplaced,
                            * or when `time` is before the first frame or after the capture's
                            * end */
    const char *reason;    /* why the mark is not placed; NULL when placed */
} SettleMark;

typedef struct SettleMarks SettleMarks;

/* Screenrecord's per-frame device times (see settle_read_device_times). */
typedef struct SettleDeviceTimes {
    int version;           /* 0: "#VV1NSC0PET1ME!#" (legacy); 1 or 2: "#VV1NSC0PET1ME2#" */
    SettleMarkClock clock; /* MONOTONIC (legacy and version 1) or BOOT (version 2) */
    double real_to_boot;   /* version 2: EPOCH time = BOOT time + this; NaN otherwise */
    int64_t count;         /* frames, >= 1 */
    double *device;        /* count device times on `clock`, increasing */
    double *capture;       /* count frame times on the capture's clock, from its first frame */
} SettleDeviceTimes;

/* How to place marks (settle_default_mark_clocks fills the defaults). */
typedef struct SettleMarkClocks {
    /* The launch on the capture's clock, in seconds (normally the result's
     * start_time, from --start or found in the video). Durations from the
     * launch are placed at launch_time + duration, even when their line also
     * carries a time stamp. Default NaN: they stay unplaced. */
    double launch_time;
    /* The log's clock reading at the capture's first frame (a stamp parsed
     * with settle_marks_parse_stamp). A stamped mark on zero_clock is placed
     * at stamp - zero. Default SETTLE_MARK_CLOCK_NONE: not given. */
    SettleMarkClock zero_clock;
    double zero;
    /* The name of a mark whose event is also seen in the video, at
     * anchor_time on the capture (NaN: at launch_time). A stamped mark on the
     * anchor's clock is placed at anchor_time + stamp - anchor stamp. The
     * name must match exactly one stamped mark. Default NULL: none. The
     * string is not copied; it must live until settle_marks_place returns. */
    const char *anchor;
    double anchor_time;
    /* Per-frame device times from the capture itself, or NULL (default). A
     * stamped mark on their clock (or, for version 2, an EPOCH stamp) is
     * placed at the time of the frame on screen at that device time plus
     * the time since that frame. */
    const SettleDeviceTimes *device;
} SettleMarkClocks;

SETTLE_API void settle_default_mark_clocks(SettleMarkClocks *k);

/* A new empty set of marks in *m; free with settle_marks_free. */
SETTLE_API int settle_marks_new(SettleMarks **m);

/* Frees everything and sets *m to NULL. Safe on NULL. */
SETTLE_API void settle_marks_free(SettleMarks **m);

/* Adds a user mark "NAME=REGEX" (POSIX extended regular expression) applied
 * to every line of the text files read afterwards: a matching line gives a
 * mark NAME at the line's time stamp, or, when the expression has a
 * parenthesised group that matched, at the duration from the launch that
 * the group's text gives ("+1s234ms", "797ms", or a plain number of
 * milliseconds). SETTLE_ERR_INVAL when NAME is empty or REGEX invalid. */
SETTLE_API int settle_marks_add_regex(SettleMarks *m, const char *spec, char *err,
                                      size_t errlen);

/* Macrobenchmark files hold one time per iteration. With run >= 0 only that
 * iteration (from 0) is kept from the files read afterwards, and a file with
 * fewer iterations is refused; with -1 (default) every iteration is kept,
 * and placed only when a series has a single one. */
SETTLE_API void settle_marks_set_run(SettleMarks *m, int run);

/* Reads the marks in `size` bytes of `data` (no NUL needed), naming them
 * `name` in sources and messages; the format is recognised from the
 * content. Returns the SettleMarksFormat (> 0) and appends its marks, or
 * SETTLE_ERR_INVAL when the content is in no known format or has a bad line
 * (nothing is appended then), SETTLE_ERR_NOMEM. */
SETTLE_API int settle_marks_parse(SettleMarks *m, const char *name, const char *data,
                                  size_t size, char *err, size_t errlen);

/* settle_marks_parse on the content of the file at `path` (at most 256 MiB).
 * SETTLE_ERR_IO when it cannot be read. */
SETTLE_API int settle_marks_read(SettleMarks *m, const char *path, char *err, size_t errlen);

SETTLE_API int settle_marks_count(const SettleMarks *m);

/* Mark i (0..count-1) or NULL. Valid until the marks change or are freed. */
SETTLE_API const SettleMark *settle_marks_get(const SettleMarks *m, int i);

/* Parses a time stamp as logcat prints it ("01-23 12:34:56.789",
 * "2024-01-23 12:34:56.789 +0100", "1706012096.789", "  12345.678") into its
 * clock and value: for SettleMarkClocks.zero. 0 or SETTLE_ERR_INVAL. */
SETTLE_API int settle_marks_parse_stamp(const char *text, SettleMarkClock *clock, double *value);

/* Places every mark on the capture's clock by the rules of `k`, replacing
 * any earlier placement, and clears the gaps. Returns how many were placed,
 * or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_marks_place(SettleMarks *m, const SettleMarkClocks *k);

/* Sets every mark's gap to stable_time - time (NaN when either is NaN). */
SETTLE_API void settle_marks_set_gaps(SettleMarks *m, double stable_time);

/* The clock's name in outputs: "launch", "capture", "wall", "wall-noyear",
 * "epoch", "monotonic", "boot", "none". Static. */
SETTLE_API const char *settle_mark_clock_name(SettleMarkClock clock);

/* The placement's name: "launch", "capture", "zero", "anchor", "device",
 * "unplaced". Static. */
SETTLE_API const char *settle_mark_placement_name(SettleMarkPlacement p);

/* Reads the per-frame device times Android's screenrecord stores in its MP4
 * (the Winscope metadata: "#VV1NSC0PET1ME!#" then a little-endian u32 frame
 * count and a u64 monotonic time in microseconds per frame; or
 * "#VV1NSC0PET1ME2#", u32 version, i64 real-to-boot offset in ns, u32 frame
 * count and a u64 time in ns per frame, on the boot clock for version 2),
 * looked for in the packets of the capture's non-video streams and then in
 * the file's bytes, and pairs them with the capture's video frames in
 * presentation order. Returns 1 and sets *t (free with
 * settle_device_times_free) when found; 0 and *t = NULL when the capture has
 * none; SETTLE_ERR_IO, SETTLE_ERR_FORMAT (not a capture libavformat opens),
 * SETTLE_ERR_INVAL (metadata present but inconsistent: truncated, another
 * frame count than the video's, times not increasing; with the reason in
 * err), SETTLE_ERR_NOMEM. */
SETTLE_API int settle_read_device_times(const char *path, SettleDeviceTimes **t, char *err,
                                        size_t errlen);

SETTLE_API void settle_device_times_free(SettleDeviceTimes **t);

/* Attaches the marks to the last finished analysis of `c` (after
 * settle_marks_place): sets every mark's gap from the result's stable time
 * and its frame, and makes settle_write_json add them to the result as
 * "marks": [{"name", "time", "gap", "frame", "source", "clock", "value",
 * "placed_by", "reason"}] ("time", "gap" and "frame" null when unknown,
 * "reason" null when placed). The marks are not copied: they must outlive
 * the writes, until the next analysis starts on `c` (which detaches them) or
 * settle_attach_marks(c, NULL). Returns 0, SETTLE_ERR_INVAL, or
 * SETTLE_ERR_STATE when no analysis finished. */
SETTLE_API int settle_attach_marks(SettleContext *c, SettleMarks *m);

/* Writes the marks as CSV, '.' the decimal point whatever the locale:
 * the header name,time,frame,gap,clock,value,placed_by,source,reason then a
 * row a mark in the order read; times and gaps in seconds to the
 * microsecond, empty when unknown; text fields quoted ("a, b", "" for a
 * quote) when they hold a comma, a quote or a line break. 0 or
 * SETTLE_ERR_IO. */
SETTLE_API int settle_marks_write_csv(const SettleMarks *m, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
