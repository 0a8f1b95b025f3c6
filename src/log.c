/* SPDX-License-Identifier: BSD-2-Clause */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

void settle_log(SettleContext *c, SettleLogLevel level, const char *fmt, ...)
{
    if (!c || !c->s.log_cb || level > c->s.log_level)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    c->s.log_cb(c->s.log_opaque, level, msg);
}

const char *settle_strerror(int err)
{
    switch (err) {
    case SETTLE_OK: return "success";
    case SETTLE_ERR_INVAL: return "invalid argument";
    case SETTLE_ERR_NOMEM: return "out of memory";
    case SETTLE_ERR_IO: return "cannot read or write the file";
    case SETTLE_ERR_FORMAT: return "not a video file that can be read";
    case SETTLE_ERR_NO_VIDEO: return "no video stream";
    case SETTLE_ERR_DECODE: return "truncated or corrupt video stream";
    case SETTLE_ERR_LIMIT: return "picture larger than the limits";
    case SETTLE_ERR_TOO_SHORT: return "fewer than two frames";
    case SETTLE_ERR_NO_START: return "start of the measurement not found";
    case SETTLE_ERR_NOT_STABLE: return "no stable frame";
    case SETTLE_ERR_STATE: return "function called out of order";
    case SETTLE_ERR_INTERRUPTED: return "interrupted";
    case SETTLE_ERR_CROP: return "crop rectangle outside the picture";
    default: return "unknown error";
    }
}
