/* SPDX-License-Identifier: BSD-2-Clause */
/* Which instruction sets the kernels may use: the CPU's, limited by SETTLE_CPU. */
#include <stdlib.h>
#include <string.h>

#if SETTLE_X86
#include <cpuid.h>
#endif

#include "kernels.h"

#if SETTLE_X86
/* CLFLUSHOPT: CPUID leaf 7, EBX bit 23. Asked of the CPU directly, since
 * clang's __builtin_cpu_supports knows no "clflushopt". */
static int has_clflushopt(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 23) & 1;
}
#endif

unsigned settle_cpu_flags(void)
{
    unsigned flags = 0;
#if SETTLE_X86
    __builtin_cpu_init();
    flags |= SETTLE_CPU_SSE2; /* every x86-64 CPU has it */
    if (has_clflushopt())
        flags |= SETTLE_CPU_CLFLUSHOPT;
    if (__builtin_cpu_supports("ssse3"))
        flags |= SETTLE_CPU_SSSE3;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
        flags |= SETTLE_CPU_AVX2;
#if SETTLE_AVX512
    if ((flags & SETTLE_CPU_AVX2) && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw"))
        flags |= SETTLE_CPU_AVX512;
#endif
#endif
    const char *env = getenv("SETTLE_CPU");
    if (env && !strcmp(env, "scalar"))
        flags = 0;
    else if (env && !strcmp(env, "sse2"))
        flags &= SETTLE_CPU_SSE2 | SETTLE_CPU_CLFLUSHOPT;
    else if (env && !strcmp(env, "ssse3"))
        flags &= SETTLE_CPU_SSE2 | SETTLE_CPU_SSSE3 | SETTLE_CPU_CLFLUSHOPT;
    else if (env && !strcmp(env, "avx2"))
        flags &= SETTLE_CPU_SSE2 | SETTLE_CPU_SSSE3 | SETTLE_CPU_AVX2 | SETTLE_CPU_CLFLUSHOPT;
    return flags;
}
