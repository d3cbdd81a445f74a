/*
 * commands_internal: what the companion commands (src/commands/) share: the
 * device images found in any file, and the reading of LLVM-style options.
 */
#ifndef OFFLOAD_COMMANDS_INTERNAL_H
#define OFFLOAD_COMMANDS_INTERNAL_H

#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/offload_binary.h"

#include <stddef.h>

/* Every OffloadBinary entry in a file: a raw binary, an object, executable
 * or shared library (their SHT_LLVM_OFFLOADING sections), an archive's
 * members, host bitcode (through the backend).  Found as the link's scan
 * finds them, so the same messages name the same bad bytes.  Arena memory.
 * Returns 0, or -1 once reported. */
struct ol_embedded_image {
	struct ol_offload_binary bin;
	struct ol_loc loc;            /* file, member, section, offset */
};
struct ol_embedded_images {
	struct ol_embedded_image *v;
	size_t n;
	enum ol_input_kind kind;      /* what the file is */
	const uint8_t *data;          /* the file's bytes */
	size_t size;
};
int ol_embedded_images(const char *path, struct ol_embedded_images *out);

/* ---- command_line.c: the one option reader of the commands ---------------- */

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

/* The commands of this directory (commands.c lists them). */
int ol_cache_command(int argc, char **argv);
int ol_inspect_command(int argc, char **argv);
int ol_package_command(int argc, char **argv);
/* clang-offload-wrapper's and llvm-offload-wrapper's command lines. */
int ol_wrap_command(int argc, char **argv);
/* The switch that makes the installed clang run offload-link (switch.c). */
int ol_enable_command(int argc, char **argv);
int ol_disable_command(int argc, char **argv);
int ol_status_command(int argc, char **argv);

#endif
