/*
 * sha256: SHA-256 (FIPS 180-4), for the device-link cache's keys and entry
 * checksums.  Incremental: init, update any number of times, final.
 */
#ifndef OFFLOAD_SHA256_H
#define OFFLOAD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define OL_SHA256_SIZE 32

struct ol_sha256 {
	uint32_t state[8];
	uint64_t length;          /* bytes hashed so far */
	uint8_t block[64];
	size_t fill;
};

void ol_sha256_init(struct ol_sha256 *h);
void ol_sha256_update(struct ol_sha256 *h, const void *data, size_t size);
void ol_sha256_final(struct ol_sha256 *h, uint8_t digest[OL_SHA256_SIZE]);
/* One-shot. */
void ol_sha256(const void *data, size_t size, uint8_t digest[OL_SHA256_SIZE]);
/* Lower-case hex of a digest: 64 characters and a NUL. */
void ol_sha256_hex(const uint8_t digest[OL_SHA256_SIZE], char hex[2 * OL_SHA256_SIZE + 1]);

#endif
