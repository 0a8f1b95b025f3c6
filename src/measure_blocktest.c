/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure module "blocks": the block change test (src/measure_blocks.c)
 * kept up to date band by band, its verdict on each picture into the record
 * and what it learnt of the capture (noise, light) into the result.
 */
#include <math.h>
#include <stddef.h>

#include "blocks_stay.h"
#include "measure_modules.h"

typedef struct BlockTestOptions {
    int method;             /* SettleMethod: auto and blocks read the block test */
    int start;              /* SettleStart: first-change reads it too */
    double bar_share;       /* the top share of a portrait picture judged apart */
    int scroll_keep;        /* the right edge of a portrait picture kept */
    double edge_share;      /* the right share of a portrait picture left out */
    int foot_keep;          /* the bottom of a portrait picture kept */
    double foot_share;      /* the bottom share of a portrait picture left out */
} BlockTestOptions;

typedef struct BlockTest {
    BlockTestOptions o;
    /* the block test runs: methods auto and blocks, and --start first-change
     * (it costs about a tenth of the analysis; --method diff and entropy
     * never read it, and their results show null for it) */
    int use_blocks;
    SettleBlocks blocks;
    SettleBlocksStay stay; /* whether the last change stays (src/blocks_stay.c) */
} BlockTest;

#define OPT(field) offsetof(BlockTestOptions, field)
#define SET(field) offsetof(SettleSettings, field)
static const SettleModuleOption blocktest_options[] = {
    { "method", SETTLE_MOPT_INT, OPT(method), SET(method), SETTLE_METHOD_AUTO, 0,
      SETTLE_METHOD_BLOCKS, "the block test runs for methods auto and blocks" },
    { "start", SETTLE_MOPT_INT, OPT(start), SET(start), SETTLE_START_FIRST_FRAME, 0,
      SETTLE_START_MARKER_END, "... and for --start first-change" },
    /* phones draw their status bar in the top 7.5 % of a portrait picture at most */
    { "status-bar-share", SETTLE_MOPT_DOUBLE, OPT(bar_share), SETTLE_MOPT_NO_SETTING, 0.075, 0,
      0.5, "the top share of a portrait picture judged apart (a phone's status bar)" },
    { "scroll-bar", SETTLE_MOPT_INT, OPT(scroll_keep), SET(scroll_bar_keep), 0, 0, 1,
      "1: the right edge of a portrait picture kept (--scroll-bar keep)" },
    /* Android draws its scroll indicator 4 dp wide at the screen's edge
     * (10-12 pixels of a 1080-wide screen, 1 %), iOS 3 pt wide 3 pt from it
     * (18 pixels of 1170, 1.5 %); phones' layouts keep a margin of 16 dp
     * (4 %) there */
    { "scroll-bar-share", SETTLE_MOPT_DOUBLE, OPT(edge_share), SETTLE_MOPT_NO_SETTING, 0.03, 0,
      0.25, "the right share of a portrait picture left out (a phone's scroll indicator)" },
    { "home-indicator", SETTLE_MOPT_INT, OPT(foot_keep), SET(home_indicator_keep), 0, 0, 1,
      "1: the bottom of a portrait picture kept (--home-indicator keep)" },
    /* iOS draws its home indicator 5 pt tall 8 pt above the screen's bottom
     * (1 to 1.5 % of its height), Android its gesture handle in the bottom
     * 24-48 dp (3 to 6 %) */
    { "home-indicator-share", SETTLE_MOPT_DOUBLE, OPT(foot_share), SETTLE_MOPT_NO_SETTING, 0.03,
      0, 0.25, "the bottom share of a portrait picture left out (a phone's home indicator)" },
    { NULL, 0, 0, 0, 0, 0, 0, NULL },
};
#undef OPT
#undef SET

