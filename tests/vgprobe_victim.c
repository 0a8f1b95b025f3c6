/* SPDX-License-Identifier: BSD-2-Clause */
/* The program tests/test_valgrind_probe.sh hands to the probe in place of
 * settle. SETTLE_PROBE_MODE chooses what `--version` does: ok, invalid (reads
 * past a block: a memory error), sigill (raises SIGILL itself), avx512 (its
 * library's initialiser runs an AVX-512 instruction, see vgprobe_lib.c). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vgprobe_lib_loaded(void);

int main(void)
{
    const char *mode = getenv("SETTLE_PROBE_MODE");
    if (mode && !strcmp(mode, "invalid")) {
        int *p = malloc(4 * sizeof(*p));
        if (!p)
            return 1;
        volatile int x = p[4];
        free(p);
        printf("%d\n", x);
    }
    if (mode && !strcmp(mode, "sigill"))
        raise(SIGILL);
    printf("vgprobe_victim %d\n", vgprobe_lib_loaded());
    return 0;
}
