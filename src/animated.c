/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animated.h"
#include "box.h"
#include "measure_blocks.h"

int settle_animated_init(SettleAnimated *a, const SettleCells *g, int ox, int oy, int spool)
{
    memset(a, 0, sizeof(*a));
    a->nx = g->nx;
    a->ny = g->ny;
    a->ox = ox;
    a->oy = oy;
    a->w = g->w;
    a->h = g->h;
    a->next = -1;
    size_t n = (size_t)g->nx * g->ny;
    a->cell = calloc(n, sizeof(*a->cell));
    a->on = calloc(n, 1);
    a->seen = calloc(n, sizeof(*a->seen));
    a->enc = calloc(n, sizeof(*a->enc));
    a->kept = calloc(n, sizeof(*a->kept));
    a->hard = calloc(n, sizeof(*a->hard));
    a->fine = calloc(n, sizeof(*a->fine));
    a->mark = calloc(n, 1);
    a->run0 = calloc(n, sizeof(*a->run0));
    a->base = calloc(n, sizeof(*a->base));
    a->moved = calloc(n, 1);
    a->move_at = calloc(n, sizeof(*a->move_at));
    a->strong_at = calloc(n, sizeof(*a->strong_at));
    a->last_move = malloc(n * sizeof(*a->last_move));
    for (size_t i = 0; a->last_move && i < n; i++)
        a->last_move[i] = -INFINITY;
    if (!a->cell || !a->on || !a->seen || !a->enc || !a->kept || !a->hard || !a->fine || !a->mark ||
        !a->run0 || !a->base || !a->moved || !a->last_move || !a->move_at || !a->strong_at) {
        settle_animated_free(a);
        return -1;
    }
    a->bnext = -1;
    if (((spool & SETTLE_ANIM_SPOOL_CELLS) && !(a->spool = tmpfile())) ||
        ((spool & SETTLE_ANIM_SPOOL_BLOCKS) && !(a->bspool = tmpfile())))
        return -2;
    return 0;
}

void settle_animated_free(SettleAnimated *a)
{
    free(a->cell);
    free(a->on);
    free(a->seen);
    free(a->enc);
    free(a->kept);
    free(a->hard);
    free(a->fine);
    free(a->mark);
    free(a->run0);
    free(a->base);
    free(a->moved);
    free(a->last_move);
    free(a->move_at);
    free(a->strong_at);
    free(a->regions);
    free(a->until);
    if (a->spool)
        fclose(a->spool);
    if (a->bspool)
        fclose(a->bspool);
    memset(a, 0, sizeof(*a));
}

int settle_animated_recoded(const SettleAnimated *a, const SettleCells *g, int64_t index,
                            int blank)
{
    int weak = 0, on = 0, b[4] = { g->nx, g->ny, -1, -1 };
    size_t cells = 0, n = (size_t)g->nx * g->ny;
    for (int cy = 0; cy < g->ny; cy++) {
        if (!g->dirty[cy])
            continue;
        for (int cx = 0; cx < g->nx; cx++) {
            size_t i = (size_t)cy * g->nx + cx;
            cells += g->count[i] != 0;
            on |= g->count[i] && a->seen && a->seen[i] == index;
            weak |= g->count[i] && !g->strong[i];
            if (g->strong[i])
                settle_box_grow(b, cx, cy, cx, cy);
        }
    }
    /* no strong pixel: faint spots of their own, when few (the cells that
     * went on from the frame before there are no spots), or when small and
     * no cell went on (a larger faint change that goes on is a fade) */
    if (b[2] < 0)
        return !a->seen || !cells ? 0
               : blank                                  ? SETTLE_ANIM_BLANK
               : cells <= 8 || (cells * 64 <= n && !on) ? SETTLE_ANIM_SPOTS
                                                       : SETTLE_ANIM_FAINT;
    /* the strong change within half of the picture (a carousel, a spinner,
     * a clock; not a video playing or a page sliding in, whose faint parts
     * are theirs) */
    return weak && (int64_t)(b[2] - b[0] + 1) * (b[3] - b[1] + 1) * 2 <= (int64_t)n ? SETTLE_ANIM_RECODED
                                                                             : 0;
}

/* 1 when cell i or a cell touching it made a change that counted in the
 * frame before frame `index` (a fade's steps go on; an encoder's re-coding
 * that did not count carries nothing on). */
static int went_on(const SettleAnimated *a, size_t i, int64_t index)
{
    int cx = (int)(i % (size_t)a->nx), cy = (int)(i / (size_t)a->nx);
    for (int y = cy - 1; y <= cy + 1; y++)
        for (int x = cx - 1; x <= cx + 1; x++)
            if (x >= 0 && y >= 0 && x < a->nx && y < a->ny && a->kept[(size_t)y * a->nx + x] == index)
                return 1;
    return 0;
}

/* 1 when the encoder re-coded cell i (a refresh, the faint cells around a
 * strong change, spots, or such a change itself) at most SETTLE_ANIM_ECHO
 * frames before frame `index`. */
static int recent(const SettleAnimated *a, size_t i, int64_t index)
{
    return a->enc[i] && index - a->enc[i] < SETTLE_ANIM_ECHO;
}

/* How far cell i's change in this frame moved its picture where it changed:
 * the largest change of a channel's mean over the part of one of its 4x4
 * squares that the rectangle of its changed pixels covers, when that is at
 * least half of the square. The cell's other pixels did not change: a
 * spinner that covers 3 rows of a square moves its mean by 3/4 of its step
 * (the partly covered cells at its edges, off the cells' grid), and by its
 * whole step over those rows. */
static int moved_within(const SettleCells *g, size_t i)
{
    const uint8_t *b = g->cbox[i];
    int most = 0;
    for (int sy = 0; sy < 4; sy++) {
        int rows = (b[3] < 4 * sy + 4 ? b[3] : 4 * sy + 4) - (b[1] > 4 * sy ? b[1] : 4 * sy);
        for (int sx = 0; rows > 0 && sx < 4; sx++) {
            int cols = (b[2] < 4 * sx + 4 ? b[2] : 4 * sx + 4) - (b[0] > 4 * sx ? b[0] : 4 * sx);
            if (cols <= 0 || rows * cols * 2 < 16)
                continue;
            for (int c = 0; c < 3; c++) {
                int k = (sy * 4 + sx) * 3 + c;
                int d = abs((int)g->sums[i][k] - (int)g->before[i][k]) / (rows * cols);
                most = d > most ? d : most;
            }
        }
    }
    return most;
}

/* 1 when cell i's change in this frame is content, whatever its strength:
 * a pixel beyond the strong tolerance, or its picture moved from the frame
 * before by SETTLE_CELL_MOVED levels, over a 4x4 square or where it changed
 * (moved_within) (an encoder re-coding the place moves it by under 32; a
 * spinner's stripes swapping by 90 levels, under the strong level, move it
 * by some 43, in frames where the encoder overshoots on a few pixels of its
 * edge cells). */
static int moving(const SettleCells *g, size_t i)
{
    return g->strong[i] || settle_cells_moved(g, i, g->before[i]) >= SETTLE_CELL_MOVED ||
           moved_within(g, i) >= SETTLE_CELL_MOVED;
}

