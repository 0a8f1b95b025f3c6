/* SPDX-License-Identifier: BSD-2-Clause */
/* Series to the dashboards teams run: InfluxDB (line protocol over HTTP)
 * and Graphite (plaintext protocol over TCP). One point a night and series:
 * the median, min, max and count of its captures. */
#ifndef SETTLE_CLI_EXPORT_H
#define SETTLE_CLI_EXPORT_H

#include <stdio.h>

#include "series.h"

/* The set in InfluxDB line protocol, precision seconds, one line a point:
 *   METRIC,KEY=VALUE,... median=M,min=A,max=B,count=Ni,along=X TIME
 * (METRIC the --metric name, tags the --by labels, `along` a field named as
 * the --along label when it is a number). Points without a time or a value
 * are left out; *n (may be NULL) gets the number of lines. */
int influx_lines(const SeriesSet *set, FILE *f, long *n);

/* POSTs the lines to an InfluxDB 1.x write URL,
 * http://HOST[:PORT]/write?db=NAME (path "/write?db=settle" when the URL has
 * none), adding precision=s. Returns 0, or -1 after writing a one-line reason
 * to err. */
int influx_post(const char *url, const char *body, size_t len, char *err, size_t errlen);

/* The set in Graphite's plaintext protocol, one line a value:
 *   PREFIX.VALUE1.VALUE2.METRIC.median M TIME
 * (the --by labels' values in order, then the metric, each part lower case
 * with characters other than letters, digits, '-' and '_' as '_'). */
int graphite_lines(const SeriesSet *set, const char *prefix, FILE *f, long *n);

/* Sends the lines to HOST:PORT over TCP. Returns 0 or -1 with err. */
int graphite_send(const char *hostport, const char *body, size_t len, char *err,
                  size_t errlen);

/* Whether --influx and --graphite (each may be NULL) are well formed, before
 * any work. Returns 0, or -1 with a one-line reason in err. */
int export_check(const char *influx, const char *graphite, char *err, size_t errlen);

#endif
