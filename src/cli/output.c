/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

int out_open(OutFile *o, const char *path)
{
    memset(o, 0, sizeof(*o));
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return 0;
    }
    size_t n = strlen(path);
    o->path = strdup(path);
    o->tmp = malloc(n + 16);
    if (!o->path || !o->tmp)
        goto fail;
    snprintf(o->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0)
        goto fail;
    /* mkstemp makes 0600; results are ordinary files */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        errno = e;
        goto fail;
    }
    return 0;
fail:;
    int e = errno;
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof(*o));
    errno = e;
    return -1;
}

int out_commit(OutFile *o)
{
    int ret = 0;
    if (!o->f)
        return 0;
    if (o->f == stdout) {
        ret = fflush(stdout) ? -1 : 0;
        o->f = NULL;
        return ret;
    }
    int bad = ferror(o->f);
    if (fclose(o->f) || bad) {
        if (!errno)
            errno = EIO;
        ret = -1;
    }
    o->f = NULL;
    if (!ret && rename(o->tmp, o->path))
        ret = -1;
    if (ret) {
        int e = errno;
        unlink(o->tmp);
        errno = e;
    }
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    return ret;
}

void out_abort(OutFile *o)
{
    if (o->f && o->f != stdout) {
        fclose(o->f);
        unlink(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof(*o));
}