/* 1 when cell i or a cell touching it changed, mostly strongly, in a change
 * that counted at most SETTLE_ANIM_REFINE frames before frame `index`:
 * content appeared or switched there, and an encoder refines it and its
 * edges faintly in the frames after (VP8 and x264 code new content coarsely
 * first). A refinement goes on while the cell's picture does not move: it
 * or a touching cell was refined in the frame before, and its change moves
 * no 4x4 square's mean by SETTLE_CELL_MOVED, over a square or where it
 * changed (moving: a spinner's edge cells off the cells' grid move theirs by
 * 3/4 of its step over a square; refined from one another, they were lost to
 * the area for good) (VP9 refines a desktop page's new blocks for some 10
 * frames, in runs that go on past the window). In a
 * frame where the block test saw no content (SETTLE_ANIM_BLANK) the window
 * is SETTLE_ANIM_ECHO frames: x264 at CRF 32 refines a desktop page's new
 * blocks 7 to 9 frames after they appeared, one cell a frame, which went on
 * from a fade's last step beside them and counted (seed 199's 030). */
static int refining(const SettleAnimated *a, const SettleCells *g, size_t i, int64_t index,
                    int recoded)
{
    int cx = (int)(i % (size_t)a->nx), cy = (int)(i / (size_t)a->nx), on = 0;
    const int64_t window = recoded == SETTLE_ANIM_BLANK ? SETTLE_ANIM_ECHO : SETTLE_ANIM_REFINE;
    for (int y = cy - 1; y <= cy + 1; y++)
        for (int x = cx - 1; x <= cx + 1; x++) {
            if (x < 0 || y < 0 || x >= a->nx || y >= a->ny)
                continue;
            int64_t h = a->hard[(size_t)y * a->nx + x];
            if (h && index - h < window)
                return 1;
            on |= a->fine[(size_t)y * a->nx + x] == index;
        }
    return on && g->count[i] && !moving(g, i);
}

/* A frame with no strong pixel, of the encoder's or not. */
static int faint(int recoded)
{
    return recoded == SETTLE_ANIM_SPOTS || recoded == SETTLE_ANIM_FAINT ||
           recoded == SETTLE_ANIM_BLANK;
}

/* The cell's change counts: not a faint one that moved nothing (moving) in
 * a frame the encoder re-coded around a strong change, nor a faint spot that
 * did not go on from the frame before there, nor in a faint frame a change
 * that did not go on from the frame before where the encoder re-coded lately: VP8 and VP9 re-code a
 * refreshed page again in frames of their own, x264's B-frames catch up on
 * the page after a strong change (a fade's next step goes on from the frame
 * before). index: the frame's. */
static int counts(const SettleAnimated *a, const SettleCells *g, size_t i, int recoded,
                  int64_t index)
{
    if (faint(recoded) && refining(a, g, i, index, recoded))
        return 0;
    return g->count[i] && (recoded == 0 || (recoded == SETTLE_ANIM_RECODED && moving(g, i)) ||
                           ((recoded == SETTLE_ANIM_SPOTS || recoded == SETTLE_ANIM_BLANK) &&
                            went_on(a, i, index)) ||
                           (recoded == SETTLE_ANIM_FAINT &&
                            (went_on(a, i, index) || !recent(a, i, index))));
}

void settle_animated_seen(SettleAnimated *a, const SettleCells *g, int64_t index, int recoded)
{
    /* what each changed cell was, before any is written: the rules read the
     * neighbours' frame before */
    for (int cy = 0; cy < g->ny; cy++)
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++) {
            size_t i = (size_t)cy * g->nx + cx;
            a->mark[i] = !g->count[i]                                                    ? 0
                         : recoded == SETTLE_ANIM_QUIET                                    ? 1
                         : faint(recoded) && refining(a, g, i, index, recoded)             ? 4
                         : recoded == SETTLE_ANIM_REFRESH || !counts(a, g, i, recoded, index) ? 2
                                                                                            : 3;
        }
    for (int cy = 0; cy < g->ny; cy++)
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++) {
            size_t i = (size_t)cy * g->nx + cx;
            if (!a->mark[i])
                continue;
            /* content that appeared or switched where nothing changed in the
             * frame before */
            if (a->mark[i] == 3 && g->strong[i] * 2 >= g->count[i] && a->seen[i] != index)
                a->hard[i] = index + 1;
            a->seen[i] = index + 1;
            if (a->mark[i] == 2)
                a->enc[i] = index + 1;
            if (a->mark[i] == 4)
                a->fine[i] = index + 1;
            else if (a->mark[i] >= 3) /* a refinement goes on as the change it refines */
                a->kept[i] = index + 1;
        }
}

/* Cell i's changes as the search reads them: its own, or those that a->view
 * gives (the moves alone). */
static inline const SettleAnimCell *cell_of(const SettleAnimated *a, size_t i)
{
    return a->view ? a->view[i] : &a->cell[i];
}

/* How many of its latest changes the cell's ring holds. */
static inline int held(const SettleAnimCell *c)
{
    return (c->n < SETTLE_ANIM_RING ? (int)c->n : SETTLE_ANIM_RING) - c->lost;
}

/* The k-th latest change of the cell, k = 1 the last (k <= held). */
static const SettleAnimEvent *latest(const SettleAnimCell *c, int k)
{
    return &c->ev[(c->n - k) % SETTLE_ANIM_RING];
}

/* The ring slot of the cell's k-th latest change. */
static int slot(const SettleAnimCell *c, int k)
{
    return (int)((c->n - k) % SETTLE_ANIM_RING);
}

void settle_animated_runs(SettleAnimated *a, const SettleCells *g, double time, int64_t index)
{
    for (int cy = 0; cy < g->ny; cy++)
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++) {
            size_t i = (size_t)cy * g->nx + cx;
            if (!g->count[i])
                continue;
            if (!a->seen[i] || index - (a->seen[i] - 1) > SETTLE_ANIM_RUN) {
                memcpy(a->base[i], g->before[i], sizeof(a->base[i]));
                a->run0[i] = time;
                a->moved[i] = 0;
            }
            int m = settle_cells_moved(g, i, a->base[i]);
            m = m > 255 ? 255 : m;
            if (g->strong[i])
                a->strong_at[i] = index + 1;
            if (m >= SETTLE_ANIM_MOVED)
                a->move_at[i] = index + 1;
            if (m > a->moved[i]) {
                a->moved[i] = (uint8_t)m;
                /* the run's changes so far moved it as far */
                SettleAnimCell *c = &a->cell[i];
                int have = held(c);
                for (int k = 1; k <= have && latest(c, k)->time >= a->run0[i] - 1e-9; k++) {
                    SettleAnimEvent *e = &c->ev[slot(c, k)];
                    if (m >= SETTLE_ANIM_MOVED && e->time > a->last_move[i])
                        a->last_move[i] = e->time;
                    e->moved = (uint8_t)m;
                }
            }
        }
}

