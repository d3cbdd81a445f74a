/*
 * fatbinary: a reader of NVIDIA fat binaries, the container CUDA's
 * `fatbinary` writes and the wrapper embeds verbatim in `.nv_fatbin`
 * (upstream-spec section 8.6).  The format is proprietary; this layout comes
 * from NVIDIA's public fatbinary.h (the container header and the kinds), the
 * field names used by open readers (gpgpu-sim, cuda-fatbin-decompression)
 * and files written by CUDA 13's fatbinary and nvcc here
 * (test/unit/test_fatbinary.c checks them).  All integers little-endian.
 *
 *   container header, 16 bytes:
 *     0 u32 magic 0xBA55ED50   4 u16 version (1)   6 u16 header size (16)
 *     8 u64 size of the entries that follow the header
 *   then entries back to back, each a header and its payload:
 *     0 u16 kind (1 PTX, 2 ELF, 4 old cubin, 8 NVVM IR)   2 u16 entry version (0x0101)
 *     4 u32 header size (64, more when an identifier or ptxas options follow)
 *     8 u64 payload size (padded to 8)   16 u32 compressed size (0 when not compressed)
 *    20 u32 offset of the ptxas options record in the header (0: none)
 *    24 u16 minor  26 u16 major (PTX ISA version for PTX)   28 u32 sm (80 for sm_80)
 *    32 u32 offset and 36 u32 length of the identifier (--ident) in the header
 *    40 u64 flags (below)   48 u64 reserved   56 u64 uncompressed size (0: not compressed)
 *   the options record: u32 offset and u32 length of the options text, in the header.
 *
 * Errors are reported as in offload_binary.h: -1, a message in *why (valid
 * until the next failure on the same thread) and the offset of the bad field
 * from the start of the container in *bad_offset.
 */
#ifndef OFFLOAD_FATBINARY_H
#define OFFLOAD_FATBINARY_H

#include <stddef.h>
#include <stdint.h>

#define OL_FATBIN_MAGIC 0xBA55ED50u
#define OL_FATBIN_HEADER_SIZE 16
#define OL_FATBIN_ENTRY_HEADER_SIZE 64

enum ol_fatbin_kind {
	OL_FATBIN_PTX = 1, OL_FATBIN_ELF = 2, OL_FATBIN_OLD_CUBIN = 4, OL_FATBIN_NVVM = 8,
};

enum {
	OL_FATBIN_FLAG_64BIT = 0x1,
	OL_FATBIN_FLAG_DEBUG = 0x2,
	OL_FATBIN_FLAG_LINUX = 0x10,            /* host OS */
	OL_FATBIN_FLAG_COMPRESSED = 0x2000,     /* NVIDIA's LZ4-like scheme (CUDA <= 12) */
	OL_FATBIN_FLAG_COMPRESSED_ZSTD = 0x8000,  /* a zstd frame (CUDA 13) */
};

struct ol_fatbin_image {
	uint16_t kind;              /* enum ol_fatbin_kind, or another value as read */
	uint16_t version;           /* of the entry format, 0x0101 */
	uint32_t header_size;
	uint64_t offset;            /* of the entry header, from the container start */
	uint64_t payload_offset;    /* from the container start */
	uint64_t payload_size;      /* bytes stored, padding included */
	const uint8_t *payload;     /* view into the container */
	uint32_t sm;                /* 80 for sm_80 */
	uint16_t major, minor;
	uint64_t flags;
	uint32_t compressed_size;   /* of the stream at payload, when compressed */
	uint64_t uncompressed_size; /* when compressed */
	const char *ident;          /* view, NOT NUL-terminated; NULL when absent */
	size_t ident_size;
	const char *options;        /* ptxas options text, view, NOT NUL-terminated; or NULL */
	size_t options_size;
};

struct ol_fatbin {
	const uint8_t *data;        /* the container (view) */
	uint64_t size;              /* header + entries: where a following container would start */
	uint16_t version;
	uint16_t header_size;
	size_t nimages;
	struct ol_fatbin_image *images;   /* malloc'd, in file order */
};

int ol_fatbin_is_fatbin(const uint8_t *data, size_t size);   /* magic check */

/* Parses the container at data[0 .. avail); bytes after its end are left
 * alone (a section may hold several containers: parse again at data + size).
 * Every field is checked against the container and the input.  On success
 * the images are views into data, which must outlive them; free the array
 * with ol_fatbin_release().  On failure nothing needs releasing. */
int ol_fatbin_parse(const uint8_t *data, size_t avail, struct ol_fatbin *out, const char **why,
		    uint64_t *bad_offset);
void ol_fatbin_release(struct ol_fatbin *fatbin);

/* "ptx", "elf", "cubin", "nvvm"; "unknown" for other values. */
const char *ol_fatbin_kind_name(uint16_t kind);
/* "zstd", "lz4", or NULL when the payload is stored as is. */
const char *ol_fatbin_compression(const struct ol_fatbin_image *image);

#endif
