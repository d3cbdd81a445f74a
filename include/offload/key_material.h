/*
 * key_material: SHA-256 input in which every value is length-prefixed, so
 * that no two sequences of values hash alike.
 */
#ifndef OFFLOAD_KEY_MATERIAL_H
#define OFFLOAD_KEY_MATERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "offload/sha256.h"

void ol_key_str(struct ol_sha256 *h, const char *s);       /* NULL hashes apart from "" */
void ol_key_u64(struct ol_sha256 *h, uint64_t v);
void ol_key_bytes(struct ol_sha256 *h, const void *data, size_t size);

#endif