void settle_animated_frame(SettleAnimated *a, const SettleCells *g, double time, int64_t index,
                           int recoded)
{
    for (int cy = 0; cy < g->ny; cy++) {
        if (!g->dirty[cy])
            continue;
        for (int cx = 0; cx < g->nx; cx++) {
            size_t i = (size_t)cy * g->nx + cx;
            if (!counts(a, g, i, recoded, index))
                continue;
            SettleAnimCell *c = &a->cell[i];
            if (!c->n)
                c->first = time;
            SettleAnimEvent *e = &c->ev[c->n % SETTLE_ANIM_RING];
            e->time = time;
            memcpy(e->box, g->cbox[i], 4);
            e->strong = g->strong[i] != 0;
            e->count = g->count[i];
            e->moved = a->moved[i];
            if (e->moved >= SETTLE_ANIM_MOVED)
                a->last_move[i] = time;
            c->n++;
        }
    }
}

/* The latest time T such that the cell is animated when the rest of the
 * screen settled before T; -INFINITY when never. */
static double threshold(const SettleAnimCell *c, double start, double end)
{
    if (c->n < SETTLE_ANIM_MIN)
        return -INFINITY;
    int have = held(c);
    double last = latest(c, 1)->time;
    int most = last - c->first >= 0.5 * (end - start);
    double gap = 0;
    for (int k = 2; k <= have; k++) {
        double g = latest(c, k - 1)->time - latest(c, k)->time;
        gap = g > gap ? g : gap;
        if (k >= SETTLE_ANIM_MIN && (most || end - last <= 1.5 * gap + 1e-9))
            return latest(c, k)->time;
    }
    return -INFINITY;
}

/* The rectangle (input picture) of what cell i changed after `after`. */
static void cell_rect(const SettleAnimated *a, size_t i, double after, int r[4])
{
    const SettleAnimCell *c = cell_of(a, i);
    int have = held(c);
    int cx = (int)(i % (size_t)a->nx), cy = (int)(i / (size_t)a->nx);
    int x = a->ox + cx * SETTLE_CELL, y = a->oy + cy * SETTLE_CELL;
    settle_box_set(r, x + SETTLE_CELL, y + SETTLE_CELL, x, y);
    for (int k = 1; k <= have && latest(c, k)->time > after; k++) {
        const uint8_t *b = latest(c, k)->box;
        settle_box_grow(r, x + b[0], y + b[1], x + b[2], y + b[3]);
    }
}

/* Joins the animated cells into areas: a flood fill over 8 neighbours. */
static int join(SettleAnimated *a, const SettleAnimCell *raw, double rest)
{
    size_t n = (size_t)a->nx * a->ny;
    uint8_t *seen = calloc(n, 1);
    size_t *stack = malloc(n * sizeof(*stack));
    int ret = -1;
    if (!seen || !stack)
        goto fail;
    for (size_t s = 0; s < n; s++) {
        if (!(a->on[s] == 1 || a->on[s] == 2) || seen[s])
            continue;
        SettleAnimatedRegion g = { .first_time = INFINITY };
        int box[4] = { INT32_MAX, INT32_MAX, 0, 0 };
        size_t top = 0;
        stack[top++] = s;
        seen[s] = 1;
        while (top) {
            size_t i = stack[--top];
            int r[4];
            cell_rect(a, i, rest, r);
            settle_box_grow(box, r[0], r[1], r[2], r[3]);
            g.changes = raw[i].n > g.changes ? raw[i].n : g.changes;
            double first = cell_of(a, i)->first;
            g.first_time = first < g.first_time ? first : g.first_time;
            int cx = (int)(i % (size_t)a->nx), cy = (int)(i / (size_t)a->nx);
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int x = cx + dx, y = cy + dy;
                    if (x < 0 || y < 0 || x >= a->nx || y >= a->ny)
                        continue;
                    size_t j = (size_t)y * a->nx + x;
                    if ((a->on[j] == 1 || a->on[j] == 2) && !seen[j]) {
                        seen[j] = 1;
                        stack[top++] = j;
                    }
                }
        }
        g.x = box[0];
        g.y = box[1];
        g.width = box[2] - box[0];
        g.height = box[3] - box[1];
        if (g.width <= 0 || g.height <= 0)
            continue;
        SettleAnimatedRegion *grown =
            realloc(a->regions, (size_t)(a->nregions + 1) * sizeof(*grown));
        if (!grown)
            goto fail;
        a->regions = grown;
        a->regions[a->nregions++] = g;
    }
    /* an area inside another's rectangle is part of it (the spots of a
     * carousel's slides that do not touch the rest of its turn) */
    int k = 0;
    for (int i = 0; i < a->nregions; i++) {
        const SettleAnimatedRegion *r = &a->regions[i];
        int inside = 0;
        for (int j = 0; j < a->nregions && !inside; j++) {
            const SettleAnimatedRegion *o = &a->regions[j];
            inside = j != i && r->x >= o->x && r->y >= o->y && r->x + r->width <= o->x + o->width &&
                     r->y + r->height <= o->y + o->height &&
                     (r->width * r->height < o->width * o->height || j < i);
        }
        if (!inside)
            a->regions[k++] = *r;
    }
    a->nregions = k;
    ret = 0;
fail:
    free(seen);
    free(stack);
    return ret;
}

/* 1 when the cell's kept changes come in bursts: its longest pause between
 * two of them is at least 10 times its shortest (a carousel's turns; not a
 * clock's ticks, a caret's blinks or a spinner's frames, which keep one pace). */
static int bursty(const SettleAnimCell *c)
{
    int have = held(c);
    if (have < SETTLE_ANIM_MIN)
        return 0;
    double lo = INFINITY, hi = 0;
    for (int k = 2; k <= have; k++) {
        double g = latest(c, k - 1)->time - latest(c, k)->time;
        lo = g < lo ? g : lo;
        hi = g > hi ? g : hi;
    }
    return lo > 0 && hi >= 10 * lo;
}

/* Its shortest pause between two kept changes; INFINITY with fewer than 2. */
static double pace(const SettleAnimCell *c)
{
    int have = held(c);
    double lo = INFINITY;
    for (int k = 2; k <= have; k++) {
        double g = latest(c, k - 1)->time - latest(c, k)->time;
        lo = g < lo ? g : lo;
    }
    return lo;
}

/* The turns of the bursty animated cells (a carousel's): each a time window
 * in which they changed, and the cells whose changes in it touch theirs. */
typedef struct Turns {
    uint8_t *drv;        /* per cell: a bursty animated cell */
    double *t0, *t1;     /* each turn's first and last change */
    int *frames;         /* the distinct times in it */
    int (*box)[4];       /* the rectangle of cells of its flood, grown by one */
    int n;
    uint8_t *in;         /* per cell, for one turn at a time: in its flood */
    uint8_t *twice;      /* per cell: it changed in at least two of the turns that
                          * count, or fewer than two count (turns_fill) */
    double tol;          /* how far apart two changes of one turn lie, at most */
    int none;            /* the turns fill over SETTLE_ANIM_BUSY of the recording: the page
                          * moving (a scroll, a pan), not a carousel turning; none count */
    double end;          /* the recording's end: the last frame's time plus its duration */
    size_t *stack;
} Turns;

