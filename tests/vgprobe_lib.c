/* SPDX-License-Identifier: BSD-2-Clause */
/* A shared library whose initialiser, like Highway's in libhwy, runs an
 * instruction valgrind 3.19 does not emulate (an AVX-512 one) when asked to:
 * the case tests/valgrind_probe.sh must recognise. */
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void vgprobe_init(void)
{
    const char *mode = getenv("SETTLE_PROBE_MODE");
    if (!mode || strcmp(mode, "avx512"))
        return;
#if defined(__x86_64__)
    __asm__ volatile("vpxord %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
#endif
}

int vgprobe_lib_loaded(void)
{
    return 1;
}
