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
#include "e2e_common.h"

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
    /* SETTLE_TEST_KEEP=1: the files stay, to look at after a failure */
    const char *keep = getenv("SETTLE_TEST_KEEP");
    if (keep && *keep && strcmp(keep, "0")) {
        fprintf(stderr, "kept %s\n", dir);
        for (int i = 0; i < ncreated; i++)
            free(created[i]);
        ncreated = 0;
        return chdir("..") < 0 ? -1 : 0;
    }
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

SettleContext *open_with(const char *const *opts)
{
    SettleSettings s;
    char err[256] = "";
    settle_default_settings(&s);
    for (; opts && opts[0]; opts += 2) {
        int ret = settle_settings_set(&s, opts[0], opts[1], err, sizeof(err));
        if (ret < 0)
            print_error("--%s %s: %s\n", opts[0], opts[1], err);
        assert_int_equal(ret, 0);
    }
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, &s), 0);
    assert_non_null(c);
    return c;
}
