/* SPDX-License-Identifier: BSD-2-Clause */
/* The decoder's picture buffers, mapped populated. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE beside _POSIX_C_SOURCE */
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <libavutil/buffer.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>

#include "decode_pool.h"
#include "settle/settle.h"

/* AddressSanitizer checks the bounds of malloc's blocks, not of a mapping:
 * libavcodec's own pool then */
#if defined(MAP_POPULATE) && !defined(__SANITIZE_ADDRESS__)
#define POOL_MAP 1
#endif

#ifdef POOL_MAP
/* Planes smaller than this come from libavcodec's allocator. Its buffers of
 * more than a few pages are zeroed by memset, page fault by page fault: a
 * 720p picture's planes (0.9 MB of luma) cost startup-test-elmo 3,100 of
 * its 5,900 page faults before they were mapped too. */
#define POOL_MAP_MIN ((size_t)1 << 16)
/* Every plane's rows start aligned to this, whatever the CPU's vectors. */
#define POOL_ALIGN 64
/* Bytes past a plane's last row, for the decoders' vector reads: the slack
 * libavcodec's own pool leaves (16 and a 64-byte vector less one), so that
 * the buffers' sizes are the same (the probe's budget counts them). */
#define POOL_TAIL (16 + 64 - 1)
/* Each mapping starts on a page, so every plane of every picture would start
 * at the same offset in the caches' sets, and with rows a power of two apart
 * (a 432-pixel-wide picture's are 512 bytes) a block of the picture and the
 * same block of its references compete for the same few sets: x264's grid
 * case 1 missed the first-level cache 1.7 times as often inside libavcodec
 * as in ffmpeg, whose malloc'd planes start at scattered offsets. Successive
 * buffers start POOL_COLOUR_STEP further into their first page, modulo
 * POOL_COLOURS steps. */
#define POOL_COLOUR_STEP 448
#define POOL_COLOURS 64

typedef struct Pool {
    pthread_mutex_t lock;     /* frame threads ask at once, whatever the documentation says */
    enum AVPixelFormat fmt;
    int w, h;                 /* the pictures' size the pools are for */
    int linesize[4];
    size_t size[4];           /* of each plane's buffers */
    AVBufferPool *plane[4];
    unsigned colour;          /* the next mapping's, 0 .. POOL_COLOURS - 1 */
} Pool;

/* opaque: the mapping's length; the buffer starts less than a page into it */
static void unmap(void *opaque, uint8_t *data)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    munmap((void *)((uintptr_t)data / page * page), (size_t)(uintptr_t)opaque);
}

/* av_buffer_pool_get calls it with the pool's lock held (Pool.lock too) */
static AVBufferRef *map_plane(void *opaque, size_t size)
{
    Pool *p = opaque;
    if (size < POOL_MAP_MIN)
        return av_buffer_allocz(size);
    size_t off = (size_t)p->colour * POOL_COLOUR_STEP % 4096, len = size + off;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    if (m == MAP_FAILED)
        return av_buffer_allocz(size);
    AVBufferRef *b = av_buffer_create((uint8_t *)m + off, size, unmap, (void *)(uintptr_t)len, 0);
    if (!b)
        munmap(m, len);
    else
        p->colour = (p->colour + 1) % POOL_COLOURS;
    return b;
}

static void pool_drop(Pool *p)
{
    for (int i = 0; i < 4; i++)
        av_buffer_pool_uninit(&p->plane[i]);
}

/* The planes' layout for pictures of w x h in fmt, their pools made anew. */
static int pool_setup(Pool *p, AVCodecContext *dec, enum AVPixelFormat fmt, int w, int h)
{
    pool_drop(p);
    int aw = w, ah = h, align[AV_NUM_DATA_POINTERS];
    avcodec_align_dimensions2(dec, &aw, &ah, align);
    /* the width widened until every plane's rows are aligned */
    for (;; aw += 16) {
        if (av_image_fill_linesizes(p->linesize, fmt, aw) < 0)
            return -1;
        int ok = 1;
        for (int i = 0; i < 4; i++)
            ok &= p->linesize[i] % POOL_ALIGN == 0 && (!align[i] || p->linesize[i] % align[i] == 0);
        if (ok)
            break;
        if (aw > INT32_MAX / 2)
            return -1;
    }
    ptrdiff_t ls[4];
    for (int i = 0; i < 4; i++)
        ls[i] = p->linesize[i];
    if (av_image_fill_plane_sizes(p->size, fmt, ah, ls) < 0)
        return -1;
    for (int i = 0; i < 4 && p->size[i]; i++) {
        p->size[i] += POOL_TAIL;
        if (!(p->plane[i] = av_buffer_pool_init2(p->size[i], p, map_plane, NULL)))
            return -1;
    }
    p->fmt = fmt;
    p->w = w;
    p->h = h;
    return 0;
}

/* get_buffer2: the frame threads call it at once (thread_safe_callbacks). */
static int get_buffer(AVCodecContext *dec, AVFrame *f, int flags)
{
    Pool *p = dec->opaque;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(f->format);
    if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL |
                                 AV_PIX_FMT_FLAG_BITSTREAM)) ||
        f->width <= 0 || f->height <= 0)
        return avcodec_default_get_buffer2(dec, f, flags);
    int ret = 0;
    pthread_mutex_lock(&p->lock);
    if ((!p->plane[0] || p->fmt != f->format || p->w != f->width || p->h != f->height) &&
        pool_setup(p, dec, f->format, f->width, f->height) < 0) {
        pool_drop(p);
        ret = 1;
    }
    for (int i = 0; !ret && i < 4 && p->plane[i]; i++) {
        if (!(f->buf[i] = av_buffer_pool_get(p->plane[i]))) {
            for (int j = 0; j < i; j++)
                av_buffer_unref(&f->buf[j]);
            ret = AVERROR(ENOMEM);
            break;
        }
        f->data[i] = f->buf[i]->data;
        f->linesize[i] = p->linesize[i];
    }
    pthread_mutex_unlock(&p->lock);
    if (ret == 1)
        return avcodec_default_get_buffer2(dec, f, flags);
    if (ret < 0)
        return ret;
    f->extended_data = f->data;
    return 0;
}
#endif

int settle_decode_pool_attach(AVCodecContext *dec)
{
#ifdef POOL_MAP
    if (!dec->codec || !(dec->codec->capabilities & AV_CODEC_CAP_DR1) ||
        dec->codec_type != AVMEDIA_TYPE_VIDEO)
        return 0;
    Pool *p = calloc(1, sizeof(*p));
    if (!p)
        return SETTLE_ERR_NOMEM;
    if (pthread_mutex_init(&p->lock, NULL)) {
        free(p);
        return SETTLE_ERR_NOMEM;
    }
    dec->opaque = p;
    dec->get_buffer2 = get_buffer;
#if defined(FF_API_THREAD_SAFE_CALLBACKS) && FF_API_THREAD_SAFE_CALLBACKS
    /* libavcodec 59 otherwise has every frame thread wait for the thread that
     * sends the packets to call it (and warns that this is not supported
     * anymore); from 60 on, always so */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    dec->thread_safe_callbacks = 1;
#pragma GCC diagnostic pop
#endif
#else
    (void)dec;
#endif
    return 0;
}

void settle_decode_pool_free(void **pool)
{
#ifdef POOL_MAP
    Pool *p = *pool;
    if (p) {
        pool_drop(p);
        pthread_mutex_destroy(&p->lock);
        free(p);
    }
#endif
    *pool = NULL;
}
