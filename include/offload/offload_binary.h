/*
 * offload_binary: the OffloadBinary container (magic 10 FF 10 AD): version 1,
 * as read and written by LLVM 16, 19 and 22 (upstream-spec section 2.2), and
 * versions 2 and 3 of the releases after 22 (section 2.4): several entries
 * in one binary, string values with a size, and in version 3 a body
 * compressed with zlib or zstd.
 *
 * The reader works on (pointer, length) views with no alignment requirement
 * and no copy (but for a compressed body, inflated into the arena): every
 * field is bounds-checked, keys must be NUL-terminated inside the binary.
 * The writer produces bytes identical to upstream's OffloadBinary::write
 * (string table order and tail merging included).
 */
#ifndef OFFLOAD_OFFLOAD_BINARY_H
#define OFFLOAD_OFFLOAD_BINARY_H

#include <stddef.h>
#include <stdint.h>

struct ol_arena;
struct ol_loc;

#define OL_OFFLOAD_MAGIC_BYTES "\x10\xff\x10\xad"
#define OL_OFFLOAD_HEADER_SIZE 32     /* versions 1 and 2 */
#define OL_OFFLOAD_HEADER_SIZE_V3 40  /* adds InflatedSize */
#define OL_OFFLOAD_ENTRY_SIZE 40
#define OL_OFFLOAD_VERSION_MAX 3
/* Entry flag (version 2 on): the entry carries metadata, no image. */
#define OL_OFFLOAD_FLAG_METADATA 0x1u

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
	const char *value;        /* NUL-terminated for C, whatever it holds */
	size_t value_size;        /* bytes of value (version 2 values may hold NULs);
	                             writers take 0 as strlen(value) */
};

/* One entry of a binary: in version 1 the binary's only one. */
struct ol_offload_binary {
	const uint8_t *data;      /* start of the binary holding it (view; for a
	                             compressed one, its inflated copy) */
	uint64_t size;            /* bytes at data (the inflated size if compressed) */
	uint32_t version;
	int compressed;           /* version 3 body that was inflated */
	uint64_t index;           /* the entry's number in its binary */
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

/* Where the image starts in the binary as stored, for messages; 0 when the
 * binary was compressed (the image has no place in the file). */
static inline uint64_t ol_offload_image_offset(const struct ol_offload_binary *bin)
{
	return bin->compressed ? 0 : (uint64_t)(bin->image - bin->data);
}

/* Looks up a key; NULL if absent. */
const char *ol_offload_binary_get(const struct ol_offload_binary *bin, const char *key);

/* The names in a SYCL image's "symbols" string, as clang-sycl-linker 22
 * writes it and upstream 22's wrapper reads it (line_iterator): one name per
 * line, "\n" or "\r\n" ending a line, blank lines skipped.  Returns the
 * number of names; *names_out gets an array of them from `arena`. */
size_t ol_offload_symbol_list(const char *list, struct ol_arena *arena, const char ***names_out);

/* Every entry of the binary at data[0 .. avail); stored_size is the
 * binary's Size as stored, the step to the next binary in a section. */
struct ol_offload_binaries {
	struct ol_offload_binary *v;  /* from the arena */
	size_t n;
	uint64_t stored_size;
};
int ol_offload_binary_parse_all(const uint8_t *data, size_t avail, struct ol_arena *arena,
				struct ol_offload_binaries *out, const char **why,
				uint64_t *bad_offset);

/* Parses one binary at data[0 .. avail) and gives its first entry.  On failure returns -1, stores a
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

/* Any version: 1 writes one binary per image back to back (what
 * clang-offload-packager writes); 2 and 3 one binary holding every image,
 * 3 with its body compressed when compress is an ol_compression_format
 * (src/format/compression.h: 0 zlib, 1 zstd) rather than -1.  level < 0:
 * the format's default.  Returns a malloc'd buffer, or NULL with *why. */
struct ol_offload_write_options {
	unsigned version;
	int compress;
	int level;
};
uint8_t *ol_offload_binary_write_version(const struct ol_offload_binary_desc *descs, size_t n,
					 const struct ol_offload_write_options *opts,
					 size_t *size_out, const char **why);

#endif