static void turns_free(Turns *g)
{
    free(g->drv);
    free(g->in);
    free(g->twice);
    free(g->stack);
    free(g->t0);
    free(g->t1);
    free(g->frames);
    free(g->box);
    memset(g, 0, sizeof(*g));
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* (a cell's changes go back in time from its latest: the times are finite
 * and never go back, settle_send_picture) */
static int changed_in(const SettleAnimCell *c, double t0, double t1, double after)
{
    int have = held(c);
    for (int k = 1; k <= have; k++) {
        double t = latest(c, k)->time;
        if (t < t0 || t <= after)
            break;
        if (t <= t1)
            return 1;
    }
    return 0;
}

/* The drivers and their turns' windows (their changes, grouped where less
 * than twice their shortest pause apart), for a recording measured from
 * start to end. 0 or -1. */
static int turns_init(const SettleAnimated *a, Turns *g, double start, double end)
{
    size_t n = (size_t)a->nx * a->ny, nt = 0;
    memset(g, 0, sizeof(*g));
    g->drv = calloc(n, 1);
    g->stack = malloc(n * sizeof(*g->stack));
    double *t = malloc(n * SETTLE_ANIM_RING * sizeof(*t)), tol = INFINITY;
    if (!g->drv || !g->stack || !t) {
        free(t);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const SettleAnimCell *c = cell_of(a, i);
        if (!(g->drv[i] = a->on[i] && bursty(c)))
            continue;
        double p = 2 * pace(c);
        tol = p < tol ? p : tol;
        int have = held(c);
        for (int k = 1; k <= have; k++)
            t[nt++] = latest(c, k)->time;
    }
    qsort(t, nt, sizeof(*t), cmp_double);
    g->tol = tol;
    g->t0 = malloc((nt + 1) * sizeof(*g->t0));
    g->t1 = malloc((nt + 1) * sizeof(*g->t1));
    g->frames = malloc((nt + 1) * sizeof(*g->frames));
    g->box = malloc((nt + 1) * sizeof(*g->box));
    if (!g->t0 || !g->t1 || !g->frames || !g->box) {
        free(t);
        return -1;
    }
    for (size_t k = 0; k < nt; k++) {
        if (g->n && t[k] - g->t1[g->n - 1] <= tol + 1e-9) {
            g->frames[g->n - 1] += t[k] > g->t1[g->n - 1];
            g->t1[g->n - 1] = t[k];
            continue;
        }
        g->t0[g->n] = t[k];
        g->t1[g->n] = t[k];
        g->frames[g->n++] = 1;
    }
    free(t);
    double busy = 0;
    for (int w = 0; w < g->n; w++)
        busy += g->frames[w] >= SETTLE_ANIM_MIN ? g->t1[w] - g->t0[w] : 0;
    g->none = busy > SETTLE_ANIM_BUSY * (end - start);
    g->end = end;
    g->in = calloc(n, 1);
    g->twice = calloc(n, 1);
    return g->in && g->twice ? 0 : -1;
}

/* The last turn (its index) starting at or before time t (the turns are in
 * order and do not overlap); -1: none. */
static int turn_before(const Turns *g, double t)
{
    int lo = 0, hi = g->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (g->t0[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* The turn (its index) that holds time t, -1: none. */
static int turn_at(const Turns *g, double t)
{
    const int w = turn_before(g, t);
    return w >= 0 && t <= g->t1[w] ? w : -1;
}

/* In how many of the turns of SETTLE_ANIM_MIN frames or more the cell
 * changed after `after`, up to 2. */
static int turns_hit(const Turns *g, const SettleAnimCell *c, double after)
{
    int have = held(c), k = 0, last = -1;
    for (int j = 1; j <= have && k < 2 && latest(c, j)->time > after; j++) {
        double t = latest(c, j)->time;
        int w = turn_at(g, t);
        if (w >= 0 && w != last && g->frames[w] >= SETTLE_ANIM_MIN) {
            k++;
            last = w;
        }
    }
    return k;
}

/* For each turn after `after`, the cells that changed in it, flood-filled
 * (8 neighbours) from the drivers that did. */
static void turns_fill(const SettleAnimated *a, Turns *g, double after)
{
    size_t n = (size_t)a->nx * a->ny;
    /* a carousel's cells change turn after turn; content that appeared in
     * the frames of one turn (the page still loading while the carousel
     * first turned) or that the encoder re-coded in them changed in that one
     * only: it is the rest's, and no turn's extent spreads through it */
    int count = 0, d[4] = { a->nx, a->ny, -1, -1 };
    for (int w = 0; w < g->n; w++) {
        int on = !g->none && g->t1[w] > after && g->frames[w] >= SETTLE_ANIM_MIN;
        count += on;
        for (size_t i = 0; on && i < n; i++)
            if (g->drv[i] && changed_in(cell_of(a, i), g->t0[w], g->t1[w], after))
                settle_box_grow(d, (int)(i % (size_t)a->nx), (int)(i / (size_t)a->nx),
                                (int)(i % (size_t)a->nx), (int)(i / (size_t)a->nx));
    }
    /* the cells that turn in bursts spread over more than half of the
     * picture: the page loading in bursts, not a carousel on it; every cell
     * that changed in a turn is the turn's, as before */
    if (d[2] >= 0 && (size_t)(d[2] - d[0] + 1) * (size_t)(d[3] - d[1] + 1) * 2 > n)
        count = 0;
    for (size_t i = 0; i < n; i++)
        g->twice[i] = count < 2 || turns_hit(g, cell_of(a, i), after) >= 2;
    for (int w = 0; w < g->n; w++) {
        int *b = g->box[w];
        b[0] = a->nx, b[1] = a->ny, b[2] = -1, b[3] = -1;
        if (g->none || !(g->t1[w] > after) || g->frames[w] < SETTLE_ANIM_MIN)
            continue;
        uint8_t *in = g->in;
        size_t top = 0;
        memset(in, 0, n);
        for (size_t i = 0; i < n; i++)
            if (g->drv[i] && changed_in(cell_of(a, i), g->t0[w], g->t1[w], after)) {
                in[i] = 1;
                g->stack[top++] = i;
            }
        while (top) {
            size_t i = g->stack[--top];
            int cx = (int)(i % (size_t)a->nx), cy = (int)(i / (size_t)a->nx);
            settle_box_grow(b, cx - 1, cy - 1, cx + 1, cy + 1);
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int x = cx + dx, y = cy + dy;
                    size_t j = (size_t)y * a->nx + x;
                    if (x < 0 || y < 0 || x >= a->nx || y >= a->ny || in[j] || !g->twice[j] ||
                        !cell_of(a, j)->n || !changed_in(cell_of(a, j), g->t0[w], g->t1[w], after))
                        continue;
                    in[j] = 1;
                    g->stack[top++] = j;
                }
        }
    }
}

/* How many of its kept changes fall in t0 .. t1. */
static int changes_in(const SettleAnimCell *c, double t0, double t1)
{
    int have = held(c), k = 0;
    for (int j = 1; j <= have; j++)
        k += latest(c, j)->time >= t0 && latest(c, j)->time <= t1;
    return k;
}

static int in_box(const SettleAnimated *a, const int *b, size_t i)
{
    int cx = (int)(i % (size_t)a->nx), cy = (int)(i / (size_t)a->nx);
    return cx >= b[0] && cx <= b[2] && cy >= b[1] && cy <= b[3];
}

/* 1 when the cell's k-th latest change, after turn w, is the encoder
 * refining what the turn left there: it and every change of the cell back
 * to the turn's end are faint (no pixel beyond the strong tolerance), each
 * within twice the turns' pace (2 g->tol: 4 frames where a turn's frames
 * follow each other) of the one before, the first within it of the turn's
 * end, and the cell changed in the turn (VP9 refines a slide
 * that faded in for some 10 frames after the fade, faintly and without a
 * pause: seed 167's 032). */
static int refined_on(const Turns *g, const SettleAnimCell *c, int k, int w)
{
    int have = held(c);
    double prev = latest(c, k)->time;
    for (int j = k; j <= have; j++) {
        const SettleAnimEvent *e = latest(c, j);
        if (e->time <= g->t1[w] + 1e-9)
            return e->time >= g->t0[w] - 1e-9 && prev - g->t1[w] <= 2 * g->tol + 1e-9;
        if (e->strong || prev - e->time > 2 * g->tol + 1e-9)
            return 0;
        prev = e->time;
    }
    return 0;
}

/* Which of the cell's kept changes (a bit per ring slot) were a turn's: after
 * `after`, in a turn's extent, or in a turn in which the cell changed in at
 * least SETTLE_ANIM_MIN frames as the turn's cells do (a part of the slides
 * that touches no other). Every change of an animated cell is its own. */
static uint32_t turn_changes(const SettleAnimated *a, const Turns *g, size_t i, double after)
{
    const SettleAnimCell *c = cell_of(a, i);
    int have = held(c);
    uint32_t bits = 0;
    if (a->on[i]) {
        for (int k = 1; k <= have; k++)
            bits |= (uint32_t)1 << slot(c, k);
        return bits;
    }
    /* the changes after `after` alone, the latest first */
    for (int k = 1; k <= have && latest(c, k)->time > after; k++) {
        double t = latest(c, k)->time;
        const int w = turn_before(g, t);
        /* the encoder finishing a turn's last step: a change that follows
         * the cell's own change in the turn as the turn's changes follow
         * each other */
        double end = w < 0 ? 0 : g->t1[w];
        if (w >= 0 && t > end && t - end <= g->tol + 1e-9 && k < have &&
            latest(c, k + 1)->time >= g->t0[w] && t - latest(c, k + 1)->time <= g->tol + 1e-9)
            end = t;
        else if (w >= 0 && t > end && refined_on(g, c, k, w))
            end = t;
        if (!g->none && g->twice[i] && w >= 0 && t <= end && g->frames[w] >= SETTLE_ANIM_MIN &&
            (in_box(a, g->box[w], i) || changes_in(c, g->t0[w], end) >= SETTLE_ANIM_MIN))
            bits |= (uint32_t)1 << slot(c, k);
    }
    return bits;
}

/* 1 when a cell touching cell i (8 neighbours) changed at time t as an
 * animated cell or in a turn (mine: each cell's turn_changes): what an
 * encoder spills around a moving area (ringing, the macroblocks it
 * straddles, B-frames catching up) changes the cells around it in some of
 * its frames only. */
static int spill(const SettleAnimated *a, const uint32_t *mine, size_t i, double t)
{
    int cx = (int)(i % (size_t)a->nx), cy = (int)(i / (size_t)a->nx);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int x = cx + dx, y = cy + dy;
            size_t j = (size_t)y * a->nx + x;
            if (x < 0 || y < 0 || x >= a->nx || y >= a->ny || j == i || !mine[j])
                continue;
            const SettleAnimCell *c = cell_of(a, j);
            int have = held(c);
            for (int k = 1; k <= have && latest(c, k)->time >= t - 1e-9; k++)
                if (fabs(latest(c, k)->time - t) < 1e-9 && (mine[j] >> slot(c, k) & 1))
                    return 1;
        }
    return 0;
}

/* The times of a fade's steps: the frames of a turn after `after` in which
 * the carousel's cells (the turns' drivers) changed, none of them strongly;
 * sorted, each once. */
typedef struct Step {
    double time;
    int strong;
} Step;

typedef struct Busy {
    Step *s;      /* every step of the drivers' turns, sorted (busy_init) */
    size_t ns;
    double *t;
    size_t n;
} Busy;

static int cmp_step(const void *x, const void *y)
{
    const Step *a = x, *b = y;
    return (a->time > b->time) - (a->time < b->time);
}

/* 1 when turn w runs into the recording's end (its last change within the
 * turns' pace of it): a turn cut short, which may hold fewer than
 * SETTLE_ANIM_MIN frames only because the recording stopped. */
static int cut(const Turns *g, int w)
{
    return g->end - g->t1[w] <= g->tol + 1e-9;
}

/* The drivers' changes in the turns of SETTLE_ANIM_MIN frames or more, or in
 * a turn cut short by the end (a fade that began in the last frames: VP9
 * re-codes the page faintly in its steps as in any other fade's), in
 * time order, once for the whole search (the drivers and turns stay). 0 or
 * -1. */
static int busy_init(const SettleAnimated *a, const Turns *g, Busy *b)
{
    size_t n = (size_t)a->nx * a->ny, ns = 0;
    for (size_t i = 0; i < n; i++) {
        const SettleAnimCell *c = cell_of(a, i);
        ns += g->drv[i] ? (size_t)held(c) : 0;
    }
    b->s = malloc((ns ? ns : 1) * sizeof(*b->s));
    b->t = malloc((ns ? ns : 1) * sizeof(*b->t));
    if (!b->s || !b->t)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const SettleAnimCell *c = cell_of(a, i);
        int have = held(c);
        for (int k = 1; g->drv[i] && k <= have; k++) {
            const SettleAnimEvent *e = latest(c, k);
            int w = 0;
            while (w < g->n && !(e->time >= g->t0[w] && e->time <= g->t1[w]))
                w++;
            if (w < g->n && (g->frames[w] >= SETTLE_ANIM_MIN || cut(g, w)))
                b->s[b->ns++] = (Step){ e->time, e->strong };
        }
    }
    qsort(b->s, b->ns, sizeof(*b->s), cmp_step);
    return 0;
}

/* The fade's steps after `after`: the times of busy_init's changes after it
 * at which no driver changed strongly. */
static void busy_fill(const Turns *g, double after, Busy *b)
{
    size_t k = 0;
    b->n = 0;
    if (g->none)
        return;
    while (k < b->ns && !(b->s[k].time > after))
        k++;
    while (k < b->ns) {
        size_t j = k;
        int strong = 0;
        for (; j < b->ns && b->s[j].time - b->s[k].time < 1e-9; j++)
            strong |= b->s[j].strong;
        if (!strong)
            b->t[b->n++] = b->s[k].time;
        k = j;
    }
}

static int busy_at(const Busy *b, double t)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b->t[mid] < t - 1e-9)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->n && b->t[lo] <= t + 1e-9;
}

