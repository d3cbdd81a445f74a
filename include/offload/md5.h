/*
 * md5: RFC 1321 MD5 over a buffer.  Upstream's relocatable link (spec 6.1)
 * names the renamed entries sections after the MD5 of the linked output, so
 * ours does too: a relocatable object made from the same bytes gets the same
 * suffix from either tool.
 */
#ifndef OFFLOAD_MD5_H
#define OFFLOAD_MD5_H

#include <stddef.h>
#include <stdint.h>

#define OL_MD5_SIZE 16

void ol_md5(const void *data, size_t size, uint8_t digest[OL_MD5_SIZE]);

/* llvm::MD5::MD5Result::low(): the first eight digest bytes as a
 * little-endian integer. */
uint64_t ol_md5_low(const uint8_t digest[OL_MD5_SIZE]);

#endif
