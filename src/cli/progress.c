/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static int enabled;
static int shown;
static double last_print;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_enable(int on)
{
    enabled = on && isatty(2);
}

int progress_enabled(void)
{
    return enabled;
}

void progress_begin(Progress *p, const char *input, const char *pass)
{
    p->input = input;
    p->pass = pass;
    p->t0 = now();
}

void progress_cb(void *opaque, double time, double duration, int64_t frames)
{
    const Progress *p = opaque;
    if (!enabled || !p)
        return;
    double t = now();
    pthread_mutex_lock(&lock);
    if (t - last_print >= 0.2) {
        last_print = t;
        double el = t - p->t0;
        char pct[16] = "";
        if (isfinite(duration) && duration > 0)
            snprintf(pct, sizeof(pct), "%3.0f%% ", fmin(100, 100 * time / duration));
        fprintf(stderr, "\r\033[Ksettle: %s%s%s: %s%.1f s, %lld frames, %.0f fps", p->input,
                p->pass ? " " : "", p->pass ? p->pass : "", pct, time, (long long)frames,
                el > 0 ? frames / el : 0.0);
        fflush(stderr);
        shown = 1;
    }
    pthread_mutex_unlock(&lock);
}

void progress_clear(void)
{
    if (!enabled)
        return;
    pthread_mutex_lock(&lock);
    if (shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        shown = 0;
    }
    pthread_mutex_unlock(&lock);
}
