/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"

int inputs_add(InputList *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(s)))
        return -1;
    l->n++;
    return 0;
}

int inputs_read(InputList *l, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return -1;
    size_t len = 0, cap = 0;
    char *buf = NULL;
    int ret = -1;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, ncap);
            if (!nb)
                goto end;
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (!got)
            break;
    }
    if (ferror(f)) {
        errno = errno ? errno : EIO;
        goto end;
    }
    buf = buf ? buf : calloc(1, 1);
    if (!buf)
        goto end;
    buf[len] = 0;
    int nul = memchr(buf, 0, len) != NULL;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && buf[j] != (nul ? 0 : '\n'))
            j++;
        buf[j] = 0;
        if (!nul && j > i && buf[j - 1] == '\r')
            buf[j - 1] = 0;
        if (buf[i] && inputs_add(l, buf + i) < 0)
            goto end;
        i = j + 1;
    }
    ret = 0;
end:;
    int e = errno;
    free(buf);
    if (f != stdin)
        fclose(f);
    errno = e;
    return ret;
}

void inputs_free(InputList *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

char *input_key(const char *path)
{
    while (path[0] == '.' && path[1] == '/') {
        path += 2;
        while (*path == '/')
            path++;
    }
    char *k = malloc(strlen(path) + 1), *w = k;
    if (!k)
        return NULL;
    for (const char *p = path; *p; p++)
        if (!(p[0] == '/' && p[1] == '/'))
            *w++ = *p;
    *w = 0;
    return k;
}

uint64_t input_hash(const char *key)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

int shard_parse(const char *arg, int *k, int *n)
{
    char *end;
    errno = 0;
    long kk = strtol(arg, &end, 10);
    if (end == arg || *end != '/' || errno)
        return -1;
    const char *q = end + 1;
    long nn = strtol(q, &end, 10);
    if (end == q || *end || errno || nn < 1 || nn > 1000000 || kk < 1 || kk > nn)
        return -1;
    *k = (int)kk;
    *n = (int)nn;
    return 0;
}

int shard_take(const char *key, int k, int n)
{
    return input_hash(key) % (uint64_t)n == (uint64_t)(k - 1);
}

char *result_stem(const char *key)
{
    const char *base = strrchr(key, '/');
    base = base ? base + 1 : key;
    size_t blen = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        blen = (size_t)(dot - base);
    char *s = malloc(blen + 10);
    if (!s)
        return NULL;
    memcpy(s, base, blen);
    snprintf(s + blen, 10, "-%08" PRIx32, (uint32_t)(input_hash(key) >> 32));
    return s;
}
