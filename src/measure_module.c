/* SPDX-License-Identifier: BSD-2-Clause */
/* A measure module's options, filled from the settings by their typed table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure_module.h"

static int out_of_range(const SettleModuleOption *o, double v, char *err, size_t errlen)
{
    if (!(v >= o->min && v <= o->max)) {
        if (err && errlen)
            snprintf(err, errlen, "%s: %g is outside %g..%g", o->name, v, o->min, o->max);
        return 1;
    }
    return 0;
}

int settle_module_options_fill(const SettleModuleOption *t, void *opts, const SettleSettings *s,
                               char *err, size_t errlen)
{
    for (; t && t->name; t++) {
        uint8_t *dst = (uint8_t *)opts + t->offset;
        const uint8_t *src = t->setting != SETTLE_MOPT_NO_SETTING && s
                                 ? (const uint8_t *)s + t->setting : NULL;
        if (t->type == SETTLE_MOPT_COLOR) {
            uint8_t rgb[3] = { 0, 0, 0 };
            if (src)
                memcpy(rgb, src, 3);
            else if (t->def >= 0) {
                uint32_t d = (uint32_t)t->def;
                rgb[0] = (uint8_t)(d >> 16), rgb[1] = (uint8_t)(d >> 8), rgb[2] = (uint8_t)d;
            }
            memcpy(dst, rgb, 3);
            continue;
        }
        double v = t->def;
        if (src && t->type == SETTLE_MOPT_DOUBLE)
            memcpy(&v, src, sizeof(v));
        else if (src) {
            int i;
            memcpy(&i, src, sizeof(i));
            v = i;
        }
        if (out_of_range(t, v, err, errlen))
            return SETTLE_ERR_INVAL;
        if (t->type == SETTLE_MOPT_DOUBLE) {
            memcpy(dst, &v, sizeof(v));
        } else {
            int i = (int)v;
            if (t->type == SETTLE_MOPT_BOOL)
                i = i != 0;
            memcpy(dst, &i, sizeof(i));
        }
    }
    return 0;
}
