/* SPDX-License-Identifier: BSD-2-Clause */
/* The stage outputs of a context, for the writers (outputs.h), and the read
 * stage run again for the pictures that were not kept. */
#include "internal.h"
#include "outputs.h"

/* A picture of the second reading: to the caller's hook unless interrupted. */
typedef struct ReadAgain {
    SettleContext *parent;
    SettleReadHook hook;
    void *opaque;
} ReadAgain;

static int read_again_cb(void *opaque, const SettlePicture *p, int64_t index)
{
    ReadAgain *ra = opaque;
    if (ra->parent->interrupted)
        return SETTLE_ERR_INTERRUPTED;
    return ra->hook(ra->opaque, p, index);
}

/* The read stage again on the capture c read, with its settings. */
static int read_again(void *opaque, SettleReadHook hook, void *hook_opaque, int done)
{
    SettleContext *c = opaque;
    ReadAgain ra = { .parent = c, .hook = hook, .opaque = hook_opaque };
    SettleSettings s = c->s;
    s.log_cb = NULL;
    s.log_opaque = NULL;
    SettleContext *gc = NULL;
    int ret = settle_open(&gc, &s);
    if (ret < 0)
        return ret;
    gc->grab = read_again_cb;
    gc->grab_opaque = &ra;
    ret = settle_decode_file(gc, c->name);
    settle_close(&gc);
    if (ret == done)
        ret = 0;
    if (!ret && c->interrupted)
        ret = SETTLE_ERR_INTERRUPTED;
    return ret;
}

void settle_outputs_of(SettleContext *c, SettleOutputs *o)
{
    *o = (SettleOutputs){
        .s = &c->s, .res = &c->res, .finished = c->state == SETTLE_STATE_FINISHED,
        .frames = { .records = &c->records, .n = c->n, .which = c->decide.which,
                    .visual = settle_measure_visual(&c->measure) },
        .keep = &c->keep, .marks = c->marks,
        .id = { .in_known = c->in_known, .in_size = c->in_size, .in_mtime_sec = c->in_mtime_sec,
                .in_mtime_nsec = c->in_mtime_nsec, .labels = c->labels, .nlabels = c->nlabels },
        .read_again = read_again, .read_opaque = c,
    };
}
