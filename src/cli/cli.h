/* SPDX-License-Identifier: BSD-2-Clause */
/* What the commands of the settle program share. */
#ifndef SETTLE_CLI_CLI_H
#define SETTLE_CLI_CLI_H

#include <getopt.h>
#include <signal.h>

#include "settle/settle.h"

/* Exit codes of analyze; with several captures the highest applies.
 * compare has its own (see compare.c), from the same range. */
enum {
    EXIT_OK = 0,
    EXIT_NOT_STABLE = 1, /* analysed, but no stable frame or no start was found */
    EXIT_PARTIAL = 2,    /* a capture was damaged or cut short; its result is partial */
    EXIT_INPUT = 3,      /* a capture could not be analysed at all */
    EXIT_OUTPUT = 4,     /* a result could not be written */
    EXIT_USAGE = 64,     /* invalid command line */
    EXIT_MARKS = 65,     /* a --marks file cannot be read or is malformed: nothing analysed */
    EXIT_INTERNAL = 70,  /* out of memory or another internal failure */
    EXIT_SIGNAL = 130    /* interrupted by SIGINT or SIGTERM; results written are partial */
};

/* Set by SIGINT/SIGTERM; the handler also interrupts every registered context. */
extern volatile sig_atomic_t cli_stop;
void cli_catch_signals(void);
/* Registers (ctx) or clears (NULL) slot i of at most CLI_MAX_CONTEXTS. */
#define CLI_MAX_CONTEXTS 256
void cli_watch_context(int i, SettleContext *ctx);

/* Exit code of analyze for one capture's outcome (a settle_analyze_file return). */
int cli_outcome_code(int ret);

/* Parses one analysis option of the library's table into s; prints the error
 * and returns EXIT_USAGE, or 0. */
int cli_set_option(SettleSettings *s, const char *name, const char *value);

/* The long options of a command: its own (ended by a zeroed entry), then
 * --quiet ('q'), --verbose ('v'), --help ('h'), then every analysis option of
 * the library's table, answered as table_id + its index. *ntable gets the
 * table's length. Free with free(); NULL when out of memory. */
struct option *cli_longopts(const struct option *own, int table_id, int *ntable);

/* After getopt_long (with ':' first in its short options) answered c, '?'
 * or ':': says which option of `command` was unknown (with the closest of
 * `longopts`, "did you mean") or lacked its value. */
void cli_bad_option(const char *command, char **argv, const struct option *longopts, int c);

/* The closest of `names` to the first `len` characters of `word`, when close
 * enough to be a typing slip; NULL otherwise. */
const char *cli_closest(const char *word, size_t len, const char *const *names, size_t n);

/* A file name given to `option` ("--report"): refuses, with the message and
 * EXIT_USAGE, a value that looks like an option ("--frames"; "-" and
 * "./-name" pass) or is empty. Returns 0 when it is a file name. */
int cli_file_value(const char *option, const char *value);

/* A number from lo to hi given to --`opt`: 0 with *out set, or EXIT_USAGE
 * with the message said ("settle: --alpha: expected a number from ..."). */
int cli_parse_number(const char *opt, const char *v, double lo, double hi, double *out);

/* Number of online processors, at least 1. */
int cli_cores(void);

/* "DIR/STEMEXT" in a new string (free with free()), or NULL when out of memory. */
char *cli_join(const char *dir, const char *stem, const char *ext);

/* The whole file at `path` in memory, NUL-terminated (it may hold NULs
 * before the end: *len, when len is not NULL, is its length). Reads until
 * end of file, so a pipe or a FIFO is read whole too. NULL with errno set
 * (fopen's, ENOMEM, or EIO for a read error). Free with free(). */
char *cli_read_file(const char *path, size_t *len);

#endif
