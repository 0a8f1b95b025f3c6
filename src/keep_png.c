/* SPDX-License-Identifier: BSD-2-Clause */
/* The PNGs of the frames that may become key frames, made while the capture
 * is read, on a core the reading leaves idle: a screen capture's decoding
 * and analysis keep about one and a half of two cores busy, and the key
 * frames' PNGs (60 ms each at 2732x1536) were the tail of the picture set,
 * encoded after the decision. The thread runs under SCHED_IDLE, so it takes
 * only what no other thread wants; what it made for a frame that is a key
 * frame in the end is that frame's settle_encode_png bytes, the rest is
 * dropped. */
#if defined(__linux__)
#define _GNU_SOURCE /* SCHED_IDLE */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keep.h"

enum { KEEP_JOB_QUEUED, KEEP_JOB_RUNNING, KEEP_JOB_DONE, KEEP_JOB_FAILED };

static void job_free(SettleKeepJob *j)
{
    if (j->held)
        j->held->release(j->held);
    settle_pixels_unref(j->rgb);
    free(j->png);
    free(j);
}

typedef struct JobRows {
    SettleKeepJob *j;
    size_t row;
} JobRows;

/* The job's rows, until it is dropped: NULL stops the encoder. */
static const uint8_t *job_row(void *opaque, int y)
{
    const JobRows *r = opaque;
    if (atomic_load_explicit(&r->j->drop, memory_order_relaxed))
        return NULL;
    atomic_store_explicit(&r->j->rows, y, memory_order_relaxed);
    return r->j->rgb + r->row * (size_t)y;
}

/* Renders (a held picture) and encodes job j; the thread's alone while running. */
static int job_run(const SettleKeepPng *p, SettleKeepJob *j)
{
    JobRows r = { .j = j, .row = (size_t)p->w * 3 };
    if (j->held) {
        if (!(j->rgb = settle_pixels_new(r.row * (size_t)p->h)))
            return -1;
        j->held->render(j->held, j->rgb, (ptrdiff_t)r.row);
        j->held->release(j->held);
        j->held = NULL;
    }
    return settle_encode_png_rows(p->w, p->h, job_row, &r, &j->png, &j->len) < 0 ? -1 : 0;
}

/* Removes job i from the list (the order of the rest kept). */
static void job_remove(SettleKeepPng *p, int i)
{
    memmove(&p->job[i], &p->job[i + 1], sizeof(p->job[0]) * (size_t)(p->njob - i - 1));
    p->njob--;
}

