/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* sync_file_range beside _POSIX_C_SOURCE */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "output.h"

/* /dev/fd/N and its spellings: the descriptor N, or -1. */
static int fd_path(const char *path)
{
    static const char *const prefix[] = { "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/" };
    if (!strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    for (size_t i = 0; i < sizeof(prefix) / sizeof(*prefix); i++) {
        size_t n = strlen(prefix[i]);
        if (strncmp(path, prefix[i], n) || !path[n])
            continue;
        char *end;
        errno = 0;
        long fd = strtol(path + n, &end, 10);
        if (*end || errno || fd < 0 || fd > INT_MAX)
            return -1;
        return (int)fd;
    }
    return -1;
}

/* The path a chain of symbolic links ends at (which may not exist yet). */
static char *follow_links(const char *path)
{
    char *p = strdup(path);
    for (int hops = 0; p && hops < 40; hops++) {
        struct stat st;
        if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
            return p;
        char link[PATH_MAX];
        ssize_t n = readlink(p, link, sizeof(link) - 1);
        if (n < 0) {
            free(p);
            return NULL;
        }
        link[n] = 0;
        const char *slash = strrchr(p, '/');
        size_t dlen = link[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;
        char *next = malloc(dlen + (size_t)n + 1);
        if (next) {
            memcpy(next, p, dlen);
            memcpy(next + dlen, link, (size_t)n + 1);
        }
        free(p);
        p = next;
    }
    if (p) {
        free(p);
        errno = ELOOP;
    }
    return NULL;
}

static void release(OutFile *o)
{
    if (o->f)
        fclose(o->f);
    if (o->close_fd && o->fd >= 0)
        close(o->fd);
    if (o->tmp)
        unlink(o->tmp);
    free(o->buf);
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof(*o));
    o->fd = -1;
}

/* A regular file or a new one: a temporary file beside the file it names. */
static int open_replace(OutFile *o, const char *path)
{
    o->target = follow_links(path);
    if (!o->target)
        return -1;
    struct stat st;
    int exists = stat(o->target, &st) == 0;
    if (!exists && errno != ENOENT)
        return -1;
    size_t n = strlen(o->target) + 16;
    if (!(o->tmp = malloc(n)))
        return -1;
    snprintf(o->tmp, n, "%s.tmp.XXXXXX", o->target);
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    o->close_fd = 1;
    fcntl(o->fd, F_SETFD, FD_CLOEXEC); /* gnuplot runs meanwhile */
    if (exists) {
        /* the replacement keeps the file's owner and mode */
        if (fchown(o->fd, st.st_uid, st.st_gid) < 0) {
            /* not ours to give away: the file becomes the writer's */
        }
        fchmod(o->fd, st.st_mode & 07777);
    } else {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(o->fd, 0666 & ~mask); /* mkstemp makes 0600; results are ordinary files */
    }
    return 0;
}

/* A connected descriptor to the Unix socket at path (a stream socket, or a
 * datagram one when that is what listens), or -1 with errno. */
static int connect_socket(const char *path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(a.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    const int types[] = { SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM };
    for (int i = 0; i < 3; i++) {
        int fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        if (connect(fd, (const struct sockaddr *)&a, sizeof(a)) == 0)
            return fd;
        int e = errno;
        close(fd);
        errno = e;
        if (e != EPROTOTYPE)
            return -1;
    }
    return -1;
}

int out_open(OutFile *o, const char *path)
{
    memset(o, 0, sizeof(*o));
    o->fd = -1;
    int e;
    if (!(o->f = open_memstream(&o->buf, &o->len)))
        goto fail;
    int n = strcmp(path, "-") ? fd_path(path) : 1;
    struct stat st;
    if (n >= 0) {
        if (n == 1 && !strcmp(path, "-")) {
            o->fd = 1;
        } else if ((o->fd = fcntl(n, F_DUPFD_CLOEXEC, 3)) < 0) {
            goto fail;
        } else {
            o->close_fd = 1;
        }
    } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        goto fail;
    } else if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        /* a Unix socket: in place, to whoever listens on it */
        if ((o->fd = connect_socket(path)) < 0)
            goto fail;
        o->close_fd = 1;
    } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device, a FIFO (waits for its reader): in place */
        if ((o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0)
            goto fail;
        o->close_fd = 1;
    } else if (open_replace(o, path) < 0) {
        goto fail;
    }
    return 0;
fail:
    e = errno;
    release(o);
    errno = e;
    return -1;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int out_flush(OutFile *o)
{
    if (!o->f)
        return 0;
    if (fflush(o->f) || ferror(o->f)) {
        errno = ENOMEM; /* a memory stream fails only for memory */
        return -1;
    }
    out_flush_stdout(); /* what the program printed before comes first */
    if (write_all(o->fd, o->buf + o->sent, o->len - o->sent) < 0)
        return -1;
    o->sent = o->len;
    return 0;
}

int out_commit(OutFile *o)
{
    if (!o->f)
        return 0;
    int ret = out_flush(o);
    int e = errno;
    if (o->close_fd) {
        if (!ret && o->tmp && fsync(o->fd) < 0 && errno != EINVAL && errno != EROFS)
            ret = -1, e = errno;
        int c = close(o->fd);
        if (!ret && c < 0)
            ret = -1, e = errno;
        o->close_fd = 0;
    }
    if (!ret && o->tmp) {
        if (rename(o->tmp, o->target) < 0) {
            ret = -1;
            e = errno;
        } else {
            free(o->tmp);
            o->tmp = NULL;
        }
    }
    release(o);
    errno = e;
    return ret;
}

void out_abort(OutFile *o)
{
    int e = errno;
    release(o);
    errno = e;
}

int out_start(OutFile *o)
{
    if (out_flush(o) < 0)
        return -1;
#ifdef SYNC_FILE_RANGE_WRITE
    /* the disk starts on the bytes now; out_commit's fsync waits for less */
    if (o->tmp)
        sync_file_range(o->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    return 0;
}

int out_write_start(OutFile *o, const char *path, const void *data, size_t len)
{
    if (out_open(o, path) < 0)
        return -1;
    if (len && fwrite(data, 1, len, o->f) != len) {
        out_abort(o);
        errno = ENOMEM;
        return -1;
    }
    if (out_start(o) < 0) {
        out_abort(o);
        return -1;
    }
    return 0;
}

int out_write_file(const char *path, const void *data, size_t len)
{
    OutFile o;
    if (out_write_start(&o, path, data, len) < 0)
        return -1;
    return out_commit(&o);
}

/* The first reason stdout failed: stdio's later calls may overwrite errno. */
static int stdout_errno;

int out_flush_stdout(void)
{
    errno = 0;
    if (!fflush(stdout) && !ferror(stdout))
        return 0;
    if (!stdout_errno)
        stdout_errno = errno ? errno : EIO;
    return -1;
}

int out_stdout_error(void)
{
    out_flush_stdout();
    return stdout_errno;
}

int out_mkdirs(const char *dir)
{
    char *p = strdup(dir);
    if (!p)
        return -1;
    for (char *q = p + 1;; q++) {
        if (*q == '/' || !*q) {
            char c = *q;
            *q = 0;
            if (mkdir(p, 0777) < 0 && errno != EEXIST) {
                int e = errno;
                free(p);
                errno = e;
                return -1;
            }
            *q = c;
            if (!c)
                break;
        }
    }
    free(p);
    struct stat st;
    if (stat(dir, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int out_prepare(const char *path)
{
    if (!strcmp(path, "-") || fd_path(path) >= 0)
        return 0;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return -1;
        }
        return 0;
    }
    char *target = follow_links(path);
    if (!target)
        return -1;
    char *slash = strrchr(target, '/');
    int ret = 0;
    if (slash && slash != target) {
        *slash = 0;
        ret = out_mkdirs(target);
    }
    int e = errno;
    free(target);
    errno = e;
    return ret;
}

int out_guard_add(OutGuard *g, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return 0;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        dev_t *d = realloc(g->dev, cap * sizeof(*d));
        if (d)
            g->dev = d;
        ino_t *i = d ? realloc(g->ino, cap * sizeof(*i)) : NULL;
        if (!i)
            return -1;
        g->ino = i;
        g->cap = cap;
    }
    g->dev[g->n] = st.st_dev;
    g->ino[g->n++] = st.st_ino;
    return 0;
}

int out_guard_hit(const OutGuard *g, const char *path)
{
    struct stat st;
    if (!strcmp(path, "-") || stat(path, &st) < 0)
        return 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->dev[i] == st.st_dev && g->ino[i] == st.st_ino)
            return 1;
    return 0;
}

void out_guard_free(OutGuard *g)
{
    free(g->dev);
    free(g->ino);
    memset(g, 0, sizeof(*g));
}

int out_is_video(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char h[12];
    size_t n = fread(h, 1, sizeof(h), f);
    fclose(f);
    if (n < sizeof(h))
        return 0;
    return !memcmp(h + 4, "ftyp", 4) ||                           /* MP4, MOV, 3GP */
           !memcmp(h, "\x1a\x45\xdf\xa3", 4) ||                    /* Matroska, WebM */
           (!memcmp(h, "RIFF", 4) && !memcmp(h + 8, "AVI ", 4)) || /* AVI */
           !memcmp(h, "FLV\x01", 4) || !memcmp(h, "OggS", 4) ||
           !memcmp(h, "YUV4MPEG2", 9) ||
           !memcmp(h, "\x30\x26\xb2\x75", 4) ||                    /* ASF, WMV */
           (h[0] == 0x47 && st.st_size >= 189 && st.st_size % 188 == 0) || /* MPEG-TS */
           !memcmp(h, "\x00\x00\x01\xba", 4);                      /* MPEG-PS */
}

int out_png_bytes(const SettleImage *img, uint8_t **buf, size_t *len)
{
    int r = settle_encode_png(img, buf, len);
    if (r < 0)
        errno = r == SETTLE_ERR_NOMEM ? ENOMEM : EINVAL;
    return r < 0 ? -1 : 0;
}
