/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writes a synthetic history as settle analyze --json writes results, one
 * JSON line a capture, for the tests of history, trend and dashboard. Each
 * argument is one series, as KEY=VALUE words:
 *   test=T device=D  labels of the series
 *   nights=8 first=1 captures=3   nights first..first+nights-1, captures a night
 *   base=1.2 sd=0.03 load time and its noise (normal, seconds)
 *   step=0.25 at=6   from night `at` on, the load time is base + step
 *   outlier=4:0.4    night 4 alone is 0.4 s slower
 *   drift=0.01       every night 0.01 s slower than the one before
 *   seed=1           of the noise (splitmix64, Box-Muller): same file everywhere
 *   date=1           the night label is a date 2026-11-DD instead of a number
 *   status=5:not_stable  capture 1 of night 5 has no stable frame
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double normal(uint64_t *s)
{
    double u = ((double)(next(s) >> 11) + 0.5) / 9007199254740992.0;
    double v = ((double)(next(s) >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

typedef struct Spec {
    char test[64], device[64], status[32];
    int nights, first, captures, at, out_night, date, status_night;
    double base, sd, step, out_by, drift;
    uint64_t seed;
} Spec;

static int parse(Spec *p, char *arg)
{
    *p = (Spec){ .nights = 8, .first = 1, .captures = 3, .base = 1.2, .sd = 0.03, .seed = 1 };
    strcpy(p->test, "contacts");
    strcpy(p->device, "pixel");
    for (char *save = NULL, *w = strtok_r(arg, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        if (!eq)
            return -1;
        *eq++ = 0;
        if (!strcmp(w, "test")) snprintf(p->test, sizeof(p->test), "%s", eq);
        else if (!strcmp(w, "device")) snprintf(p->device, sizeof(p->device), "%s", eq);
        else if (!strcmp(w, "nights")) p->nights = atoi(eq);
        else if (!strcmp(w, "first")) p->first = atoi(eq);
        else if (!strcmp(w, "captures")) p->captures = atoi(eq);
        else if (!strcmp(w, "base")) p->base = atof(eq);
        else if (!strcmp(w, "sd")) p->sd = atof(eq);
        else if (!strcmp(w, "step")) p->step = atof(eq);
        else if (!strcmp(w, "at")) p->at = atoi(eq);
        else if (!strcmp(w, "drift")) p->drift = atof(eq);
        else if (!strcmp(w, "seed")) p->seed = strtoull(eq, NULL, 10);
        else if (!strcmp(w, "date")) p->date = atoi(eq);
        else if (!strcmp(w, "outlier") && sscanf(eq, "%d:%lf", &p->out_night, &p->out_by) == 2) {
        } else if (!strcmp(w, "status") && sscanf(eq, "%d:%31s", &p->status_night, p->status) == 2) {
        } else
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        Spec p;
        if (parse(&p, argv[i]) < 0) {
            fprintf(stderr, "make_history: bad series '%s'\n", argv[i]);
            return 2;
        }
        uint64_t s = p.seed;
        for (int n = p.first; n < p.first + p.nights; n++)
            for (int k = 1; k <= p.captures; k++) {
                double v = p.base + p.sd * normal(&s) + p.drift * (n - p.first);
                if (p.at && n >= p.at)
                    v += p.step;
                if (n == p.out_night)
                    v += p.out_by;
                v = round(v * 1e6) / 1e6;
                int bad = n == p.status_night && k == 1;
                char night[32];
                if (p.date)
                    snprintf(night, sizeof(night), "\"2026-11-%02d\"", n);
                else
                    snprintf(night, sizeof(night), "\"%d\"", n);
                char lt[32];
                snprintf(lt, sizeof(lt), "%.6f", v);
                printf("{\"input\":\"cap/%s-%s-n%d-%d.mp4\",\"input_size\":1000,"
                       "\"input_mtime\":\"%d.000000000\",\"frames\":100,\"load_time\":%s,"
                       "\"status\":\"%s\",\"partial\":false,\"error\":null,"
                       "\"settings\":{\"method\":\"auto\"},\"labels\":{\"test\":\"%s\","
                       "\"device\":\"%s\",\"night\":%s,\"build\":\"%d\"},"
                       "\"settle_version\":\"0.1.0\"}\n",
                       p.test, p.device, n, k, 1790000000 + n * 86400 + k * 60,
                       bad ? "null" : lt, bad ? p.status : "stable", p.test, p.device, night,
                       4700 + n);
            }
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
