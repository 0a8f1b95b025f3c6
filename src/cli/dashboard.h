/* SPDX-License-Identifier: BSD-2-Clause */
/* settle dashboard's writer: one self-contained HTML folder from a series set
 * whose first --by key picks the chart and the others the line. */
#ifndef SETTLE_CLI_DASHBOARD_H
#define SETTLE_CLI_DASHBOARD_H

#include <stddef.h>

#include "series.h"

/* Writes DIR/index.html (one SVG chart a value of set->by[0]: the median of
 * each point per line, the spread of its captures, the changes marked) and
 * DIR/night/S-P.html for each point (its captures with links to their video,
 * report, filmstrip, result and CSV, relative to the page, for the files that
 * exist). Creates DIR when missing; each file is written beside its final
 * name and renamed into place. Nothing refers to the network. Returns 0,
 * -1 with a one-line reason in err (a write failed), or -2 out of memory. */
int dashboard_write(const SeriesSet *set, const char *dir, const char *title, char *err,
                    size_t errlen);

#endif
