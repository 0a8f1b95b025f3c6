/* SPDX-License-Identifier: BSD-2-Clause */
/* Names the results use for metrics and outcomes: a leaf under the writers
 * and the readers of results alike. */
#include "settle/settle.h"

static const char *const metric_names[SETTLE_NB_METRICS] = {
    "load_time", "first_visual_change", "last_visual_change", "speed_index",
};

const char *settle_metric_name(int i)
{
    return i >= 0 && i < SETTLE_NB_METRICS ? metric_names[i] : NULL;
}

const char *settle_status_name(int err)
{
    switch (err) {
    case 0: return "stable";
    case SETTLE_ERR_NOT_STABLE: return "not_stable";
    case SETTLE_ERR_NO_START: return "no_start";
    case SETTLE_ERR_DECODE: return "partial";
    case SETTLE_ERR_INTERRUPTED: return "interrupted";
    default: return "failed";
    }
}
