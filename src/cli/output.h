/* SPDX-License-Identifier: BSD-2-Clause */
/* Where the program's bytes go: every file settle writes passes through here.
 *
 * By kind of path:
 *   a regular file, or a path that does not exist yet
 *                  written to PATH.tmp.XXXXXX beside it (beside the file a
 *                  symbolic link names, for a link) and renamed into place
 *                  only when complete; the link itself is never replaced
 *   "-"            stdout
 *   /dev/fd/N, /dev/stdout, /dev/stderr, /proc/self/fd/N
 *                  that descriptor, written in place
 *   a character or block device, a FIFO, a socket, a terminal (also through
 *   a symbolic link)
 *                  opened and written in place, never replaced
 *   a directory    refused (EISDIR)
 * Every write and the close are checked; on failure the temporary file is
 * removed and errno says why. Writers put their bytes into `f` (memory);
 * out_flush and out_commit pass them on. */
#ifndef SETTLE_CLI_OUTPUT_H
#define SETTLE_CLI_OUTPUT_H

#include <stdio.h>
#include <sys/types.h>
#include <stdint.h>

#include "settle/pictures.h"

typedef struct OutFile {
    FILE *f;        /* where writers put the bytes */
    char *buf;      /* f's memory */
    size_t len, sent;
    int fd;         /* the temporary file, the file written in place, or 1 */
    int close_fd;   /* fd is ours to close */
    char *target;   /* the file replaced (links followed); NULL when in place */
    char *tmp;      /* temporary name beside target */
} OutFile;

/* Opens `path` ("-" = stdout). Returns 0 or -1 with errno set; nothing is
 * left behind on failure. */
int out_open(OutFile *o, const char *path);
/* Writes what `f` holds so far (a FIFO's reader sees it now). 0 or -1, errno. */
int out_flush(OutFile *o);
/* Writes the rest, closes and renames into place. Returns 0 or -1 with errno
 * set; on failure the temporary file is removed. Always releases `o`. */
int out_commit(OutFile *o);
/* Closes and removes the temporary file; a file written in place keeps what
 * was written. */
void out_abort(OutFile *o);
/* out_open and the bytes written: a regular file is complete under its
 * temporary name and its writeback started, not yet synced nor renamed;
 * out_commit (or out_abort) must follow. 0 or -1 with errno set; on failure
 * nothing is left behind and `o` is released. */
int out_write_start(OutFile *o, const char *path, const void *data, size_t len);
/* Writes what `f` holds so far (out_flush) and starts the writeback of a
 * regular file's temporary file, so that out_commit's fsync waits for less
 * and files started one after the other share a commit of the journal. 0 or
 * -1 with errno set; `o` stays open either way (out_commit or out_abort
 * must follow). */
int out_start(OutFile *o);
/* out_write_start, then out_commit. */
int out_write_file(const char *path, const void *data, size_t len);

/* fflush(stdout), keeping the first failure's errno: -1 when it failed. */
int out_flush_stdout(void);
/* Flushes stdout; 0 when every write to it succeeded, else the first
 * failure's errno (ENOSPC, EPIPE...). */
int out_stdout_error(void);

/* Before anything is written: makes the folders the file `path` goes into
 * (after following symbolic links) and refuses a directory. 0 or -1, errno. */
int out_prepare(const char *path);
/* Makes `dir` and its parents. 0 or -1 with errno set. */
int out_mkdirs(const char *dir);

/* The files an output must never overwrite: the inputs, by device and inode. */
typedef struct OutGuard {
    dev_t *dev;
    ino_t *ino;
    size_t n, cap;
} OutGuard;
/* Adds the file `path` names (links followed), if it exists. -1 when out of memory. */
int out_guard_add(OutGuard *g, const char *path);
/* 1 when `path` (links followed) is one of the guarded files. */
int out_guard_hit(const OutGuard *g, const char *path);
void out_guard_free(OutGuard *g);

/* 1 when `path` is an existing regular file whose first bytes are those of a
 * video container (MP4/MOV, Matroska/WebM, AVI, FLV, Ogg, Y4M, ASF, MPEG):
 * a capture that a forgotten file name would destroy. */
int out_is_video(const char *path);

/* img as PNG bytes in memory (owned by the caller, free()), for a page that
 * embeds its pictures. Returns 0, or -1 out of memory. */
int out_png_bytes(const SettleImage *img, uint8_t **buf, size_t *len);

#endif
