/* SPDX-License-Identifier: BSD-2-Clause */
/* What identifies a result: the input as it was read (size and mtime), and
 * what must match for a stored result to be current (settings, labels,
 * version). Written into the JSON and compared by --skip-existing. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "outputs.h"

int settle_json_add_input_id(const SettleIdentity *id, cJSON *o, const char *path)
{
    int known = id->in_known;
    int64_t size = id->in_size, sec = id->in_mtime_sec;
    long nsec = id->in_mtime_nsec;
    if (path) {
        struct stat st;
        known = stat(path, &st) == 0;
        size = st.st_size;
        sec = st.st_mtim.tv_sec;
        nsec = st.st_mtim.tv_nsec;
    }
    if (!known)
        return !cJSON_AddNullToObject(o, "input_size") || !cJSON_AddNullToObject(o, "input_mtime")
                   ? -1 : 0;
    /* seconds.nanoseconds as text: a double cannot hold it exactly */
    char mt[48];
    snprintf(mt, sizeof(mt), "%lld.%09ld", (long long)sec, nsec);
    return !cJSON_AddNumberToObject(o, "input_size", (double)size) ||
                   !cJSON_AddStringToObject(o, "input_mtime", mt)
               ? -1 : 0;
}

int settle_json_add_setup(const SettleSettings *s, const SettleIdentity *id, cJSON *o)
{
    cJSON *set = cJSON_AddObjectToObject(o, "settings");
    if (!set)
        return -1;
    for (const SettleOption *opt = settle_options(); opt->name; opt++) {
        char v[512];
        /* decoder threads change the speed, not the result: leaving them out
         * lets machines with different core counts write the same result */
        if (!strcmp(opt->name, "threads"))
            continue;
        /* written only when used, so that results without regions stay as
         * they were (and current for --skip-existing) */
        if (!strcmp(opt->name, "region") && !s->nregions)
            continue;
        /* likewise the scale, written only when not auto */
        if (!strcmp(opt->name, "scale") && !s->scale)
            continue;
        if (settle_settings_get(s, opt->name, v, sizeof(v)) >= 0 &&
            !cJSON_AddStringToObject(set, opt->name, v))
            return -1;
    }
    cJSON *lab = cJSON_AddObjectToObject(o, "labels");
    if (!lab)
        return -1;
    for (int i = 0; i < id->nlabels; i++)
        if (!cJSON_AddStringToObject(lab, id->labels[2 * i], id->labels[2 * i + 1]))
            return -1;
    return cJSON_AddStringToObject(o, "settle_version", SETTLE_VERSION) ? 0 : -1;
}
