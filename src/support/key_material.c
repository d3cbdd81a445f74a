/*
 * key_material: values fed to a SHA-256 so that no two sequences of values
 * hash alike (each length-prefixed).  The device link's cache keys and the
 * identities they remember are made of it (include/offload/key_material.h).
 */
#include "offload/key_material.h"

#include <string.h>

void ol_key_bytes(struct ol_sha256 *h, const void *data, size_t size)
{
	ol_key_u64(h, size);
	ol_sha256_update(h, data, size);
}

void ol_key_u64(struct ol_sha256 *h, uint64_t v)
{
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	ol_sha256_update(h, le, sizeof(le));
}

void ol_key_str(struct ol_sha256 *h, const char *s)
{
	if (!s) {
		ol_key_u64(h, UINT64_MAX);
		return;
	}
	ol_key_bytes(h, s, strlen(s));
}
