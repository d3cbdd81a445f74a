/*
 * hashtab: the one hash table of the core (src/support/hashtab.c): open
 * addressing with linear probing over records of one size, each with its
 * 64-bit hash beside it (0 marks an empty slot, so a hash of 0 is stored
 * as 1).  The table owns its slots, not what a record points to; a record's
 * address is valid until the next insertion.  ol_hashtab_insert dies when
 * memory runs out, as the ol_x* allocators do; ol_hashtab_try_insert says
 * so instead, for the LLVM backend, which compiles hashtab.c into itself
 * and dies on nothing.
 */
#ifndef OFFLOAD_HASHTAB_H
#define OFFLOAD_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

#include "offload/diag.h"

struct ol_hashtab {
	uint64_t *hashes;
	unsigned char *records;
	size_t record_size;
	size_t cap, n;          /* cap is 0 or a power of two */
};

#define OL_HASHTAB_INIT(type) { NULL, NULL, sizeof(type), 0, 0 }

/* Does the record hold `key`? */
typedef int (*ol_hashtab_eq)(const void *record, const void *key);

/* The record of `key` (whose hash is `hash`), or NULL. */
void *ol_hashtab_find(const struct ol_hashtab *t, uint64_t hash, ol_hashtab_eq eq, const void *key);
/* The record of `key`, added zeroed when it was not there (*added says so;
 * the caller fills it in); NULL when memory runs out, the table as it was. */
void *ol_hashtab_try_insert(struct ol_hashtab *t, uint64_t hash, ol_hashtab_eq eq,
			    const void *key, int *added);
static inline void *ol_hashtab_insert(struct ol_hashtab *t, uint64_t hash, ol_hashtab_eq eq,
				      const void *key, int *added)
{
	void *record = ol_hashtab_try_insert(t, hash, eq, key, added);

	if (!record)
		ol_fatal("out of memory");
	return record;
}
void ol_hashtab_release(struct ol_hashtab *t);

/* Hashes for keys: bytes and strings (FNV-1a), pointers (a mix of their bits). */
uint64_t ol_hash_bytes(uint64_t seed, const void *data, size_t size);
uint64_t ol_hash_string(const char *s);
uint64_t ol_hash_pointer(const void *p);
#define OL_HASH_SEED 14695981039346656037ull

#endif
