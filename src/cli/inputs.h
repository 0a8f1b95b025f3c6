/* SPDX-License-Identifier: BSD-2-Clause */
/* Lists of captures: from the command line and --files-from, their shard
 * and the names of their result files. */
#ifndef SETTLE_CLI_INPUTS_H
#define SETTLE_CLI_INPUTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct InputList {
    char **v;
    size_t n, cap;
} InputList;

/* Appends a copy of s. Returns 0 or -1 (out of memory). */
int inputs_add(InputList *l, const char *s);
/* Appends the paths in the file ("-" = stdin): NUL-separated when the file
 * holds a NUL byte, else one a line (a trailing CR is dropped); empty entries
 * are skipped. Returns 0 or -1 with errno set. */
int inputs_read(InputList *l, const char *path);
void inputs_free(InputList *l);

/* The key an input is known by across machines: the path as given, without
 * leading "./" and with repeated slashes collapsed. Returns a new string or NULL. */
char *input_key(const char *path);

/* A 64-bit hash of a key: FNV-1a, then the splitmix64 finaliser so that every
 * bit depends on every byte. */
uint64_t input_hash(const char *key);

/* "K/N" with 1 <= K <= N: returns 0 and sets *k, *n, else -1. */
int shard_parse(const char *arg, int *k, int *n);
/* Whether the input with this key belongs to shard k of n:
 * input_hash(key) % n == k - 1. */
int shard_take(const char *key, int k, int n);

/* The result file name without extension for a key: the base name without
 * its extension, '-', and the first 8 hex digits of input_hash(key)
 * ("runs/7/startup.mp4" -> "startup-1f0c3a9e"). Returns a new string or NULL. */
char *result_stem(const char *key);

#endif
