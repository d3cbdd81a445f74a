/*
 * entry: the bytes of a cache entry, the same in the local directory and on
 * remote storage: a 48-byte header (magic "OLCE", u32 layout version, u64
 * payload size, SHA-256 of the payload), then the payload.  Pure functions.
 */
#include "cache_impl.h"

#include <string.h>

#define ENTRY_MAGIC "OLCE"

static uint64_t read_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

void ol_cache_entry_header(uint8_t header[OL_CACHE_ENTRY_HEADER], const uint8_t *payload,
			   size_t size)
{
	memset(header, 0, OL_CACHE_ENTRY_HEADER);
	memcpy(header, ENTRY_MAGIC, 4);
	header[4] = 1;                       /* entry layout version */
	for (int i = 0; i < 8; i++)
		header[8 + i] = (uint8_t)((uint64_t)size >> (8 * i));
	ol_sha256(payload, size, header + 16);
}

const char *ol_cache_entry_damage(const uint8_t *entry, size_t size)
{
	uint8_t digest[OL_SHA256_SIZE];

	if (size < OL_CACHE_ENTRY_HEADER || memcmp(entry, ENTRY_MAGIC, 4) != 0)
		return "not an entry";
	if (read_u64(entry + 8) != size - OL_CACHE_ENTRY_HEADER)
		return "truncated";
	ol_sha256(entry + OL_CACHE_ENTRY_HEADER, size - OL_CACHE_ENTRY_HEADER, digest);
	if (memcmp(digest, entry + 16, OL_SHA256_SIZE) != 0)
		return "checksum mismatch";
	return NULL;
}
