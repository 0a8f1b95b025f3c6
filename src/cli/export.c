/* SPDX-License-Identifier: BSD-2-Clause */
/* InfluxDB line protocol over HTTP/1.1 and Graphite plaintext over TCP. */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "export.h"

/* Escapes what line protocol reserves in a tag key or value (',', '=', ' '). */
static void influx_escaped(FILE *f, const char *s, const char *special)
{
    for (; *s; s++) {
        if (strchr(special, *s))
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

int influx_lines(const SeriesSet *set, FILE *f, long *n)
{
    long lines = 0;
    for (size_t i = 0; i < set->n; i++) {
        const Series *s = &set->s[i];
        for (size_t j = 0; j < s->np; j++) {
            const Point *p = &s->p[j];
            double t = point_time(set, p);
            if (!p->nx || !isfinite(t))
                continue;
            influx_escaped(f, set->metric, ", ");
            for (int k = 0; k < set->nby; k++) {
                if (!s->values[k] || !*s->values[k])
                    continue; /* InfluxDB has no empty tag values */
                fputc(',', f);
                influx_escaped(f, set->by[k], ",= ");
                fputc('=', f);
                influx_escaped(f, s->values[k], ",= ");
            }
            if (s->region) { /* a --region area's series: tagged with its name */
                fputs(",region=", f);
                influx_escaped(f, s->region, ",= ");
            }
            fprintf(f, " median=%.6f,min=%.6f,max=%.6f,count=%zui", p->sum.median, p->sum.min,
                    p->sum.max, p->nx);
            if (set->numeric) {
                fputc(',', f);
                influx_escaped(f, set->along, ",= ");
                fprintf(f, "=%.17g", p->num);
            }
            fprintf(f, " %.0f\n", floor(t));
            lines++;
        }
    }
    if (n)
        *n = lines;
    return ferror(f) ? -1 : 0;
}

static void graphite_part(FILE *f, const char *s)
{
    if (!*s)
        fputc('_', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        fputc(c >= 'A' && c <= 'Z' ? c + 32 : ok ? c : '_', f);
    }
}

int graphite_lines(const SeriesSet *set, const char *prefix, FILE *f, long *n)
{
    static const char *const stat[] = { "median", "min", "max", "count" };
    long lines = 0;
    for (size_t i = 0; i < set->n; i++) {
        const Series *s = &set->s[i];
        for (size_t j = 0; j < s->np; j++) {
            const Point *p = &s->p[j];
            double t = point_time(set, p);
            if (!p->nx || !isfinite(t))
                continue;
            const double v[4] = { p->sum.median, p->sum.min, p->sum.max, (double)p->nx };
            for (int m = 0; m < 4; m++) {
                fputs(prefix, f);
                for (int k = 0; k < set->nby; k++) {
                    fputc('.', f);
                    graphite_part(f, s->values[k] ? s->values[k] : "");
                }
                if (s->region) { /* a --region area's series: PREFIX.LABELS.region.NAME.METRIC */
                    fputs(".region.", f);
                    graphite_part(f, s->region);
                }
                fputc('.', f);
                graphite_part(f, set->metric);
                fprintf(f, ".%s %.6f %.0f\n", stat[m], v[m], floor(t));
                lines++;
            }
        }
    }
    if (n)
        *n = lines;
    return ferror(f) ? -1 : 0;
}

static int connect_to(const char *host, const char *port, char *err, size_t errlen)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *a;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc) {
        snprintf(err, errlen, "%s:%s: %s", host, port, gai_strerror(rc));
        return -1;
    }
    int fd = -1, e = 0;
    for (a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0)
            continue;
        struct timeval tv = { 10, 0 };
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        snprintf(err, errlen, "%s:%s: cannot connect: %s", host, port, strerror(e));
    return fd;
}

static int send_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w, len -= (size_t)w;
    }
    return 0;
}

/* HOST:PORT or [V6]:PORT into host and port. */
static int split_hostport(const char *s, char *host, size_t hl, char *port, size_t pl)
{
    const char *colon = s[0] == '[' ? strstr(s, "]:") : strrchr(s, ':');
    if (!colon)
        return -1;
    const char *h = s + (s[0] == '[');
    size_t n = (size_t)(colon - h);
    const char *pp = colon + (s[0] == '[' ? 2 : 1);
    if (!n || n >= hl || !*pp || strlen(pp) >= pl || strspn(pp, "0123456789") != strlen(pp))
        return -1;
    memcpy(host, h, n);
    host[n] = 0;
    strcpy(port, pp);
    return 0;
}

