/*
 * sha256_internal: SHA-256's block function, both ways, for the unit test
 * that holds one against the other (sha256.c uses the processor's SHA
 * extensions where it has them, which every machine the tests run on may).
 */
#ifndef OFFLOAD_SUPPORT_SHA256_INTERNAL_H
#define OFFLOAD_SUPPORT_SHA256_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

void ol_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t nblocks);
/* 0 when done, -1 when the processor lacks the extensions. */
int ol_sha256_blocks_accelerated(uint32_t state[8], const uint8_t *data, size_t nblocks);

#endif
