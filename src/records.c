/* SPDX-License-Identifier: BSD-2-Clause */
#include "settle/settle.h"
#include "records.h"

int settle_records_open(SettleRecords *rs)
{
    rs->f = tmpfile();
    rs->ok = rs->f != NULL;
    return rs->f ? 0 : SETTLE_ERR_IO;
}

int settle_records_append(SettleRecords *rs, const SettleRecord *r)
{
    if (!rs->f)
        return 0;
    if (fwrite(r, sizeof(*r), 1, rs->f) != 1) {
        rs->ok = 0;
        return SETTLE_ERR_IO;
    }
    return 0;
}

int settle_records_rewind(SettleRecords *rs)
{
    if (!rs->f || !rs->ok)
        return SETTLE_ERR_IO;
    if (fflush(rs->f) || fseek(rs->f, 0, SEEK_SET))
        return SETTLE_ERR_IO;
    return 0;
}

int settle_records_next(SettleRecords *rs, SettleRecord *r)
{
    return fread(r, sizeof(*r), 1, rs->f) == 1 ? 0 : SETTLE_ERR_IO;
}

void settle_records_close(SettleRecords *rs)
{
    if (rs->f)
        fclose(rs->f);
    rs->f = NULL;
    rs->ok = 0;
}
