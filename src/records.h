/* SPDX-License-Identifier: BSD-2-Clause */
/* The per-frame records of one analysis, spooled to a temporary file while
 * the capture is read and read back by settle_foreach_frame for the writers
 * (CSV, JSON frames, plot). */
#ifndef SETTLE_RECORDS_H
#define SETTLE_RECORDS_H

#include <stdio.h>

#include "record.h"

typedef struct SettleRecords {
    FILE *f;
    int ok;        /* every record written so far is there */
} SettleRecords;

/* Opens an anonymous temporary file. Returns 0, or SETTLE_ERR_IO when there is
 * none (the records are then unavailable, the analysis goes on). */
int settle_records_open(SettleRecords *rs);

/* Appends one record. Returns 0 or SETTLE_ERR_IO (the records are then
 * incomplete: ok is 0). */
int settle_records_append(SettleRecords *rs, const SettleRecord *r);

/* Back to the first record. Returns 0 or SETTLE_ERR_IO (also when the
 * records are missing or incomplete). */
int settle_records_rewind(SettleRecords *rs);

/* The next record. Returns 0 or SETTLE_ERR_IO. */
int settle_records_next(SettleRecords *rs, SettleRecord *r);

void settle_records_close(SettleRecords *rs);

#endif
