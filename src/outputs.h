/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the writers read: the stages' outputs of one finished analysis (the
 * result, the per-frame records, the decide stage's method, the visual
 * progress, the pictures kept), never the context. lib.c fills it
 * (settle_outputs_of); the public writers in write.c hand it on to csv.c,
 * json.c, warnings.c, pictures.c and grab_frames.c.
 */
#ifndef SETTLE_OUTPUTS_H
#define SETTLE_OUTPUTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "settle/settle.h"
#include "keep.h"
#include "records.h"
#include "visual.h"

struct SettleMarks;
struct SettleContext;

/* The per-frame records as SettleFrame, each with its visual progress. */
typedef struct SettleFrameSource {
    SettleRecords *records;
    int64_t n;              /* records written */
    int which;              /* the decide stage's method (SETTLE_T_): whose "quiet" */
    SettleVisual *visual;   /* the visual progress, NULL without */
} SettleFrameSource;

/* What identifies the result: the input as it was read, the labels. */
typedef struct SettleIdentity {
    int in_known;
    int64_t in_size;
    int64_t in_mtime_sec;
    long in_mtime_nsec;
    char *const *labels;    /* key, value, key, value ... */
    int nlabels;
} SettleIdentity;

/* A picture of a second reading and its frame index; nonzero stops the reading. */
typedef int (*SettleReadHook)(void *opaque, const SettlePicture *p, int64_t index);

typedef struct SettleOutputs {
    const SettleSettings *s; /* the settings the analysis ran with */
    const SettleResult *res;
    int finished;           /* settle_finish ran: the result and the records are whole */
    SettleFrameSource frames;
    SettleKeep *keep;       /* the pictures kept during the reading (keep.c): a
                             * picture its source holds is made when asked for */
    const struct SettleMarks *marks; /* attached, NULL for none */
    SettleIdentity id;
    /* the read stage again, for pictures that were not kept: each picture of
     * the capture to hook until it returns nonzero: returned as is, but 0 for
     * `done`, and SETTLE_ERR_INTERRUPTED once the analysis is interrupted */
    int (*read_again)(void *read_opaque, SettleReadHook hook, void *hook_opaque, int done);
    void *read_opaque;
} SettleOutputs;

/* The outputs of c (lib.c). Always fills o; valid while c is and until its
 * next settle_begin. */
void settle_outputs_of(struct SettleContext *c, SettleOutputs *o);

/* Each record of src as a SettleFrame to cb, in order, until cb returns
 * nonzero (returned). Returns 0, cb's value, or SETTLE_ERR_IO. (frames.c) */
int settle_frames_foreach(const SettleFrameSource *src, int (*cb)(void *, const SettleFrame *),
                          void *opaque);



/* Adds the identity of the result to `o`: "input_size", "input_mtime" (from
 * a stat of `path` when given, else from the last analysis), and returns 0 or
 * -1 (out of memory). And the parts that must match for a result to be
 * current: "settings", "labels", "settle_version". */
struct cJSON;
int settle_json_add_input_id(const SettleIdentity *id, struct cJSON *o, const char *path);
int settle_json_add_setup(const SettleSettings *s, const SettleIdentity *id, struct cJSON *o);
/* The attached marks as "marks" (marks_out.c). 0 or -1. */
int settle_json_add_marks(const struct SettleMarks *m, struct cJSON *o);

/* Writes x with `decimals` digits after a '.', whatever the locale. */
void settle_format_fixed(char *buf, size_t len, double x, int decimals);

/* The writers, each from the outputs alone. */
int settle_csv_write(const SettleOutputs *o, FILE *out);                 /* csv.c */
int settle_json_write(const SettleOutputs *o, FILE *out);                /* json.c */
int settle_warnings_of(const SettleOutputs *o, SettleWarning *w);        /* warnings.c */
int settle_pictures_pick(const SettleOutputs *o, SettlePictures **out);  /* pictures.c */
int settle_frames_pick(const SettleOutputs *o, const int64_t *frames, int n, int box,
                       SettleImage **out);                               /* grab_frames.c */

#endif
