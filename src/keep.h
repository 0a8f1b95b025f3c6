/* SPDX-License-Identifier: BSD-2-Clause */
/* Internal: what settle_grab_pictures needs, kept during the one reading of
 * the capture (settle_keep_pictures), so that the pictures need no second:
 * full-size copies of the frames that can turn out to be key frames, and the
 * filmstrip's candidate thumbnails of each method. */
#ifndef SETTLE_KEEP_H
#define SETTLE_KEEP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "measure.h"
#include "pictures.h"
#include "record.h"

/* Candidate thumbnails kept for each method, at most: past it, every other
 * one is dropped and the method keeps every 2nd (4th, 8th ...) distinct frame. */
#define SETTLE_KEEP_CANDIDATES (4 * SETTLE_FILMSTRIP_MAX)

/* The roles a full-size copy is kept for: each method's start frame, its
 * first change, its latest change and the frame that change settled on (the
 * method's stable frame if nothing changes after; the entropy method walks
 * back to an earlier frame); the visual metrics' first change and the last
 * two pictures they stored (the last visual change is the earliest of the
 * stored pictures that match the last one); and the capture's last frame. */
enum {
    SETTLE_KEEP_START = 0,
    SETTLE_KEEP_FIRST = SETTLE_T_COUNT,
    SETTLE_KEEP_LAST = 2 * SETTLE_T_COUNT,
    SETTLE_KEEP_SETTLED = 3 * SETTLE_T_COUNT,
    SETTLE_KEEP_VFIRST = 4 * SETTLE_T_COUNT,
    SETTLE_KEEP_VLAST,
    SETTLE_KEEP_VPREV,
    SETTLE_KEEP_END,    /* the capture's last frame (settle_keep_last) */
    SETTLE_KEEP_ROLES
};

/* Pixels shared by counted references (settle_pixels_new): a kept copy
 * handed to the pictures (settle_grab_pictures) is not copied again, and
 * stays theirs when the analysis lets it go. The count is atomic: pictures
 * may be freed on another thread than the context's. */
uint8_t *settle_pixels_new(size_t size);   /* one reference; NULL when out of memory */
uint8_t *settle_pixels_ref(uint8_t *px);   /* one more reference; returns px */
void settle_pixels_unref(uint8_t *px);     /* frees the pixels with the last one; NULL is fine */
int settle_pixels_shared(const uint8_t *px); /* 1 when more than one reference holds px */

/* A picture its source can give again later, whole, without a copy (the
 * decoder's frame, referenced): render writes its w x h pixels (the kept
 * pictures' size) as RGB24, stride bytes a row, the same pixels the reading
 * had; release lets it go. Either may run after the reading ended. */
typedef struct SettleHeld SettleHeld;
struct SettleHeld {
    void (*render)(const SettleHeld *h, uint8_t *rgb, ptrdiff_t stride);
    void (*release)(SettleHeld *h);
};

/* The picture last sent, held by its source; NULL when it cannot be (the
 * picture is copied). */
typedef SettleHeld *(*SettleHoldPicture)(void *opaque);

typedef struct SettleKept {
    int64_t frame;
    double time;
    uint8_t *rgb;   /* the whole picture, width * 3 bytes a row (settle_pixels_new);
                     * NULL while held (settle_keep_get makes it) */
    SettleHeld *held; /* the source holds the picture: nothing was copied */
    int refs;       /* roles holding it */
    uint64_t tick;  /* the picture (SettleKeep.tick) its pixels are */
    uint8_t *png;   /* its PNG, made ahead (settle_keep_early; malloc'ed), or NULL */
    size_t png_len;
} SettleKept;

typedef struct SettleKeptThumb {
    int64_t frame;
    double time;
    SettleImage img;
    int refs;        /* lists holding it */
    uint64_t tick;   /* the picture (SettleKeep.tick) it was made of */
} SettleKeptThumb;

/* One method's filmstrip candidates: every step-th of its distinct frames. */
typedef struct SettleKeepList {
    SettleKeptThumb **t;
    int64_t *ordinal;
    int n;
    int64_t seen;    /* distinct frames so far */
    int64_t step;    /* 1, 2, 4 ... */
} SettleKeepList;

/* Copies no role holds, kept for the next ones, at most. */
#define SETTLE_KEEP_SPARES 4

/* The chosen method's key frames made ready on a thread of their own while
 * the decision ends (settle_keep_early): the held ones rendered, and with
 * SettleKeep.png their PNGs encoded; taken by the next call on the
 * SettleKeep. */
#define SETTLE_KEEP_EARLY 4
typedef struct SettleKeepEarly {
    pthread_t th;
    int on;                         /* the thread runs or ran: settle_keep_* joins it */
    atomic_int stop;                /* set when joined: no render or encode starts after it */
    int w, h, png;
    int n;
    SettleKept *p[SETTLE_KEEP_EARLY];
    const uint8_t *src[SETTLE_KEEP_EARLY]; /* p's pixels when not held */
    uint8_t *px[SETTLE_KEEP_EARLY]; /* a held p's pixels once rendered, else NULL */
    uint8_t *bytes[SETTLE_KEEP_EARLY]; /* p's PNG once encoded, else NULL */
    size_t len[SETTLE_KEEP_EARLY];
    atomic_int done;                /* pictures the thread has finished (their PNG made) */
} SettleKeepEarly;

