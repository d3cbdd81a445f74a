/*
 * offload_bundle: the container clang-offload-bundler writes for `-type=o`
 * when the host input is not an object (the HIP fat binary, `.hipfb`), and
 * its compressed wrapper "CCOB" (upstream-spec section 8.5).
 *
 * Uncompressed layout, all integers little-endian:
 *   "__CLANG_OFFLOAD_BUNDLE__"  u64 count
 *   count x { u64 offset (from the bundle start), u64 size, u64 id length, id bytes }
 *   payloads, each at the next multiple of the alignment (-bundle-align)
 * Compressed: "CCOB" u16 version u16 method, then
 *   v1: u32 uncompressed size                      (20-byte header; read only)
 *   v2: u32 total size, u32 uncompressed size      (24 bytes; 19's default)
 *   v3: u64 total size, u64 uncompressed size      (32 bytes; 22's default)
 * then u64 hash (the first 8 bytes of the MD5 of the uncompressed bundle)
 * and one zlib (method 0) or zstd (method 1) stream of the whole bundle.
 *
 * What is byte-identical to upstream:
 * - ol_hip_bundle_write() uncompressed: exactly the file clang-offload-bundler
 *   16, 19 or 22 writes for the wrapper's command
 *     -type=o -bundle-align=4096 -targets=<host>,<kind>-<triple>--<id>... -input=/dev/null ...
 *   ids included: 16 writes them verbatim, 19 and 22 rewrite them
 *   (ol_bundle_entry_id(), with each release's table of known offload archs).
 * - compressed: upstream calls libzstd (ZSTD_compress2 with long-distance
 *   matching on and the level) or zlib (compress2 with the level) on the
 *   whole bundle; we make the same calls, so with the same libraries (Debian's
 *   libzstd 1.5.4 and zlib 1.2.13 here, which LLVM 19 and 22 also load) the
 *   bytes are the same.  A different libzstd/zlib version may compress
 *   differently; the result still decompresses the same everywhere.
 * Limit of the id rewriting: 22 runs the triple through llvm::Triple::normalize,
 * which also reorders components of a non-canonical triple ("x86_64-linux-gnu");
 * we fill empty components with "unknown" as it does but do not reorder.
 * Triples written by clang are canonical, so this does not arise in practice.
 *
 * Errors: every parse function returns -1 (or NULL), stores a message in *why
 * (valid until the next call on the same thread) and, for readers, the offset
 * of the bad field in *bad_offset, relative to the start of the input, as
 * ol_offload_binary_parse() does.  Readers check every count and size against
 * the input before allocating anything for it.
 */
#ifndef OFFLOAD_OFFLOAD_BUNDLE_H
#define OFFLOAD_OFFLOAD_BUNDLE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define OL_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define OL_BUNDLE_MAGIC_SIZE 24
#define OL_BUNDLE_HEADER_SIZE 32        /* magic and entry count */
#define OL_BUNDLE_ENTRY_FIXED_SIZE 24   /* offset, size, id length; the id follows */
#define OL_CCOB_MAGIC "CCOB"
#define OL_HIP_BUNDLE_ALIGN 4096        /* the wrapper's -bundle-align */

/* ---- writers ------------------------------------------------------------ */

struct ol_bundle_part {
	const char *id;        /* NUL-terminated; written without the NUL */
	const uint8_t *data;   /* may be NULL when size is 0 */
	uint64_t size;
};

/* The bundler's BinaryFileHandler: header, then each payload at the next
 * multiple of `align` (0 counts as 1), zero padding between.  Ids are written
 * as given and not checked.  Returns a malloc'd buffer (free()), its size in
 * *size_out. */
uint8_t *ol_bundle_write(const struct ol_bundle_part *parts, size_t nparts, uint64_t align,
			 size_t *size_out);

/* The id clang-offload-bundler of `release` (16, 19 or 22) writes for the
 * -targets entry `target` ("<kind>-<triple>-<target id>").  Returns a
 * malloc'd string, or NULL with *why set (unknown release, or a target 22
 * rejects). */
char *ol_bundle_entry_id(int release, const char *target, const char **why);

/* Whether `release`'s bundler knows `arch` ("gfx90a", "sm_80"; no features).
 * Ids with an unknown arch lose it (19 and 22 differently). */
int ol_bundle_arch_known(int release, const char *arch);
/* The arch names 19 or 22 knows, by index from 0; NULL past the last. */
const char *ol_bundle_arch_name(size_t index);

/* The host entry of the wrapper's command: 16/19 "host-x86_64-unknown-linux",
 * 22 "host-x86_64-unknown-linux-gnu" (hard-coded upstream, whatever the host);
 * and the device kind: 16 "hipv4", 19/22 "hip".  NULL for other releases. */