int graphite_send(const char *hostport, const char *body, size_t len, char *err,
                  size_t errlen)
{
    char host[256], port[16];
    if (split_hostport(hostport, host, sizeof(host), port, sizeof(port)) < 0) {
        snprintf(err, errlen, "--graphite: expected HOST:PORT, got '%s'", hostport);
        return -1;
    }
    int fd = connect_to(host, port, err, errlen);
    if (fd < 0)
        return -1;
    int ret = send_all(fd, body, len);
    if (ret < 0)
        snprintf(err, errlen, "%s: cannot send: %s", hostport, strerror(errno));
    shutdown(fd, SHUT_WR);
    char buf[256];
    while (ret == 0 && recv(fd, buf, sizeof(buf), 0) > 0)
        ; /* carbon says nothing; wait for its close so that it has read everything */
    close(fd);
    return ret;
}

/* http://HOST[:PORT][/PATH] into its parts; the path keeps its query. */
static int parse_url(const char *url, char *host, size_t hl, char *port, size_t pl, char *path,
                     size_t ptl)
{
    if (strncmp(url, "http://", 7))
        return -1;
    const char *h = url + 7, *slash = strchr(h, '/');
    size_t n = slash ? (size_t)(slash - h) : strlen(h);
    char hp[300];
    if (!n || n >= sizeof(hp))
        return -1;
    memcpy(hp, h, n);
    hp[n] = 0;
    if (split_hostport(hp, host, hl, port, pl) < 0) {
        if (strchr(hp, ':') || n >= hl)
            return -1;
        strcpy(host, hp);
        snprintf(port, pl, "8086");
    }
    const char *p = slash && slash[1] ? slash : "/write?db=settle";
    if (strlen(p) + 20 >= ptl)
        return -1;
    snprintf(path, ptl, "%s%sprecision=s", p, strchr(p, '?') ? "&" : "?");
    return 0;
}

int influx_post(const char *url, const char *body, size_t len, char *err, size_t errlen)
{
    char host[256], port[16], path[2048];
    if (parse_url(url, host, sizeof(host), port, sizeof(port), path, sizeof(path)) < 0) {
        snprintf(err, errlen, "--influx: expected http://HOST[:PORT][/write?db=NAME], got '%s'",
                 url);
        return -1;
    }
    int fd = connect_to(host, port, err, errlen);
    if (fd < 0)
        return -1;
    char head[2600];
    int hn = snprintf(head, sizeof(head),
                      "POST %s HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: settle\r\n"
                      "Content-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
                      "Connection: close\r\n\r\n", path, host, port, len);
    char resp[1024];
    size_t got = 0;
    int ret = -1;
    if (send_all(fd, head, (size_t)hn) < 0 || send_all(fd, body, len) < 0) {
        snprintf(err, errlen, "%s: cannot send: %s", url, strerror(errno));
        goto end;
    }
    ssize_t r;
    while (got + 1 < sizeof(resp) && (r = recv(fd, resp + got, sizeof(resp) - 1 - got, 0)) > 0)
        got += (size_t)r;
    resp[got] = 0;
    int status = 0;
    if (sscanf(resp, "HTTP/1.%*d %d", &status) != 1) {
        snprintf(err, errlen, "%s: no HTTP answer", url);
        goto end;
    }
    if (status / 100 != 2) {
        const char *b = strstr(resp, "\r\n\r\n");
        snprintf(err, errlen, "%s: HTTP %d%s%.200s", url, status, b ? ": " : "", b ? b + 4 : "");
        for (char *c = err; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        goto end;
    }
    ret = 0;
end:
    close(fd);
    return ret;
}

int export_check(const char *influx, const char *graphite, char *err, size_t errlen)
{
    char host[256], port[16], path[2048];
    if (influx &&
        parse_url(influx, host, sizeof(host), port, sizeof(port), path, sizeof(path)) < 0) {
        snprintf(err, errlen, "--influx: expected http://HOST[:PORT][/write?db=NAME], got '%s'",
                 influx);
        return -1;
    }
    if (graphite && split_hostport(graphite, host, sizeof(host), port, sizeof(port)) < 0) {
        snprintf(err, errlen, "--graphite: expected HOST:PORT, got '%s'", graphite);
        return -1;
    }
    return 0;
}