/* The cell's last change after `after` that was neither a turn's nor a
 * touching cell's spilling (spill), nor, with busy, a faint one (no pixel
 * beyond the strong tolerance) made in a step of a carousel's fade (busy):
 * an encoder re-coding the page in those frames, as faint as the steps. -INFINITY when every change it kept was (and it kept them all). */
static double own_last(const SettleAnimated *a, const uint32_t *mine, const Busy *busy, size_t i,
                       double after)
{
    const SettleAnimCell *c = cell_of(a, i);
    int have = held(c);
    for (int k = 1; k <= have; k++) {
        const SettleAnimEvent *e = latest(c, k);
        double t = e->time;
        if (!(mine[i] >> slot(c, k) & 1) && !(t > after && spill(a, mine, i, t)) &&
            !(busy && t > after && !e->strong && busy_at(busy, t)))
            return t;
    }
    return have == c->n ? -INFINITY : have ? latest(c, have)->time : c->first;
}

/* 1 when every change in the cell's ring moved its picture by
 * SETTLE_ANIM_MOVED levels: moves() would give the cell as it is. */
static int all_moves(const SettleAnimCell *c)
{
    int have = held(c);
    for (int k = 1; k <= have; k++)
        if (latest(c, k)->moved < SETTLE_ANIM_MOVED)
            return 0;
    return 1;
}