static int blocktest_init(void *priv, const SettleMeasureArea *a)
{
    BlockTest *t = priv;
    t->use_blocks = t->o.method == SETTLE_METHOD_AUTO || t->o.method == SETTLE_METHOD_BLOCKS ||
                    t->o.start == SETTLE_START_FIRST_CHANGE;
    /* on a reduced picture a block covers the same area of the capture */
    const int bs = a->scale > 1 && SETTLE_BLOCK % a->scale == 0 ? SETTLE_BLOCK / a->scale
                                                                : SETTLE_BLOCK;
    int bar = a->h > a->w ? (int)(a->h * t->o.bar_share) / bs : 0;
    if (settle_blocks_init_size(&t->blocks, a->w, a->h, bar, bs) < 0)
        return SETTLE_ERR_NOMEM;
    /* the columns of blocks that lie wholly within the right share */
    if (a->h > a->w && !t->o.scroll_keep) {
        int from = (a->w - (int)ceil(a->w * t->o.edge_share) + bs - 1) / bs;
        t->blocks.edge_from = from > 0 && from < t->blocks.bw ? from : t->blocks.bw;
    }
    /* the rows of blocks that lie wholly within the bottom share, below the top band */
    if (a->h > a->w && !t->o.foot_keep) {
        int from = (a->h - (int)ceil(a->h * t->o.foot_share) + bs - 1) / bs;
        t->blocks.foot_from = from > bar && from < t->blocks.bh ? from : t->blocks.bh;
    }
    t->blocks.sum_rows = a->dsp->sum_rows;
    t->blocks.fit_sums = a->dsp->fit_sums;
    t->blocks.select_part = a->dsp->select_part;
    t->blocks.block_errors = a->dsp->block_errors;
    t->blocks.block_levels = a->dsp->block_levels;
    t->blocks.block_residuals = a->dsp->block_residuals;
    t->blocks.block_shares = a->dsp->block_shares;
    t->blocks.block_means = a->dsp->block_means;
    if (settle_blocks_stay_init(&t->stay, t->blocks.nb) < 0)
        return SETTLE_ERR_NOMEM;
    return 0;
}

static int blocktest_band(void *priv, const SettleMeasureBand *b)
{
    BlockTest *t = priv;
    if (t->use_blocks)
        settle_blocks_rows(&t->blocks, b->cur, b->cstride, b->y0, b->rows);
    return 0;
}

static int blocktest_picture(void *priv, const SettleMeasureFrame *f, SettleRecord *r)
{
    BlockTest *t = priv;
    (void)f;
    if (t->use_blocks && t->blocks.sum) {
        SettleBlocksFrame bf;
        t->blocks.keyframe = r->keyframe;
        settle_blocks_frame(&t->blocks, &bf);
        r->block_peak = bf.peak;
        r->blocks_changed = bf.changed;
        r->block_change = (uint8_t)bf.change;
        r->block_bar = (uint8_t)bf.change_bar;
        r->block_edge = (uint8_t)bf.change_edge;
        r->block_foot = (uint8_t)bf.change_foot;
        r->block_fade = (uint8_t)bf.fade;
        r->block_fading = (uint8_t)bf.fading_seen;
        settle_blocks_stay_frame(&t->stay, &t->blocks, bf.change, &r->block_kept, &r->block_kept_prev,
                                 &r->block_revert);
    } else {
        r->block_peak = NAN;
        r->blocks_changed = -1;
        r->block_kept = -1;
        r->block_kept_prev = -1;
    }
    return 0;
}

/* What the block test measured; the decide stage's share (the status bar
 * left out, faint frames) is lib.c's. */
static int blocktest_flush(void *priv, const SettleMeasureEnd *e, SettleResult *r)
{
    const BlockTest *t = priv;
    const SettleBlocks *b = &t->blocks;
    int on = b->sum != NULL && t->use_blocks;
    (void)e;
    r->block_test = on;
    for (int l = 0; l < 8; l++) {
        double nz = on ? settle_blocks_noise(b, l) : -1;
        r->block_noise[l] = nz < 0 ? NAN : nz;
        r->block_threshold[l] = nz < 0 ? NAN : settle_blocks_threshold(b, l);
    }
    r->gain_min = on ? b->gain_min : NAN;
    r->gain_max = on ? b->gain_max : NAN;
    r->row_offset_max = on ? b->row_max : NAN;
    return 0;
}

static void blocktest_close(void *priv)
{
    BlockTest *t = priv;
    settle_blocks_free(&t->blocks);
    settle_blocks_stay_free(&t->stay);
}

const SettleMeasureModule settle_module_blocks = {
    .name = "blocks",
    .priv_size = sizeof(BlockTest),
    .options = blocktest_options,
    .opts_in_priv = offsetof(BlockTest, o),
    .init = blocktest_init,
    .band = blocktest_band,
    .picture = blocktest_picture,
    .flush = blocktest_flush,
    .close = blocktest_close,
};

const SettleBlocks *settle_measure_blocks(const SettleMeasure *m)
{
    const BlockTest *t = settle_measure_state(m, &settle_module_blocks);
    return t && t->use_blocks && t->blocks.sum ? &t->blocks : NULL;
}

int settle_measure_bar_rows(const SettleMeasure *m, int *blocks_on)
{
    const BlockTest *t = settle_measure_state(m, &settle_module_blocks);
    *blocks_on = t && t->blocks.sum != NULL;
    return t ? t->blocks.bar_rows : 0;
}
