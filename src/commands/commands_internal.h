/*
 * commands_internal: what the companion commands (src/commands/) share: the
 * device images found in any file (their option reader is
 * offload/command_line.h, which the switch uses too).
 */
#ifndef OFFLOAD_COMMANDS_INTERNAL_H
#define OFFLOAD_COMMANDS_INTERNAL_H

#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/offload_binary.h"
#include "offload/command_line.h"

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

/* The commands of this directory (commands.c lists them). */
int ol_cache_command(int argc, char **argv);
int ol_inspect_command(int argc, char **argv);
int ol_package_command(int argc, char **argv);
/* clang-offload-wrapper's and llvm-offload-wrapper's command lines. */
int ol_wrap_command(int argc, char **argv);

#endif
