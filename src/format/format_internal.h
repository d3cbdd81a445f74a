/*
 * format_internal: what the byte-format readers and writers in src/format
 * share: little-endian fields at any alignment, and the one way a reader
 * reports a malformed input (a message and the offset of the bad field).
 */
#ifndef OFFLOAD_FORMAT_INTERNAL_H
#define OFFLOAD_FORMAT_INTERNAL_H

#include "offload/diag.h"

#include <stdint.h>

static inline uint16_t ol_get16le(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t ol_get32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ol_get64le(const uint8_t *p)
{
	return (uint64_t)ol_get32le(p) | (uint64_t)ol_get32le(p + 4) << 32;
}

static inline void ol_put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void ol_put16le(uint8_t *p, uint16_t v) { ol_put_le(p, v, 2); }
static inline void ol_put32le(uint8_t *p, uint32_t v) { ol_put_le(p, v, 4); }
static inline void ol_put64le(uint8_t *p, uint64_t v) { ol_put_le(p, v, 8); }

/* Formats the message into a per-thread buffer, stores it in *why and
 * `offset` in *bad_offset (when bad_offset is not NULL); returns -1.  The
 * message stays valid until the next failure reported on the same thread. */
int ol_format_fail(const char **why, uint64_t *bad_offset, uint64_t offset, const char *fmt, ...)
	OL_PRINTF(4, 5);

#endif
