/*
 * compression: the two stream formats of llvm::compression (zlib and zstd),
 * compressed as LLVM compresses and decoded defensively, for the containers
 * that use them (CCOB offload bundles, OffloadBinary version 3).
 */
#ifndef OFFLOAD_FORMAT_COMPRESSION_H
#define OFFLOAD_FORMAT_COMPRESSION_H

#include <stddef.h>
#include <stdint.h>

/* llvm::compression::Format's values. */
enum ol_compression_format { OL_COMPRESS_ZLIB = 0, OL_COMPRESS_ZSTD = 1 };

/* One stream format: how upstream compresses with it, and how we decode it.
 * decompress fills out[0 .. capacity) and stores the bytes produced (callers
 * give one byte more than declared, so a longer stream shows), returning 0;
 * or -1 with *why set and *at the offset in the stream where decoding
 * stopped (zstd does not say: its stream start). */
struct ol_compression_method {
	const char *name;
	int default_level;
	/* Most bytes one stream byte can expand to: deflate's 258-byte match
	 * in under 2 bits (~1032), a zstd RLE block of 128 KiB in 4 bytes. */
	uint64_t max_ratio;
	uint8_t *(*compress)(const uint8_t *data, size_t size, int level, int long_distance,
			     size_t *size_out, const char **why);
	int (*decompress)(const uint8_t *stream, size_t stream_size, uint8_t *out,
			  size_t capacity, size_t *produced, const char **why, size_t *at);
};

/* The method of a format value, NULL for one LLVM does not have. */
const struct ol_compression_method *ol_compression_method(unsigned format);

/* Which format a stream is in, as LLVM tells: zstd by its magic, else zlib. */
enum ol_compression_format ol_compression_sniff(const uint8_t *stream, size_t size);

#endif