static void *png_thread(void *opaque)
{
    SettleKeepPng *p = opaque;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        SettleKeepJob *j = NULL;
        for (int i = 0; i < p->njob && !j; i++)
            if (p->job[i]->state == KEEP_JOB_QUEUED)
                j = p->job[i];
        if (p->quit)
            break;
        if (!j) {
            pthread_cond_wait(&p->cond, &p->lock);
            continue;
        }
        j->state = KEEP_JOB_RUNNING;
        pthread_mutex_unlock(&p->lock);
        const int ret = job_run(p, j);
        pthread_mutex_lock(&p->lock);
        j->state = ret < 0 ? KEEP_JOB_FAILED : KEEP_JOB_DONE;
        const int dropped = atomic_load_explicit(&j->drop, memory_order_relaxed);
        if (dropped)
            for (int i = 0; i < p->njob; i++)
                if (p->job[i] == j)
                    job_remove(p, i);
        pthread_cond_broadcast(&p->cond);
        if (dropped) { /* freed out of the lock: this thread may wait long for a core */
            pthread_mutex_unlock(&p->lock);
            job_free(j);
            pthread_mutex_lock(&p->lock);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void settle_keep_png_begin(SettleKeep *k)
{
    SettleKeepPng *p = &k->png;
    if (!p->want || !k->on || p->on)
        return;
    p->w = k->w;
    p->h = k->h;
    p->quit = 0;
    p->ended = 0;
    p->njob = 0;
    if (pthread_mutex_init(&p->lock, NULL))
        return;
    if (pthread_cond_init(&p->cond, NULL)) {
        pthread_mutex_destroy(&p->lock);
        return;
    }
    if (pthread_create(&p->th, NULL, png_thread, p)) {
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        return;
    }
    /* only where it can run as SCHED_IDLE (it waits for jobs until then):
     * elsewhere it would take the decoder's and the analysis' time, and the
     * PNGs are made at the end */
    int idle = 0;
#ifdef SCHED_IDLE
    struct sched_param sp = { .sched_priority = 0 };
    idle = pthread_setschedparam(p->th, SCHED_IDLE, &sp) == 0;
#endif
    if (!idle) {
        pthread_mutex_lock(&p->lock);
        p->quit = 1;
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->th, NULL);
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        return;
    }
    p->on = 1;
}

/* The frames that may become key frames, each once, most wanted first:
 * the start frame and the first change (the same for most methods, and
 * known early: made once), then the frames the methods' latest changes
 * settled on, the methods that answer most often first. */
static int candidates(const SettleKeep *k, double time, SettleKept **c)
{
    static const int role[] = {
        SETTLE_KEEP_START + SETTLE_T_DIFF, SETTLE_KEEP_START + SETTLE_T_BLOCKS,
        SETTLE_KEEP_FIRST + SETTLE_T_DIFF, SETTLE_KEEP_FIRST + SETTLE_T_BLOCKS,
        SETTLE_KEEP_SETTLED + SETTLE_T_DIFF, SETTLE_KEEP_SETTLED + SETTLE_T_DIFF_SOLID,
        SETTLE_KEEP_SETTLED + SETTLE_T_BLOCKS, SETTLE_KEEP_SETTLED + SETTLE_T_BLOCKS_NOBAR,
        SETTLE_KEEP_SETTLED + SETTLE_T_ENTROPY,
    };
    int n = 0;
    for (size_t r = 0; r < sizeof(role) / sizeof(role[0]); r++) {
        const int t = role[r] % SETTLE_T_COUNT;
        SettleKept *q = k->methods & (1u << t) ? k->role[role[r]] : NULL;
        const SettleKept *last = k->role[SETTLE_KEEP_LAST + t];
        /* a settled frame: once its method's latest change is that old */
        if (q && role[r] >= SETTLE_KEEP_SETTLED &&
            (!last || !(time - last->time >= SETTLE_KEEP_QUIET)))
            q = NULL;
        int dup = 0;
        for (int i = 0; i < n && q; i++)
            dup |= c[i]->frame == q->frame;
        if (q && !dup)
            c[n++] = q;
    }
    return n;
}

/* The kept copy of `frame` in a role (settle_keep_find's, kept here so
 * that keep.c's calls go one way). */
static SettleKept *kept_of(const SettleKeep *k, int64_t frame)
{
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++)
        if (k->role[r] && k->role[r]->frame == frame)
            return k->role[r];
    return NULL;
}

static int rank(SettleKept *const *c, int n, int64_t frame)
{
    for (int i = 0; i < n; i++)
        if (c[i]->frame == frame)
            return i;
    return n;
}

