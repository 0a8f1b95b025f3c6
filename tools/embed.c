/* SPDX-License-Identifier: BSD-2-Clause */
/* Build helper: writes a C file that holds a text file as a string.
 * usage: embed NAME INPUT OUTPUT.c   ->  const char NAME[] = "...";  */
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: embed NAME INPUT OUTPUT.c\n");
        return 64;
    }
    FILE *in = fopen(argv[2], "rb");
    FILE *out = in ? fopen(argv[3], "w") : NULL;
    if (!in || !out) {
        perror(in ? argv[3] : argv[2]);
        return 1;
    }
    fprintf(out, "/* generated from %s by tools/embed.c */\nconst char %s[] = {\n", argv[2],
            argv[1]);
    int c, n = 0;
    while ((c = fgetc(in)) != EOF)
        fprintf(out, "%d,%s", c, ++n % 24 ? "" : "\n");
    fprintf(out, "0\n};\n");
    int bad = ferror(in) || ferror(out);
    fclose(in);
    bad |= fclose(out) != 0;
    return bad;
}
