/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Runs a libFuzzer target's entry point on each file named on the command
 * line, or in each folder named, and on prefixes of each, without libFuzzer:
 * the seeds as a plain test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
    {
        FILE *f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "fuzz_replay: %s: cannot open\n", path);
            return 1;
        }
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0;
        for (;;) {
            if (len == cap) {
                cap = cap ? cap * 2 : 4096;
                uint8_t *b = realloc(buf, cap);
                if (!b) {
                    fprintf(stderr, "fuzz_replay: out of memory\n");
                    return 1;
                }
                buf = b;
            }
            size_t got = fread(buf + len, 1, cap - len, f);
            len += got;
            if (!got)
                break;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        /* every prefix too: each is a truncated file */
        for (size_t n = 0; n < len; n += 1 + len / 64)
            LLVMFuzzerTestOneInput(buf, n);
        free(buf);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
            if (replay(argv[i]))
                return 1;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
            if (e->d_name[0] == '.' || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                continue;
            if (replay(path))
                return 1;
            files++;
        }
        if (d)
            closedir(d);
    }
    printf("fuzz_replay: %d files\n", files);
    return files ? 0 : 1;
}
