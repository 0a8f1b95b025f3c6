/* SPDX-License-Identifier: BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "settle/settle.h"
#include "scratch.h"

#define MAX_FILES 128
static char *created[MAX_FILES];
static int ncreated;
static char dir[80];

int scratch_enter(const char *prefix)
{
    snprintf(dir, sizeof(dir), "%.60s-XXXXXX", prefix);
    if (!mkdtemp(dir) || chdir(dir) < 0)
        return -1;
    settle_codec_log_level(SETTLE_LOG_ERROR);
    return 0;
}

int scratch_leave(void)
{
    for (int i = 0; i < ncreated; i++) {
        remove(created[i]);
        free(created[i]);
    }
    ncreated = 0;
    if (chdir("..") < 0)
        return -1;
    return rmdir(dir) < 0 ? -1 : 0;
}

const char *track(const char *path)
{
    for (int i = 0; i < ncreated; i++)
        if (!strcmp(created[i], path))
            return path;
    assert_true(ncreated < MAX_FILES);
    created[ncreated] = strdup(path);
    assert_non_null(created[ncreated]);
    ncreated++;
    return path;
}