/* The cell's changes without the runs that moved its picture by less than
 * SETTLE_ANIM_MOVED levels (an encoder re-coding it: the picture is where it
 * was before the run); with more changes than its ring holds, the older ones
 * are taken as moves. */
static void moves(const SettleAnimCell *c, SettleAnimCell *m)
{
    int have = held(c), k = 0;
    memset(m, 0, sizeof(*m));
    for (int j = have; j >= 1; j--) {
        const SettleAnimEvent *e = latest(c, j);
        if (e->moved < SETTLE_ANIM_MOVED)
            continue;
        if (!k && c->n <= SETTLE_ANIM_RING)
            m->first = e->time;
        m->ev[k++] = *e;
    }
    if (c->n > SETTLE_ANIM_RING) {
        m->first = c->first;
        /* the older changes before the ring's kept ones, in ring order */
        SettleAnimEvent tmp[SETTLE_ANIM_RING];
        int64_t older = c->n - have;
        memcpy(tmp, m->ev, sizeof(tmp));
        m->n = older + k;
        /* the ring's slots before them hold none of the moves */
        m->lost = (int)((m->n < SETTLE_ANIM_RING ? m->n : SETTLE_ANIM_RING) - k);
        for (int j = 0; j < k; j++)
            m->ev[(older + j) % SETTLE_ANIM_RING] = tmp[j];
    } else {
        m->n = k;
    }
}

/* The view of the moves alone (a->view, n cells): a cell whose every change
 * moved it is read in place; the others' moves are copied into *alt (the
 * few cells an encoder re-coded: a copy of every ring, faulted in at the
 * end, cost more than the search). Returns how many were copied, or -1. */
static int64_t moves_view(SettleAnimated *a, const SettleAnimCell ***view, SettleAnimCell **alt)
{
    size_t n = (size_t)a->nx * a->ny, k = 0;
    for (size_t i = 0; i < n; i++)
        k += !all_moves(&a->cell[i]);
    *view = malloc(n * sizeof(**view));
    *alt = malloc((k ? k : 1) * sizeof(**alt));
    if (!*view || !*alt)
        return -1;
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (all_moves(&a->cell[i])) {
            (*view)[i] = &a->cell[i];
            continue;
        }
        moves(&a->cell[i], &(*alt)[k]);
        (*view)[i] = &(*alt)[k++];
    }
    return (int64_t)k;
}

/* One pass of the search over the changes in a->cell (or a->view): a->on (1 animated, 2
 * joined, 3 re-coded, 0 the rest), own (each cell's last change of its own)
 * and the time the rest settled; wide (when not NULL): a->on as found before
 * a set over half of the picture is taken for none, or, when the turns were
 * dropped for leaving nothing changing after the start and nothing is found
 * without them, as found with them. 0 or -1 (out of memory). */
static int find_cells(SettleAnimated *a, double start, double end, double *own, double *settled,
                      uint8_t *wide)
{
    size_t n = (size_t)a->nx * a->ny;
    double *theta = malloc(n * sizeof(*theta));
    uint32_t *mine = malloc(n * sizeof(*mine));
    Busy busy = { 0 };
    Turns g = { 0 };
    int ret = -1;
    if (!theta || !mine)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        theta[i] = cell_of(a, i)->n ? threshold(cell_of(a, i), start, end) : -INFINITY;
        a->on[i] = theta[i] > -INFINITY;
    }
    if (turns_init(a, &g, start, end) < 0 || busy_init(a, &g, &busy) < 0)
        goto fail;
    /* shrink the set until every cell in it outlasts the rest by its rule;
     * what the rest changed as part of a carousel's turn is the carousel's */
    double rest = start;
    int dropped = 0;
again:
    for (size_t i = 0; i < n; i++)
        a->on[i] = theta[i] > -INFINITY;
    for (int changed = 1; changed;) {
        changed = 0;
        /* the turns are those after the rest settled: the least such time
         * that the rest's own changes do not pass */
        for (double after = start;; after = rest) {
            turns_fill(a, &g, after);
            rest = start;
            for (size_t i = 0; i < n; i++)
                mine[i] = cell_of(a, i)->n ? turn_changes(a, &g, i, after) : 0;
            busy_fill(&g, after, &busy);
            for (size_t i = 0; i < n; i++) {
                own[i] = -INFINITY;
                if (a->on[i] || !cell_of(a, i)->n)
                    continue;
                own[i] = own_last(a, mine, &busy, i, after);
                rest = own[i] > rest ? own[i] : rest;
            }
            if (rest <= after)
                break;
        }
        for (size_t i = 0; i < n; i++)
            if (a->on[i] && !(theta[i] > rest)) {
                a->on[i] = 0;
                changed = 1;
            }
    }
    /* turns that leave nothing of the screen changing after the start are
     * the whole screen moving (a scroll), not a carousel on a page */
    if (!g.none && !(rest > start)) {
        /* what the turns took in is the set every change names: the encoder
         * re-coding the whole page in their rhythm (VP8 on a phone) */
        if (wide)
            memcpy(wide, a->on, n);
        dropped = 1;
        g.none = 1;
        goto again;
    }
    /* the cells whose changes after the rest settled were all turns or
     * spills join; those that needed the faint rule for some are re-coded */
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (!a->on[i] && cell_of(a, i)->n && latest(cell_of(a, i), 1)->time > rest &&
            own[i] <= rest)
            a->on[i] = own_last(a, mine, NULL, i, rest) <= rest ? 2 : 3;
    for (size_t i = 0; i < n; i++)
        count += a->on[i] == 1 || a->on[i] == 2;
    for (size_t i = 0; wide && i < n; i++)
        wide[i] = dropped && !a->on[i] ? wide[i] : a->on[i];
    if (count * 2 > n)
        memset(a->on, 0, n);
    *settled = rest;
    ret = 0;
fail:
    turns_free(&g);
    free(busy.s);
    free(busy.t);
    free(theta);
    free(mine);
    return ret;
}

/* 1 when the cell's changes after `t` were all faint (no pixel beyond the
 * strong tolerance) and its ring holds them all. */
static int faint_since(const SettleAnimCell *c, double t)
{
    int have = held(c), k = 1;
    for (; k <= have && latest(c, k)->time > t; k++)
        if (latest(c, k)->strong)
            return 0;
    return k <= have || c->n == have;
}

