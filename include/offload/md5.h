/*
 * md5: RFC 1321 message digest, where upstream's formats use it: the hash of
 * compressed offload bundles (the first 8 bytes of the MD5 of the
 * uncompressed bundle, as llvm::MD5 computes it) and the suffix of the
 * entries sections a relocatable link renames (spec 6.1: the low word of the
 * MD5 of the linked output, so that either tool names them alike).  Not for
 * anything that needs a secure hash.
 */
#ifndef OFFLOAD_MD5_H
#define OFFLOAD_MD5_H

#include <stddef.h>
#include <stdint.h>

#define OL_MD5_SIZE 16

struct ol_md5 {
	uint32_t state[4];
	uint64_t length;      /* bytes hashed so far */
	uint8_t block[64];    /* a partial block waiting for more bytes */
};

void ol_md5_init(struct ol_md5 *md5);
void ol_md5_update(struct ol_md5 *md5, const void *data, size_t size);
/* Writes the digest; md5 must be initialised again before reuse. */
void ol_md5_final(struct ol_md5 *md5, uint8_t digest[OL_MD5_SIZE]);

/* One-shot digest of data[0 .. size). */
void ol_md5(const void *data, size_t size, uint8_t digest[OL_MD5_SIZE]);

/* llvm::MD5::MD5Result::low(): the first eight digest bytes as a
 * little-endian integer. */
uint64_t ol_md5_low(const uint8_t digest[OL_MD5_SIZE]);

#endif
