/* SPDX-License-Identifier: BSD-2-Clause */
/* Pictures of an analysis: the key frames, a filmstrip, PNG files and an
 * HTML report, for an engineer who wants to see what the numbers say. */
#ifndef SETTLE_PICTURES_H
#define SETTLE_PICTURES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "settle/settle.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One picture, packed RGB24 (3 bytes a pixel, `stride` bytes a row). */
typedef struct SettleImage {
    const char *role;   /* "start", "stable", "first-change", "last-change" or "filmstrip"; static */
    int64_t frame;      /* the frame shown (-1 for the filmstrip) */
    double time;        /* its time in seconds from the first frame (NaN for the filmstrip) */
    int width, height;
    ptrdiff_t stride;
    uint8_t *rgb;       /* owned by the SettlePictures that holds it; read only */
} SettleImage;

/* Largest number of thumbnails in a filmstrip. */
#define SETTLE_FILMSTRIP_MAX 60
/* Thumbnails fit a box of this many pixels a side (never scaled up). */
#define SETTLE_THUMB_BOX 200

typedef struct SettlePictures {
    /* The key frames at full size, in this order, those that exist: start,
     * stable, first-change, last-change (a capture without a stable frame
     * has none; frames not reached when the file changed since are left out). */
    SettleImage frame[4];   /* two roles of one frame share their rgb */
    int nframes;
    /* The contact sheet: a thumbnail of every visually distinct frame from
     * the start (the start frame, and each frame whose change counted: not
     * quiet and not a codec refresh), at most SETTLE_FILMSTRIP_MAX (evenly
     * thinned beyond, always keeping the key frames), up to 6 a row, each with
     * its time in seconds under it; the stable frame outlined in green and the
     * start frame in orange. rgb is NULL when there was no frame to show. */
    SettleImage filmstrip;
    int thumbs;         /* thumbnails on it */
    /* 1 when the pictures came from a second reading of the capture: it was
     * not analysed after settle_keep_pictures, or a key frame was not among
     * the frames kept (see settle_keep_pictures); 0 when from the one reading. */
    int reread;
    /* With settle_keep_pictures(c, 1 | SETTLE_KEEP_PNG): frame[k]'s PNG,
     * settle_encode_png's bytes of its pixels, png_len[k] bytes, when the
     * analysis made it ahead; else NULL. Two roles of one frame share their
     * bytes. Owned by the pictures (a caller may take a pointer and set it
     * to NULL in every role that shares it, then free it itself). */
    uint8_t *png[4];
    size_t png_len[4];
} SettlePictures;

/* settle_keep_pictures' flag: the key frames' PNGs made ahead, see below. */
#define SETTLE_KEEP_PNG 2

/* Before an analysis (settle_analyze_file, settle_analyze_io or settle_begin
 * ... settle_finish): on = 1 keeps, during that one reading, what
 * settle_grab_pictures needs, so that it needs no second reading; on = 0
 * (the default) keeps nothing. on = 1 | SETTLE_KEEP_PNG also encodes the
 * PNGs of the chosen method's key frame candidates once the reading ended,
 * on a thread of its own while the decision ends (the animated areas'
 * search runs on one core), and settle_grab_pictures hands those of its key
 * frames over (SettlePictures.png): for a caller that writes them, as
 * `settle analyze --frames` does; a candidate that does not become a key
 * frame was encoded for nothing. Stays set for the context's later analyses.
 * Kept: a full-size copy of each method's start frame, of its first and
 * latest change and of the frame that change settled on, of the first visual
 * change, of the last two pictures the visual metrics stored and of the
 * capture's last frame (for a capture that never settles; a copy
 * shared by its roles: at most 24 pictures plus 4 spare buffers, far fewer
 * in practice), and each method's filmstrip candidates, at
 * most SETTLE_FILMSTRIP_MAX * 4 thumbnails a method (120 KB each at most;
 * past that every other one is dropped, so the candidates are every 2nd, 4th
 * ... distinct frame instead of 240 evenly chosen ones), shared between the
 * methods; whatever the capture's length. The pictures are the same as a
 * second reading's, pixel for pixel, for a capture of at most 240 distinct
 * frames by its method. A key frame that is none of these (the entropy
 * method's stable frame walked back past the latest change, a --settle or
 * --ignore animated decision, the last visual change more than two stored
 * pictures back, a capture with no start) makes settle_grab_pictures read the capture again.
 * Returns 0, SETTLE_ERR_INVAL (no context, or another bit in on) or
 * SETTLE_ERR_STATE (an analysis is running). */