int settle_animated_find(SettleAnimated *a, double start, double end)
{
    size_t n = (size_t)a->nx * a->ny;
    double *own = malloc(n * sizeof(*own)), *own_all = malloc(n * sizeof(*own_all));
    SettleAnimCell *all = a->cell, *alt = NULL;
    const SettleAnimCell **view = NULL;
    uint8_t *on_all = malloc(n), *wide = malloc(n);
    double rest, rest_all;
    int ret = -1;
    if (!own || !own_all || !on_all || !wide)
        goto fail;
    free(a->regions);
    a->regions = NULL;
    a->nregions = 0;
    a->count = 0;
    /* the search on every change, then on the moves alone: what an encoder
     * re-codes in step with a carousel (VP9 re-coding the page in the frames
     * of its fades) passes for cells that keep changing, and the content's
     * last change there for the carousel's */
    if (find_cells(a, start, end, own_all, &rest_all, wide) < 0)
        goto fail;
    memcpy(on_all, a->on, n);
    int64_t copied = moves_view(a, &view, &alt);
    if (copied < 0)
        goto fail;
    a->view = view;
    if (!copied) { /* every change moved its cell: the same search */
        memcpy(own, own_all, n * sizeof(*own));
        rest = rest_all;
    } else if (find_cells(a, start, end, own, &rest, NULL) < 0) {
        goto fail;
    }
    /* the moves name only cells that every change names: where the
     * picture keeps moving in small steps (a scroll, a video), leaving out
     * its changes that moved it little takes the rest's last changes away,
     * and its cells would outlast what is left. When every change named
     * over half of the picture (none is taken) the moves are taken within
     * it only when they name a carousel, every animated cell changing in
     * bursts: VP9 re-codes the page in the rhythm of a fading carousel's
     * turns, all over; a video's moves keep on, not in bursts */
    int within = 1, none = 1;
    for (size_t i = 0; i < n && none; i++)
        none = on_all[i] != 1 && on_all[i] != 2;
    for (size_t i = 0; i < n && within; i++)
        within = !(a->on[i] == 1 || a->on[i] == 2) || wide[i] == 1 || wide[i] == 2;
    for (size_t i = 0; i < n && within && none; i++)
        within = a->on[i] != 1 || bursty(cell_of(a, i));
    if (!within) {
        a->view = NULL;
        memcpy(a->on, on_all, n);
        memcpy(own, own_all, n * sizeof(*own));
        rest = rest_all;
    }
    for (size_t i = 0; i < n; i++)
        a->count += a->on[i] == 1 || a->on[i] == 2;
    /* where an area kept changing, a cell of the rest whose changes after its
     * last move were faint and moved nothing is re-coded: the encoder's, in
     * step with the area (VP9 re-coding the page in a fade's frames) */
    for (size_t i = 0; i < n && a->count; i++)
        if (!a->on[i] && all[i].n && latest(&all[i], 1)->time > a->last_move[i] &&
            faint_since(&all[i], a->last_move[i])) {
            a->on[i] = 3;
            own[i] = a->last_move[i];
        }
    free(a->until);
    a->until = own; /* a joined cell's changes up to its own last are the rest's */
    own = NULL;
    ret = a->count ? join(a, all, rest) : 0;
fail:
    a->view = NULL;
    free(view);
    free(alt);
    free(on_all);
    free(wide);
    free(own);
    free(own_all);
    return ret;
}

/* The cell's change is spooled: it counts, or in a frame that re-coded the
 * whole page it goes on from a change that counted as a fade's step does. */
static int spooled(const SettleAnimated *a, const SettleCells *g, size_t i, int recoded,
                   int64_t index)
{
    if (recoded == SETTLE_ANIM_REFRESH)
        return g->count[i] && !refining(a, g, i, index, recoded) && went_on(a, i, index);
    return counts(a, g, i, recoded, index);
}

int settle_animated_spool(SettleAnimated *a, const SettleCells *g, int64_t index, int recoded)
{
    uint32_t k = 0;
    for (int cy = 0; cy < g->ny; cy++)
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++)
            k += g->count[(size_t)cy * g->nx + cx] != 0;
    if (!k)
        return 0;
    if (fwrite(&index, sizeof(index), 1, a->spool) != 1 || fwrite(&k, sizeof(k), 1, a->spool) != 1)
        return -1;
    for (int cy = 0; cy < g->ny; cy++) {
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++) {
            size_t i = (size_t)cy * g->nx + cx;
            if (!g->count[i])
                continue;
            uint32_t flags = !spooled(a, g, i, recoded, index)   ? SETTLE_ANIM_UNCOUNTED
                             : recoded == SETTLE_ANIM_REFRESH ? SETTLE_ANIM_NOAREA
                                                              : 0;
            /* re-coded long after the cell's last move: more than
             * SETTLE_ANIM_ECHO frames after it, its run so far moving
             * nothing, and no change since the move strong */
            if (a->move_at[i] && index - (a->move_at[i] - 1) > SETTLE_ANIM_ECHO &&
                a->moved[i] < SETTLE_ANIM_MOVED && a->strong_at[i] <= a->move_at[i])
                flags |= SETTLE_ANIM_LATE;
            /* ... and a cell that nothing ever moved or changed strongly,
             * whose change the rules above take for the encoder's: VP8
             * re-codes, with a caret's blink, parts of the page whose only
             * change before was a refresh (seed 31's 000) */
            if (!a->move_at[i] && !a->strong_at[i] && (flags & SETTLE_ANIM_UNCOUNTED))
                flags |= SETTLE_ANIM_LATE;
            SettleAnimEntry e = { .cell = (uint32_t)i | flags, .count = g->count[i] };
            memcpy(e.box, g->cbox[i], 4);
            if (fwrite(&e, sizeof(e), 1, a->spool) != 1)
                return -1;
        }
    }
    return 0;
}

int settle_animated_rewind(SettleAnimated *a)
{
    a->next = -1;
    a->bnext = -1;
    if (a->bspool && (fflush(a->bspool) || fseek(a->bspool, 0, SEEK_SET)))
        return -1;
    return a->spool && !fflush(a->spool) && !fseek(a->spool, 0, SEEK_SET) ? 0 : -1;
}

/* The rectangle b (x0, y0, x1, y1) of a frame's px spooled pixels as x, y,
 * w, h in box, left as it is (0) when there are none. */
static void spooled_box(const int b[4], int64_t px, int box[4])
{
    if (!px)
        return;
    box[0] = b[0];
    box[1] = b[1];
    box[2] = b[2] - b[0];
    box[3] = b[3] - b[1];
}

/* The spool's next frame's header, once: -1 on a read error. */
static int spool_next(SettleAnimated *a)
{
    if (a->next >= 0)
        return 0;
    if (fread(&a->next, sizeof(a->next), 1, a->spool) != 1) {
        a->next = INT64_MAX; /* the end */
        return 0;
    }
    return fread(&a->next_n, sizeof(a->next_n), 1, a->spool) == 1 ? 0 : -1;
}

