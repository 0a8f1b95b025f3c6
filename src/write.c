/* SPDX-License-Identifier: BSD-2-Clause */
/* The public writers and readers of a finished analysis: each takes the
 * context's stage outputs (settle_outputs_of) and hands them to the writer,
 * which never sees the context. */
#include "internal.h"
#include "outputs.h"

int settle_foreach_frame(SettleContext *c, int (*cb)(void *, const SettleFrame *), void *opaque)
{
    if (!c || !cb)
        return SETTLE_ERR_INVAL;
    SettleOutputs o;
    settle_outputs_of(c, &o);
    if (!o.finished)
        return SETTLE_ERR_STATE;
    return settle_frames_foreach(&o.frames, cb, opaque);
}

int settle_write_csv(SettleContext *c, FILE *out)
{
    if (!c || !out)
        return SETTLE_ERR_INVAL;
    SettleOutputs o;
    settle_outputs_of(c, &o);
    return settle_csv_write(&o, out);
}

int settle_write_json(SettleContext *c, FILE *out)
{
    if (!c || !out)
        return SETTLE_ERR_INVAL;
    SettleOutputs o;
    settle_outputs_of(c, &o);
    return settle_json_write(&o, out);
}

int settle_get_warnings(SettleContext *c, SettleWarning *w)
{
    if (!c || !w)
        return SETTLE_ERR_INVAL;
    SettleOutputs o;
    settle_outputs_of(c, &o);
    return settle_warnings_of(&o, w);
}

int settle_grab_pictures(SettleContext *c, SettlePictures **out)
{
    if (!c || !out)
        return SETTLE_ERR_INVAL;
    *out = NULL;
    SettleOutputs o;
    settle_outputs_of(c, &o);
    if (!o.finished || o.res->frames < 1)
        return SETTLE_ERR_STATE;
    return settle_pictures_pick(&o, out);
}

int settle_grab_frames(SettleContext *c, const int64_t *frames, int n, int box,
                       SettleImage **out)
{
    if (!c || !out || n < 0 || (n && !frames) || box < 1 || box > 8192)
        return SETTLE_ERR_INVAL;
    *out = NULL;
    SettleOutputs o;
    settle_outputs_of(c, &o);
    if (!o.finished || o.res->frames < 1)
        return SETTLE_ERR_STATE;
    return settle_frames_pick(&o, frames, n, box, out);
}