SETTLE_API int settle_keep_pictures(SettleContext *c, int on);

/* The key frames and the filmstrip of the last finished analysis of `c`:
 * from what the analysis kept (settle_keep_pictures), or else from a second
 * reading of the capture (settle_analyze_file), so that an analysis without
 * pictures costs nothing more. The second reading's memory: at most four key frames at full size (one frame in two roles
 * is kept once) plus at most 4 * SETTLE_FILMSTRIP_MAX candidate thumbnails of
 * SETTLE_THUMB_BOX pixels a side (120 KB each), whatever the capture's length.
 * On success *out owns the pictures; free them with settle_pictures_free.
 * Returns 0, SETTLE_ERR_STATE (no finished analysis, or it measured no
 * frame), SETTLE_ERR_INVAL (a second reading is needed and the analysis did
 * not read a file, e.g. settle_analyze_io: a pipe cannot be read twice), SETTLE_ERR_NOMEM,
 * SETTLE_ERR_INTERRUPTED (settle_interrupt on `c`), or the error of reading
 * the file again (it went away). */
SETTLE_API int settle_grab_pictures(SettleContext *c, SettlePictures **out);

/* A picture of each of the `n` frames numbered in `frames` (from 0, in any
 * order; -1 for none) of the last finished analysis of `c`: from the copies
 * the analysis kept when it holds them all (settle_keep_pictures: the key
 * frames' candidates and the last frame), else from a second reading of the
 * capture, scaled down to fit `box` pixels a side (1..8192,
 * never scaled up). On success *out holds n images in the order asked, each
 * with its frame, its time and role "frame"; rgb NULL for -1 or a frame the
 * capture no longer has. Free with settle_frames_free(out, n). Returns 0,
 * SETTLE_ERR_STATE (no finished analysis, or no frame measured),
 * SETTLE_ERR_INVAL (bad arguments, or a second reading is needed and the
 * analysis did not read a file),
 * SETTLE_ERR_NOMEM, SETTLE_ERR_INTERRUPTED, or the error of reading the file
 * again. */
SETTLE_API int settle_grab_frames(SettleContext *c, const int64_t *frames, int n, int box,
                                  SettleImage **out);

/* Frees n images of settle_grab_frames and sets *imgs to NULL. Safe on NULL. */
SETTLE_API void settle_frames_free(SettleImage **imgs, int n);

/* Frees the pictures and sets *p to NULL. Safe on NULL. */
SETTLE_API void settle_pictures_free(SettlePictures **p);

/* Writes the picture as an 8-bit RGB PNG with libpng. Returns 0,
 * SETTLE_ERR_INVAL (bad size) or SETTLE_ERR_IO (the stream failed). */
SETTLE_API int settle_write_png(FILE *f, const SettleImage *img);

/* The same PNG's bytes as settle_write_png writes, in memory: *png (malloc'ed,
 * the caller frees it) and *len. Returns 0, SETTLE_ERR_INVAL (bad size or
 * arguments), SETTLE_ERR_NOMEM or SETTLE_ERR_IO (libpng failed); *png is
 * NULL on error. */
SETTLE_API int settle_encode_png(const SettleImage *img, uint8_t **png, size_t *len);

/* The colours (0xRRGGBB) of settle_outline_answer's outlines. */
#define SETTLE_OUTLINE_DECIDING 0xe8175d /* red: the deciding change */
#define SETTLE_OUTLINE_ANIMATED 0xa11fd1 /* purple: the animated areas */
#define SETTLE_OUTLINE_REGION 0x0a9396   /* teal: the --region areas, labelled */

