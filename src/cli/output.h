/* SPDX-License-Identifier: BSD-2-Clause */
/* Where the program's bytes go: stdout, or a file written under a temporary
 * name and renamed into place only when complete. */
#ifndef SETTLE_CLI_OUTPUT_H
#define SETTLE_CLI_OUTPUT_H

#include <stdio.h>

typedef struct OutFile {
    FILE *f;
    char *path;     /* final name, NULL for stdout */
    char *tmp;      /* temporary name beside it */
} OutFile;

/* Opens `path` ("-" = stdout). Returns 0 or -1 with errno set. */
int out_open(OutFile *o, const char *path);
/* Flushes, closes and renames into place. Returns 0 or -1 with errno set. */
int out_commit(OutFile *o);
/* Closes and removes the temporary file. */
void out_abort(OutFile *o);

#endif
