/* hashtab: open addressing, linear probing, half full at most (offload/hashtab.h).
 * Plain C and libc: the LLVM backend compiles this file into itself. */
#include "offload/hashtab.h"

#include <stdlib.h>
#include <string.h>

uint64_t ol_hash_bytes(uint64_t seed, const void *data, size_t size)
{
	const unsigned char *p = data;
	uint64_t h = seed;

	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 1099511628211ull;   /* FNV-1a */
	return h;
}

uint64_t ol_hash_string(const char *s)
{
	uint64_t h = OL_HASH_SEED;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

uint64_t ol_hash_pointer(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static uint64_t stored(uint64_t hash)
{
	return hash ? hash : 1;
}

static void *record_at(const struct ol_hashtab *t, size_t i)
{
	return t->records + i * t->record_size;
}

/* The slot holding key, or the empty slot where it would go (cap > 0). */
static size_t probe(const struct ol_hashtab *t, uint64_t hash, ol_hashtab_eq eq, const void *key)
{
	size_t mask = t->cap - 1, i = (size_t)hash & mask;

	for (;; i = (i + 1) & mask)
		if (!t->hashes[i] || (t->hashes[i] == hash && eq(record_at(t, i), key)))
			return i;
}

void *ol_hashtab_find(const struct ol_hashtab *t, uint64_t hash, ol_hashtab_eq eq, const void *key)
{
	size_t i;

	if (!t->cap)
		return NULL;
	hash = stored(hash);
	i = probe(t, hash, eq, key);
	return t->hashes[i] ? record_at(t, i) : NULL;
}

/* 0, or -1 when memory runs out (the table as it was). */
static int grow(struct ol_hashtab *t)
{
	struct ol_hashtab bigger = { NULL, NULL, t->record_size, t->cap ? 2 * t->cap : 64, t->n };

	bigger.hashes = calloc(bigger.cap, sizeof(*bigger.hashes));
	bigger.records = calloc(bigger.cap, t->record_size ? t->record_size : 1);
	if (!bigger.hashes || !bigger.records) {
		free(bigger.hashes);
		free(bigger.records);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->hashes[i])
			continue;
		for (j = (size_t)t->hashes[i] & (bigger.cap - 1); bigger.hashes[j];
		     j = (j + 1) & (bigger.cap - 1))
			;
		bigger.hashes[j] = t->hashes[i];
		memcpy(record_at(&bigger, j), record_at(t, i), t->record_size);
	}
	free(t->hashes);
	free(t->records);
	*t = bigger;
	return 0;
}

void *ol_hashtab_try_insert(struct ol_hashtab *t, uint64_t hash, ol_hashtab_eq eq,
			    const void *key, int *added)
{
	size_t i;

	*added = 0;
	if (2 * (t->n + 1) > t->cap && grow(t) < 0)
		return NULL;
	hash = stored(hash);
	i = probe(t, hash, eq, key);
	*added = !t->hashes[i];
	if (*added) {
		t->hashes[i] = hash;
		t->n++;
	}
	return record_at(t, i);
}

void ol_hashtab_release(struct ol_hashtab *t)
{
	free(t->hashes);
	free(t->records);
	t->hashes = NULL;
	t->records = NULL;
	t->cap = t->n = 0;
}