const char *ol_hip_bundle_host_target(int release);
const char *ol_hip_bundle_kind(int release);

/* ---- compression (CCOB) ------------------------------------------------- */

enum ol_ccob_method { OL_CCOB_ZLIB = 0, OL_CCOB_ZSTD = 1 };   /* llvm::compression::Format */

#define OL_CCOB_LEVEL_DEFAULT INT_MIN   /* zstd 3, zlib 6, as the bundler */

struct ol_ccob_options {
	unsigned version;            /* 2 or 3 */
	enum ol_ccob_method method;
	int level;                   /* or OL_CCOB_LEVEL_DEFAULT */
};

/* What `-compress` means for `release`: 19 {2, zstd, 3}, 22 {3, zstd, 3}.
 * Returns -1 for 16 (no compression there) and unknown releases. */
int ol_ccob_default_options(int release, struct ol_ccob_options *out);

/* Wraps data[0 .. size) (an uncompressed bundle) in a CCOB.  Returns a
 * malloc'd buffer, or NULL with *why set (bad options, a v2 size over 4 GiB). */
uint8_t *ol_ccob_compress(const uint8_t *data, size_t size, const struct ol_ccob_options *options,
			  size_t *size_out, const char **why);

/* ---- the HIP bundle of the wrapper --------------------------------------- */

struct ol_hip_image {
	const char *triple;      /* "amdgcn-amd-amdhsa" */
	const char *target_id;   /* "gfx90a", "gfx90a:xnack+" */
	const uint8_t *data;
	uint64_t size;
};

/* The .hipfb upstream `release` writes: an empty host entry, then the images
 * in the given order (upstream sorts them first, see spec 4.5), at 4096-byte
 * alignment, compressed when `compress` is not NULL (19 and 22 only).
 * Returns a malloc'd buffer, or NULL with *why set. */
uint8_t *ol_hip_bundle_write(int release, const struct ol_hip_image *images, size_t nimages,
			     const struct ol_ccob_options *compress, size_t *size_out,
			     const char **why);

/* ---- readers ------------------------------------------------------------ */

int ol_bundle_is_uncompressed(const uint8_t *data, size_t size);   /* magic check */
int ol_bundle_is_compressed(const uint8_t *data, size_t size);     /* "CCOB" */

struct ol_bundle_entry {
	const char *id;          /* view into the bundle, NOT NUL-terminated */
	size_t id_size;
	uint64_t offset;         /* of the payload, from the bundle start */
	uint64_t size;
	const uint8_t *data;     /* view: bundle + offset */
};

struct ol_bundle {
	const uint8_t *data;     /* the bundle parsed (view) */
	size_t size;
	uint64_t header_size;    /* end of the last id */
	size_t nentries;
	struct ol_bundle_entry *entries;   /* malloc'd, in header order */
};

/* Parses an uncompressed bundle.  The entries are views into data, which must
 * outlive them; ol_bundle_release() frees the array.  Checked: the header
 * and ids lie inside the input, ids are non-empty and distinct, every payload
 * lies after the header and inside the input, and non-empty payloads do not
 * overlap.  On failure nothing needs releasing. */
int ol_bundle_parse(const uint8_t *data, size_t size, struct ol_bundle *out, const char **why,
		    uint64_t *bad_offset);
void ol_bundle_release(struct ol_bundle *bundle);

/* The entry whose id is `id` exactly, or NULL. */
const struct ol_bundle_entry *ol_bundle_find(const struct ol_bundle *bundle, const char *id);

struct ol_ccob_header {
	unsigned version;             /* 1, 2 or 3 */
	enum ol_ccob_method method;
	size_t header_size;           /* 20, 24 or 32 */
	uint64_t total_size;          /* header + stream; v1 has no field: the whole input */
	uint64_t uncompressed_size;
	uint64_t hash;                /* MD5 prefix, as a little-endian u64 */
};

/* Reads and checks a CCOB header (magic, version, method, total size within
 * the input).  The input may extend past total_size (section padding). */
int ol_ccob_parse_header(const uint8_t *data, size_t size, struct ol_ccob_header *out,
			 const char **why, uint64_t *bad_offset);

/* Decompresses a CCOB: checks the header, that the stream decodes to exactly
 * the declared size with nothing left over, and the hash.  Returns the
 * uncompressed bundle (malloc'd, free()), its size in *size_out, the header
 * in *header_out when not NULL; or NULL with *why and *bad_offset set: the
 * bad header field, or for a corrupt stream where zlib stopped decoding (the
 * start of a zstd stream: libzstd does not say where).  Nothing is allocated
 * before the declared size is checked against what the stream can hold. */
uint8_t *ol_ccob_decompress(const uint8_t *data, size_t size, size_t *size_out,
			    struct ol_ccob_header *header_out, const char **why,
			    uint64_t *bad_offset);

#endif
