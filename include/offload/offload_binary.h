/*
 * offload_binary: the OffloadBinary container (magic 10 FF 10 AD), version 1,
 * as read and written by LLVM 16, 19 and 22 (upstream-spec section 2).
 *
 * The reader works on (pointer, length) views with no alignment requirement
 * and no copy: every field is bounds-checked, strings must be NUL-terminated
 * inside the binary.  The writer produces bytes identical to upstream's
 * OffloadBinary::write (string table order and tail merging included).
 */
#ifndef OFFLOAD_OFFLOAD_BINARY_H
#define OFFLOAD_OFFLOAD_BINARY_H

#include <stddef.h>
#include <stdint.h>

struct ol_arena;
struct ol_loc;

#define OL_OFFLOAD_MAGIC_BYTES "\x10\xff\x10\xad"
#define OL_OFFLOAD_HEADER_SIZE 32
#define OL_OFFLOAD_ENTRY_SIZE 40

enum ol_image_kind {
	OL_IMG_NONE = 0, OL_IMG_OBJECT = 1, OL_IMG_BITCODE = 2, OL_IMG_CUBIN = 3,
	OL_IMG_FATBINARY = 4, OL_IMG_PTX = 5, OL_IMG_SPIRV = 6,
};

/* Canonical offload kinds inside offload-link: the LLVM >= 21 bit values.
 * Raw values are mapped with ol_offload_kind_decode(): HIP is 3 in binaries
 * written by LLVM <= 20 and 4 from 21 on. */
enum ol_offload_kind {
	OL_OFK_NONE = 0, OL_OFK_OPENMP = 1, OL_OFK_CUDA = 2, OL_OFK_HIP = 4, OL_OFK_SYCL = 8,
};
enum ol_offload_kind ol_offload_kind_decode(uint16_t raw);
/* Raw value to write for a flavor (16/19 -> HIP 3, 22 -> HIP 4). */
uint16_t ol_offload_kind_encode(enum ol_offload_kind kind, int flavor);
const char *ol_offload_kind_name(enum ol_offload_kind kind);   /* "openmp", ..., "none" */
enum ol_offload_kind ol_offload_kind_from_name(const char *name); /* OL_OFK_NONE if unknown */
const char *ol_image_kind_name(enum ol_image_kind kind);       /* "o", "bc", "cubin", ... "" */

struct ol_offload_string {
	const char *key;
	const char *value;
};

struct ol_offload_binary {
	const uint8_t *data;      /* start of this binary (view) */
	uint64_t size;            /* header Size: bytes of this binary incl. padding */
	uint32_t version;
	uint16_t image_kind;
	uint16_t offload_kind_raw;
	enum ol_offload_kind offload_kind;  /* decoded */
	uint32_t flags;
	const uint8_t *image;     /* payload view */
	uint64_t image_size;
	struct ol_offload_string *strings;  /* in entry order */
	size_t nstrings;
	const char *triple;       /* "" when absent */
	const char *arch;         /* "" when absent */
};

/* Looks up a key; NULL if absent. */
const char *ol_offload_binary_get(const struct ol_offload_binary *bin, const char *key);

/* The names in a SYCL image's "symbols" string, as clang-sycl-linker 22
 * writes it and upstream 22's wrapper reads it (line_iterator): one name per
 * line, "\n" or "\r\n" ending a line, blank lines skipped.  Returns the
 * number of names; *names_out gets an array of them from `arena`. */
size_t ol_offload_symbol_list(const char *list, struct ol_arena *arena, const char ***names_out);

/* Parses one binary at data[0 .. avail).  On failure returns -1, stores a
 * static message in *why and the offset (relative to data) of the bad field
 * in *bad_offset.  strings are allocated from `arena`. */
int ol_offload_binary_parse(const uint8_t *data, size_t avail, struct ol_arena *arena,
			    struct ol_offload_binary *out, const char **why, uint64_t *bad_offset);

/* Parses a section holding concatenated binaries (each 8-byte padded) and
 * calls cb for each, with its offset inside the section.  Errors are reported
 * with ol_error_at(loc with section offset); returns the number of binaries,
 * or -1 on error. */
typedef void (*ol_offload_binary_cb)(void *ctx, const struct ol_offload_binary *bin,
				     uint64_t offset);
int ol_offload_section_parse(const uint8_t *data, size_t size, const struct ol_loc *loc,
			     struct ol_arena *arena, ol_offload_binary_cb cb, void *ctx);

/* Writer.  strings are written in the given order (upstream 19/22 writes
 * triple, arch for the images it wraps).  Returns a malloc'd buffer and its
 * size in *size_out. */
struct ol_offload_binary_desc {
	uint16_t image_kind;
	uint16_t offload_kind_raw;
	uint32_t flags;
	const struct ol_offload_string *strings;
	size_t nstrings;
	const uint8_t *image;
	uint64_t image_size;
};
uint8_t *ol_offload_binary_write(const struct ol_offload_binary_desc *desc, size_t *size_out);

#endif