int settle_animated_read(SettleAnimated *a, int64_t index, double time, int64_t *pixels,
                         int box[4], int64_t *kept)
{
    *pixels = 0;
    box[0] = box[1] = box[2] = box[3] = 0;
    if (kept)
        *kept = 0;
    if (spool_next(a) < 0)
        return -1;
    if (a->next != index)
        return 0;
    const uint32_t flags = SETTLE_ANIM_NOAREA | SETTLE_ANIM_UNCOUNTED | SETTLE_ANIM_LATE;
    int b[4] = { INT32_MAX, INT32_MAX, 0, 0 };
    int64_t px = 0, kpx = 0;
    for (uint32_t j = 0; j < a->next_n; j++) {
        SettleAnimEntry e;
        if (fread(&e, sizeof(e), 1, a->spool) != 1 || (e.cell & ~flags) >= (uint32_t)(a->nx * a->ny))
            return -1;
        uint32_t i = e.cell & ~flags;
        int cx = (int)(i % (uint32_t)a->nx), cy = (int)(i / (uint32_t)a->nx);
        int bx = a->ox + cx * SETTLE_CELL, by = a->oy + cy * SETTLE_CELL;
        /* the encoder's late re-coding, unless the cell moved since */
        if (!(e.cell & SETTLE_ANIM_LATE) || a->move_at[i] > index)
            kpx += e.count;
        if ((e.cell & SETTLE_ANIM_UNCOUNTED) || ((e.cell & SETTLE_ANIM_NOAREA) && a->count))
            continue;
        if (a->on[i] == 1 || (a->on[i] >= 2 && time > a->until[i]))
            continue;
        px += e.count;
        settle_box_grow(b, bx + e.box[0], by + e.box[1], bx + e.box[2], by + e.box[3]);
    }
    a->next = -1;
    *pixels = px;
    spooled_box(b, px, box);
    if (kept)
        *kept = kpx;
    return 0;
}

int settle_animated_read_in(SettleAnimated *a, int64_t index, const int rect[4], int64_t *pixels,
                            int box[4])
{
    const uint32_t flags = SETTLE_ANIM_NOAREA | SETTLE_ANIM_UNCOUNTED | SETTLE_ANIM_LATE;
    *pixels = 0;
    box[0] = box[1] = box[2] = box[3] = 0;
    /* past the frames spooled before index that the caller did not ask for
     * (made quiet by another rule first: the status bar left out) */
    for (;;) {
        if (spool_next(a) < 0)
            return -1;
        if (a->next >= index)
            break;
        if (fseek(a->spool, (long)(a->next_n * sizeof(SettleAnimEntry)), SEEK_CUR))
            return -1;
        a->next = -1;
    }
    if (a->next != index)
        return 0;
    int b[4] = { INT32_MAX, INT32_MAX, 0, 0 };
    int64_t px = 0;
    for (uint32_t j = 0; j < a->next_n; j++) {
        SettleAnimEntry e;
        if (fread(&e, sizeof(e), 1, a->spool) != 1 ||
            (e.cell & ~flags) >= (uint32_t)(a->nx * a->ny))
            return -1;
        uint32_t i = e.cell & ~flags;
        const int cx = (int)(i % (uint32_t)a->nx) * SETTLE_CELL;
        const int cy = (int)(i / (uint32_t)a->nx) * SETTLE_CELL;
        if (cx + e.box[2] <= rect[0] || cx + e.box[0] >= rect[2] || cy + e.box[3] <= rect[1] ||
            cy + e.box[1] >= rect[3])
            continue;
        px += e.count;
        settle_box_grow(b, a->ox + cx + e.box[0], a->oy + cy + e.box[1], a->ox + cx + e.box[2],
                        a->oy + cy + e.box[3]);
    }
    a->next = -1;
    *pixels = px;
    spooled_box(b, px, box);
    return 0;
}

/* A block's marks as the spool holds them, below its index: every mark of
 * settle_blocks_marks (SETTLE_BLOCK_OVER .. SETTLE_BLOCK_LINE). */
#define SPOOL_MARK_BITS 6
#define SPOOL_MARK_MASK ((1u << SPOOL_MARK_BITS) - 1)
_Static_assert((SETTLE_BLOCK_OVER | SETTLE_BLOCK_TWICE | SETTLE_BLOCK_FADING | SETTLE_BLOCK_LONE |
                SETTLE_BLOCK_AREA | SETTLE_BLOCK_LINE) == SPOOL_MARK_MASK,
               "the spool keeps every block mark");

/* The cell of the grid that block b (of bs pixels, bw across) lies in: a
 * block's side divides the cell's. -1 outside the grid. */
static int block_cell(const SettleAnimated *a, int b, int bw, int bs)
{
    int cx = b % bw * bs / SETTLE_CELL, cy = b / bw * bs / SETTLE_CELL;
    return cx < a->nx && cy < a->ny ? cy * a->nx + cx : -1;
}

int settle_animated_spool_blocks(SettleAnimated *a, const SettleCells *g, int64_t index,
                                 int recoded, const uint8_t *mark, int bw, int bs, int nb)
{
    uint32_t k = 0;
    for (int i = 0; i < nb; i++)
        k += mark[i] != 0;
    if (!k)
        return 0;
    if (fwrite(&index, sizeof(index), 1, a->bspool) != 1 || fwrite(&k, sizeof(k), 1, a->bspool) != 1)
        return -1;
    for (int i = 0; i < nb; i++) {
        if (!mark[i])
            continue;
        /* the block's index, its mark (SPOOL_MARK_BITS) and whether its
         * cell's change counted (pixels beyond diff's tolerance, not the
         * encoder's), in one word */
        int c = block_cell(a, i, bw, bs);
        uint32_t e = (uint32_t)i << (SPOOL_MARK_BITS + 1) | (uint32_t)mark[i] << 1 |
                     (c >= 0 && counts(a, g, (size_t)c, recoded, index));
        if (fwrite(&e, sizeof(e), 1, a->bspool) != 1)
            return -1;
    }
    return 0;
}

int settle_animated_read_blocks(SettleAnimated *a, int64_t index, double time, int bw, int bs,
                                int nb, uint8_t *mark, int *found)
{
    memset(mark, 0, (size_t)nb);
    *found = 0;
    if (a->bnext < 0) {
        if (fread(&a->bnext, sizeof(a->bnext), 1, a->bspool) != 1) {
            a->bnext = INT64_MAX; /* the end */
            return 0;
        }
        if (fread(&a->bnext_n, sizeof(a->bnext_n), 1, a->bspool) != 1)
            return -1;
    }
    if (a->bnext != index)
        return 0;
    for (uint32_t k = 0; k < a->bnext_n; k++) {
        uint32_t e;
        if (fread(&e, sizeof(e), 1, a->bspool) != 1 || (e >> (SPOOL_MARK_BITS + 1)) >= (uint32_t)nb)
            return -1;
        int b = (int)(e >> (SPOOL_MARK_BITS + 1)), c = block_cell(a, b, bw, bs);
        if (c < 0)
            return -1;
        /* a block whose pixels did not change (its mean moved with the
         * light fitted over the whole picture, which a large change elsewhere
         * pulls), or that lies in an animated cell */
        if (!(e & 1) || a->on[c] == 1 || (a->on[c] >= 2 && time > a->until[c]))
            continue;
        mark[b] = (uint8_t)(e >> 1 & SPOOL_MARK_MASK);
    }
    a->bnext = -1;
    *found = 1;
    return 0;
}
