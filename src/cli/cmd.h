/* SPDX-License-Identifier: BSD-2-Clause */
/* The commands of the settle program, one file each (cmd_NAME.c): run with
 * argv from the command's name on, they return the exit code; usage prints
 * the command's help. main.c's table lists them. */
#ifndef SETTLE_CLI_CMD_H
#define SETTLE_CLI_CMD_H

#include <stdio.h>

int cmd_analyze(int argc, char **argv);
void usage_analyze(FILE *f);

int cmd_compare(int argc, char **argv);
void usage_compare(FILE *f);

int cmd_record(int argc, char **argv);
void usage_record(FILE *f);

int cmd_plot(int argc, char **argv);
void usage_plot(FILE *f);

int cmd_history(int argc, char **argv);
void usage_history(FILE *f);

int cmd_trend(int argc, char **argv);
void usage_trend(FILE *f);

int cmd_dashboard(int argc, char **argv);
void usage_dashboard(FILE *f);

#endif