/* Draws the answer of `r` on `img`, a picture of the same capture's input
 * (a frame of settle_grab_pictures or settle_grab_frames, at any scale: the
 * rectangles, in the input picture's pixels, are scaled by img->width /
 * r->width and img->height / r->height, rounded outwards). Each rectangle
 * gets a band max(2, img->width / 320) pixels thick just outside it (inside
 * it where the picture's edge leaves no room): first the animated areas
 * (SettleResult.animated), then the --region areas, each labelled at its top
 * left corner with its name and stable time ("name 1.234 s", "name not
 * stable") in white on a band of its colour, then the deciding change
 * (SettleResult.deciding_change, when its frame is not -1) on top. The
 * caller owns img and its pixels, which are changed in place. Returns 0 or
 * SETTLE_ERR_INVAL (no picture, or a result without a size). */
SETTLE_API int settle_outline_answer(SettleImage *img, const SettleResult *r);

/* The answer outlined on src, as settle_outline_answer draws it on a copy,
 * without making that copy: a few rows at a time are copied, outlined and
 * handed on, to the PNG encoder (settle_encode_png's bytes into *png and
 * *len, malloc'ed; not made when png is NULL) and to a scaled picture in
 * *small (settle_scale_image's pixels for a box of `box` pixels a side,
 * 1 to 8192; small->rgb malloc'ed; not made when small is NULL). src is not
 * changed. Returns 0, SETTLE_ERR_INVAL (bad arguments), SETTLE_ERR_NOMEM or
 * SETTLE_ERR_IO (libpng failed); nothing is left allocated on error. */
SETTLE_API int settle_encode_answer(const SettleImage *src, const SettleResult *r, uint8_t **png,
                                    size_t *len, int box, SettleImage *small);

/* A copy of `src` scaled down to fit `box` pixels a side (1..8192; never
 * scaled up), as the filmstrip's thumbnails are. On success dst->rgb is the
 * caller's, to free with free(); role, frame and time are src's. Returns 0,
 * SETTLE_ERR_INVAL or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_scale_image(const SettleImage *src, int box, SettleImage *dst);

/* A picture of one frame in a report, with its caption. */
typedef struct SettleReportFrame {
    const char *caption;          /* "Displayed com.example/.Main: frame 45 at 1.500 s" */
    const uint8_t *png;           /* PNG bytes */
    size_t len;
} SettleReportFrame;

/* One capture of an HTML report. */
typedef struct SettleReportCapture {
    const char *json;             /* its result, one object as settle_write_json wrote it */
    const uint8_t *plot_png;      /* the plot as PNG bytes, NULL when there is none */
    size_t plot_len;
    const char *plot_note;        /* why there is no plot (shown instead), or NULL */
    const uint8_t *filmstrip_png; /* the filmstrip as PNG bytes, NULL when there is none */
    size_t filmstrip_len;
    /* With marks in the result (settle_attach_marks): pictures shown under
     * the table of marks, normally the frame on screen at each mark and the
     * stable frame (settle_grab_frames); NULL and 0 for none. */
    const SettleReportFrame *frame_pictures;
    int nframe_pictures;
    /* The answer explained: a frame with settle_outline_answer's outlines
     * (normally the stable frame, or the last frame when there is none), shown
     * under the summary with a legend built from the json (the deciding
     * change, the animated areas, the regions and their times); NULL for none. */
    const uint8_t *answer_png;
    size_t answer_len;
    const char *answer_caption; /* "stable: frame 45 at 1.500 s" */
} SettleReportCapture;

/* Writes one self-contained HTML page (no external resources: the images are
 * embedded as data: URIs) for `n` captures: with several, an overview table
 * with a row per capture first; then for each, its summary (status, load
 * time, start, stable frame, method and thresholds, visual metrics when
 * present), the plot, the filmstrip, the app's marks when the result has
 * them (a table of each mark's time, frame, gap and source, then
 * frame_pictures) and the settings used. Returns 0,
 * SETTLE_ERR_INVAL, SETTLE_ERR_FORMAT (a json that is not a result) or
 * SETTLE_ERR_NOMEM. */
SETTLE_API int settle_write_report(FILE *f, const SettleReportCapture *caps, int n);

#ifdef __cplusplus
}
#endif

#endif /* SETTLE_PICTURES_H */
