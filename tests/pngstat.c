/* SPDX-License-Identifier: BSD-2-Clause */
/* Test helper: decodes a PNG with libpng and describes it.
 *   pngstat FILE                 -> "WIDTH HEIGHT DISTINCT"  (distinct: colours seen, up to 4096)
 *   pngstat FILE RRGGBB TOL      -> pixels within TOL levels of that colour in every channel
 *   pngstat FILE X Y W H         -> pixels in that rectangle that are not near-white (any channel < 235)
 *   pngstat FILE RRGGBB TOL X Y W H -> pixels of that rectangle within TOL levels of that colour
 * Exit 1 when the file is not a PNG that decodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pngread.h"

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 4 && argc != 6 && argc != 8) {
        fprintf(stderr, "usage: pngstat FILE [RRGGBB TOL [X Y W H] | X Y W H]\n");
        return 64;
    }
    unsigned width, height;
    size_t size;
    char why[64];
    unsigned char *px = pngread(argv[1], 3, &width, &height, &size, why);
    if (!px) {
        fprintf(stderr, "pngstat: %s: %s\n", argv[1], why);
        return 1;
    }
    size_t n = (size_t)width * height;
    if (argc == 2) {
        static unsigned seen[4096];
        unsigned distinct = 0;
        for (size_t i = 0; i < n && distinct < 4096; i++) {
            unsigned v = (unsigned)px[3 * i] << 16 | (unsigned)px[3 * i + 1] << 8 | px[3 * i + 2];
            unsigned k;
            for (k = 0; k < distinct && seen[k] != v; k++)
                ;
            if (k == distinct)
                seen[distinct++] = v;
        }
        printf("%u %u %u\n", width, height, distinct);
    } else if (argc == 4 || argc == 8) {
        unsigned long rgb = strtoul(argv[2], NULL, 16);
        int tol = atoi(argv[3]), want[3] = { (int)(rgb >> 16) & 255, (int)(rgb >> 8) & 255, (int)rgb & 255 };
        long x0 = 0, y0 = 0, w = width, h = height;
        if (argc == 8) {
            x0 = atol(argv[4]);
            y0 = atol(argv[5]);
            w = atol(argv[6]);
            h = atol(argv[7]);
        }
        size_t count = 0;
        for (long y = y0 < 0 ? 0 : y0; y < y0 + h && y < (long)height; y++)
            for (long x = x0 < 0 ? 0 : x0; x < x0 + w && x < (long)width; x++) {
                const unsigned char *p = px + 3 * ((size_t)y * width + (size_t)x);
                count += abs(p[0] - want[0]) <= tol && abs(p[1] - want[1]) <= tol &&
                         abs(p[2] - want[2]) <= tol;
            }
        printf("%zu\n", count);
    } else {
        long x0 = atol(argv[2]), y0 = atol(argv[3]), w = atol(argv[4]), h = atol(argv[5]);
        size_t count = 0;
        for (long y = y0 < 0 ? 0 : y0; y < y0 + h && y < (long)height; y++)
            for (long x = x0 < 0 ? 0 : x0; x < x0 + w && x < (long)width; x++) {
                const unsigned char *p = px + 3 * ((size_t)y * width + (size_t)x);
                count += p[0] < 235 || p[1] < 235 || p[2] < 235;
            }
        printf("%zu\n", count);
    }
    free(px);
    return 0;
}