void settle_keep_png_update(SettleKeep *k, double time)
{
    SettleKeepPng *p = &k->png;
    if (!p->on || p->ended)
        return;
    SettleKept *c[9];
    const int n = candidates(k, time, c);
    /* never waits for the lock: the thread that holds it may wait long for
     * an idle core (SCHED_IDLE); the next frame looks again */
    if (pthread_mutex_trylock(&p->lock))
        return;
    int added = 0;
    for (int i = 0; i < p->njob;) { /* those no longer wanted */
        SettleKeepJob *j = p->job[i];
        int want = 0;
        for (int m = 0; m < n && m < SETTLE_KEEP_JOBS; m++)
            want |= c[m]->frame == j->frame;
        if (want) {
            i++;
        } else if (j->state == KEEP_JOB_RUNNING) {
            atomic_store_explicit(&j->drop, 1, memory_order_relaxed); /* the thread frees it */
            i++;
        } else {
            job_remove(p, i);
            job_free(j);
        }
    }
    for (int m = 0; m < n && p->njob < SETTLE_KEEP_JOBS; m++) {
        int have = 0;
        for (int i = 0; i < p->njob; i++)
            have |= p->job[i]->frame == c[m]->frame &&
                    !atomic_load_explicit(&p->job[i]->drop, memory_order_relaxed);
        if (have || (!c[m]->rgb && !(c[m]->held && c[m]->held->clone)))
            continue;
        SettleKeepJob *j = calloc(1, sizeof(*j));
        if (!j)
            break;
        j->frame = c[m]->frame;
        atomic_init(&j->drop, 0);
        atomic_init(&j->rows, 0);
        if (c[m]->rgb) /* a copy is never a spare while this reference holds it */
            j->rgb = settle_pixels_ref(c[m]->rgb);
        else if (!(j->held = c[m]->held->clone(c[m]->held))) {
            free(j);
            break;
        }
        j->state = KEEP_JOB_QUEUED;
        p->job[p->njob++] = j;
        added = 1;
    }
    /* the queue in the candidates' order: the thread takes the first queued */
    for (int i = 1; i < p->njob; i++) {
        SettleKeepJob *j = p->job[i];
        int ri = rank(c, n, j->frame), at = i;
        while (at > 0 && rank(c, n, p->job[at - 1]->frame) > ri) {
            p->job[at] = p->job[at - 1];
            at--;
        }
        p->job[at] = j;
    }
    /* a job running behind one queued ahead of it gives way: the frames
     * of the methods that answer most often are wanted first */
    for (int i = 0, queued = 0; i < p->njob; i++) {
        SettleKeepJob *j = p->job[i];
        queued |= j->state == KEEP_JOB_QUEUED;
        if (queued && j->state == KEEP_JOB_RUNNING)
            atomic_store_explicit(&j->drop, 1, memory_order_relaxed); /* the thread frees it */
    }
    if (added)
        pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

void settle_keep_png_end(SettleKeep *k, const int64_t *frames, int n)
{
    SettleKeepPng *p = &k->png;
    if (!p->on || p->ended)
        return;
    /* What is finished is kept, and a key frame's job under way runs on
     * (settle_keep_png_take); the rest is stopped or dropped, and the thread
     * ends after its job. A held picture a finished job rendered becomes its
     * kept copy's pixels. The thread is joined by settle_keep_png_free. */
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->njob;) {
        SettleKeepJob *j = p->job[i];
        SettleKept *q = kept_of(k, j->frame);
        int want = 0;
        for (int m = 0; m < n; m++)
            want |= frames[m] >= 0 && frames[m] == j->frame;
        if (j->state == KEEP_JOB_RUNNING) {
            if (!want || !q)
                atomic_store_explicit(&j->drop, 1, memory_order_relaxed); /* the thread frees it */
            i++;
            continue;
        }
        if (j->state != KEEP_JOB_DONE || !want || !q) {
            job_remove(p, i);
            job_free(j);
            continue;
        }
        if (q->held && j->rgb) {
            q->held->release(q->held);
            q->held = NULL;
            q->rgb = settle_pixels_ref(j->rgb);
            q->tick = 0; /* as a spare: copied whole */
        }
        settle_pixels_unref(j->rgb);
        j->rgb = NULL;
        i++;
    }
    p->quit = 1;
    p->ended = 1;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

/* A job still running is waited for while it goes at a fair speed: at
 * least a 16th of its rows every 10 ms (a full-size PNG of a screen is
 * 60 ms of one core). A thread that only idle cores run gets next to
 * nothing while the other threads keep both busy: then it is stopped, and
 * the picture is encoded as any other. */
#define WAIT_STEP_NS 10000000L

static void wait_running(SettleKeepPng *p, SettleKeepJob *j)
{
    int last = atomic_load_explicit(&j->rows, memory_order_relaxed);
    while (j->state == KEEP_JOB_RUNNING) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += WAIT_STEP_NS;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        while (j->state == KEEP_JOB_RUNNING && pthread_cond_timedwait(&p->cond, &p->lock, &t) == 0)
            ;
        const int now = atomic_load_explicit(&j->rows, memory_order_relaxed);
        if (j->state == KEEP_JOB_RUNNING && now - last < p->h / 16 + 1) {
            atomic_store_explicit(&j->drop, 1, memory_order_relaxed); /* the thread frees it */
            return;
        }
        last = now;
    }
}

uint8_t *settle_keep_png_take(SettleKeep *k, int64_t frame, size_t *len)
{
    SettleKeepPng *p = &k->png;
    uint8_t *png = NULL;
    *len = 0;
    if (!p->on || !p->ended)
        return NULL;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->njob && !png; i++) {
        SettleKeepJob *j = p->job[i];
        if (j->frame != frame || atomic_load_explicit(&j->drop, memory_order_relaxed))
            continue;
        if (j->state == KEEP_JOB_RUNNING)
            wait_running(p, j);
        if (j->state == KEEP_JOB_DONE && j->png) {
            png = j->png;
            *len = j->len;
            j->png = NULL;
        }
        break;
    }
    pthread_mutex_unlock(&p->lock);
    return png;
}

void settle_keep_png_wait(SettleKeep *k)
{
    SettleKeepPng *p = &k->png;
    if (!p->on)
        return;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        int busy = 0;
        for (int i = 0; i < p->njob; i++)
            busy |= p->job[i]->state == KEEP_JOB_QUEUED || p->job[i]->state == KEEP_JOB_RUNNING;
        if (!busy || p->quit)
            break;
        pthread_cond_wait(&p->cond, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
}

void settle_keep_png_free(SettleKeep *k)
{
    SettleKeepPng *p = &k->png;
    if (!p->on)
        return;
    settle_keep_png_end(k, NULL, 0);
    pthread_join(p->th, NULL);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    for (int i = 0; i < p->njob; i++)
        job_free(p->job[i]);
    p->njob = 0;
    p->on = 0;
}
