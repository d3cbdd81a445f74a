/*
 * command_line: the one option reader of the companion commands
 * (src/support/command_line.c): `offload-link inspect`, `package`, `wrap`,
 * `cache` and the switch's `enable`, `disable` and `status`.
 */
#ifndef OFFLOAD_COMMAND_LINE_H
#define OFFLOAD_COMMAND_LINE_H

#include "offload/diag.h"

/* One option of a command's table (ended by id 0).  Spellings take one dash
 * or two; a value comes as "-name=value" or "-name value", and for a
 * one-letter name also as "-nvalue". */
struct ol_command_option {
	int id;                   /* what the command's take() is told; > 0 */
	const char *names;        /* every spelling, without dashes: "target|triple" */
	const char *metavar;      /* the value's placeholder, NULL for a flag */
	const char *help;         /* one line for --help */
	int value_optional;       /* "--compress" or "--compress=zlib" */
};

struct ol_command_line {
	const char *command;               /* "package" */
	const char *const *synopsis;       /* usage lines after "offload-link <command> " */
	const char *description;           /* --help's paragraph */
	const char *version_note;          /* --version's parenthesis */
	const struct ol_command_option *options;
	int separator;                     /* "--" makes every later word an input */
};

/* take()'s id for a word that is not an option. */
enum { OL_COMMAND_INPUT = -1 };

/* Reads argv[1..] in order, calling take(ctx, id, value) for each option
 * (value NULL for a flag) and take(ctx, OL_COMMAND_INPUT, word) for each
 * input; --help and --version print from the table.  Returns 0 when the
 * command goes on, 1 when help or the version was printed (exit 0), 2 after
 * a usage error was reported, or the first non-zero status take() returns
 * (take reports its own usage errors with ol_command_usage). */
int ol_command_line_read(const struct ol_command_line *cl, int argc, char **argv,
			 int (*take)(void *ctx, int id, const char *value), void *ctx);

/* "offload-link: error: <command>: ... (offload-link <command> --help lists
 * the options)"; returns 2, the exit status of a usage error. */
int ol_command_usage(const char *command, const char *fmt, ...) OL_PRINTF(2, 3);

#endif
