/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the option parser. The bytes are split at the first NUL
 * into an option name and a value (or, without a NUL, used as a value for
 * every option), set with settle_settings_set, checked, printed back with
 * settle_settings_get and parsed again. Built and run by scripts/fuzz.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "settle/settle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void roundtrip(SettleSettings *s, const char *name, const char *value)
{
    char err[64], buf[256], again[256];
    if (settle_settings_set(s, name, value, err, sizeof(err)) < 0) {
        if (!memchr(err, 0, sizeof(err)))
            __builtin_trap();
        return;
    }
    settle_settings_check(s, err, sizeof(err));
    int n = settle_settings_get(s, name, buf, sizeof(buf));
    if (n < 0 || (size_t)n >= sizeof(buf))
        return;
    /* what get prints, set must take back and print the same way (--ignore
     * adds to its list, so the list is emptied first) */
    SettleSettings t = *s;
    if (!strcmp(name, "ignore"))
        t.nignore = 0;
    if (settle_settings_set(&t, name, buf, err, sizeof(err)) < 0)
        __builtin_trap();
    n = settle_settings_get(&t, name, again, sizeof(again));
    if (n < 0 || strcmp(buf, again))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    SettleSettings s;
    settle_default_settings(&s);
    if (memchr(data, 0, size)) {
        const char *value = text + strlen(text) + 1;
        roundtrip(&s, text, value);
    } else {
        for (const SettleOption *o = settle_options(); o->name; o++)
            roundtrip(&s, o->name, text);
    }
    /* a context opened with whatever the parser accepted must work */
    SettleContext *c = NULL;
    if (settle_settings_check(&s, NULL, 0) == 0) {
        if (settle_open(&c, &s) < 0)
            __builtin_trap();
        settle_close(&c);
    }
    free(text);
    return 0;
}