typedef struct SettleKeep {
    int on;          /* settle_keep_pictures */
    int png;         /* settle_keep_pictures' SETTLE_KEEP_PNG: the early thread encodes too */
    unsigned methods; /* bit t: method t's (SETTLE_T_) roles and candidates are kept */
    int failed;      /* out of memory once: the pictures read the capture again */
    int w, h;
    SettleKept *role[SETTLE_KEEP_ROLES];
    SettleKeepList list[SETTLE_T_COUNT];
    SettleKept *spare[SETTLE_KEEP_SPARES];
    int nspare;
    /* What changed: a copy that is used again gets only the rows that
     * changed since its picture, a thumbnail only the rows whose source rows
     * changed since the last thumbnail's picture (screen captures change a
     * few rows a frame). */
    uint64_t tick;        /* pictures seen (settle_keep_changed) */
    uint64_t *row_tick;   /* per row: the picture it last changed at (NULL: every row, always) */
    SettleKeptThumb *last_thumb;
    SettleKeepEarly early;
    /* the thumbnails' rows from their column sums (SettleKernels'); NULL:
     * settle_box_means */
    void (*box_means)(const uint32_t *acc, const int *x0, int n, int rows, uint8_t *out);
} SettleKeep;

/* What one frame is to the pictures. */
typedef struct SettleKeepFrame {
    int64_t index;
    double time;
    /* per role: -2 when the role does not move at this frame, else the frame
     * it moves to (this one, or an earlier one it keeps only if a copy of
     * that frame is held; -1: none) */
    int64_t role[SETTLE_KEEP_ROLES];
    uint8_t distinct[SETTLE_T_COUNT]; /* a filmstrip frame by this method */
    /* when given: a role's picture is held by its source instead of copied
     * (a copy when hold returns NULL) */
    SettleHoldPicture hold;
    void *hold_opaque;
} SettleKeepFrame;

/* Readies k for a capture of w x h pictures, for the methods (bit t:
 * SETTLE_T_ t) whose pictures may be asked for; keeps nothing when none.
 * The caller leaves the other methods' roles and candidates out of what
 * settle_keep_frame is told. */
void settle_keep_begin(SettleKeep *k, unsigned methods, int w, int h);

/* Every picture the read stage hands on, kept or not, before it is kept:
 * which of its bands of band_h rows differ from the picture before (NULL:
 * all of them). */
void settle_keep_changed(SettleKeep *k, const uint8_t *changed, int band_h);

/* Keeps what frame f gives the pictures: rgb is the whole picture, its rows
 * readied by fill (when given) before they are read; fill returns 0, a
 * negative error, or 1 when this picture's rows cannot be had (nothing more
 * is kept). Returns 0 or fill's error; out of memory, or a picture that
 * cannot be had, only sets k->failed. */
int settle_keep_frame(SettleKeep *k, const SettleKeepFrame *f, const uint8_t *rgb,
                      ptrdiff_t stride, SettleFillRows fill, void *fill_opaque);

/* The capture's last frame (index, time), once every frame went by: held
 * in the END role. Same arguments and returns as settle_keep_frame. */
int settle_keep_last(SettleKeep *k, int64_t index, double time, const uint8_t *rgb,
                     ptrdiff_t stride, SettleFillRows fill, void *fill_opaque,
                     SettleHoldPicture hold, void *hold_opaque);

/* The copy of `frame` held in any role, or NULL; its pixels may still be
 * held by the source (rgb NULL: see settle_keep_get). */
const SettleKept *settle_keep_find(const SettleKeep *k, int64_t frame);

/* The copy of `frame` with its pixels (a held picture rendered now, once):
 * 0 and *out, 1 when no role holds the frame, or SETTLE_ERR_NOMEM. */
int settle_keep_get(SettleKeep *k, int64_t frame, const SettleKept **out);

/* Once every frame went by and the method is chosen (SETTLE_T_ which), while
 * the rest of the decision is made (the animated areas' search, on one
 * core): starts on a thread of its own, for the roles that give the key
 * frames (the method's settled frame, first change, start frame and latest
 * change, in that order), rendering the held pictures as settle_keep_get
 * would and, when k->png, encoding each one's PNG (settle_encode_png's
 * bytes; settle_keep_take_png). Every other settle_keep_ call but
 * settle_keep_find stops the thread (a render or an encode under way is
 * finished) and takes what it made; the rest is made as before. Nothing
 * when the method's pictures are not kept or there is nothing to make. */
void settle_keep_early(SettleKeep *k, int which);

/* The PNG of `frame` made ahead (settle_keep_early), now the caller's
 * (malloc'ed) with its length in *len; NULL when there is none. */
uint8_t *settle_keep_take_png(SettleKeep *k, int64_t frame, size_t *len);

/* Renders the held pictures of the n frames (-1: none) that roles hold,
 * two at a time on two threads, as settle_keep_get would one by one (at the
 * end of the reading both cores are free). 0 or SETTLE_ERR_NOMEM (what could
 * not be rendered stays held). */
int settle_keep_ready(SettleKeep *k, const int64_t *frames, int n);

/* Frees what k holds; it can begin again. */
void settle_keep_free(SettleKeep *k);

#endif
