/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the bytes are a capture, read from memory through
 * settle_analyze_io (libavformat's custom I/O), decoded and analysed, then
 * written as CSV and JSON. Built and run by scripts/fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "settle/settle.h"

typedef struct Mem {
    const uint8_t *data;
    size_t size, pos;
} Mem;

static int mem_read(void *opaque, uint8_t *buf, int size)
{
    Mem *m = opaque;
    size_t left = m->size - m->pos;
    size_t n = left < (size_t)size ? left : (size_t)size;
    memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    return (int)n;
}

static int64_t mem_seek(void *opaque, int64_t offset, int whence)
{
    Mem *m = opaque;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)m->pos : (int64_t)m->size;
    if (offset > INT64_MAX - base || base + offset < 0 || base + offset > (int64_t)m->size)
        return -1;
    m->pos = (size_t)(base + offset);
    return (int64_t)m->pos;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet) {
        settle_codec_log_level(-1);
        quiet = 1;
    }
    SettleSettings s;
    settle_default_settings(&s);
    s.threads = 1;
    /* small pictures keep each run fast (a 480x270 capture of 135 frames
     * takes seconds under the sanitizers); the limit itself is under test too */
    s.max_pixels = 1 << 16;
    SettleContext *c = NULL;
    if (settle_open(&c, &s) < 0)
        return 0;
    Mem m = { .data = data, .size = size };
    const SettleResult *r = NULL;
    int ret = settle_analyze_io(c, "fuzz", mem_read, mem_seek, &m, &r);
    if (!r || !r->input || (ret < 0 && !r->error_message) ||
        (r->stable_frame >= 0 && r->stable_frame >= r->frames))
        __builtin_trap();
    FILE *sink = fopen("/dev/null", "w");
    if (sink) {
        settle_write_json(c, sink);
        settle_write_csv(c, sink);
        fclose(sink);
    }
    settle_close(&c);
    return 0;
}
