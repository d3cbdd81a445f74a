/*
 * llvm_map_order: LLVM's StringMap and DenseMap<StringRef> iteration order
 * (include/offload/llvm_map_order.h), which decides the order of the entries
 * upstream's packagers write, so a byte format of its own.  Only the bucket
 * walk is emulated: insertion, probing and growth, with the keys' hashes.
 */
#include "offload/llvm_map_order.h"
#include "offload/diag.h"
#include "format_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY SIZE_MAX

static uint32_t djb_hash(const char *s)
{
	uint32_t h = 0;   /* StringMap passes seed 0, not djb's 5381 */

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h << 5) + h + *p;
	return h;
}

/* llvm::hash_value(StringRef) (ADT/Hashing.h, a CityHash variant), with
 * the fixed seed of builds without ABI-breaking checks, as Debian's are. */
#define K0 0xc3a5c85c97cb3127ull
#define K1 0xb492b66fbe98f273ull
#define K2 0x9ae16a3b2f90404full
#define K3 0xc949d7c7509e6557ull
#define EXECUTION_SEED 0xff51afd7ed558ccdull

/* Hashing.h reads little-endian words at any alignment. */
static uint64_t fetch64(const char *p)
{
	return ol_get64le((const uint8_t *)p);
}

static uint64_t fetch32(const char *p)
{
	return ol_get32le((const uint8_t *)p);
}

static uint64_t rotr(uint64_t v, unsigned shift)
{
	return shift == 0 ? v : v >> shift | v << (64 - shift);
}

static uint64_t shift_mix(uint64_t v)
{
	return v ^ (v >> 47);
}

static uint64_t hash_16_bytes(uint64_t low, uint64_t high)
{
	const uint64_t mul = 0x9ddfea08eb382d69ull;
	uint64_t a = (low ^ high) * mul, b;

	a ^= a >> 47;
	b = (high ^ a) * mul;
	b ^= b >> 47;
	return b * mul;
}

static uint64_t hash_short(const char *s, size_t len, uint64_t seed)
{
	if (len >= 4 && len <= 8)
		return hash_16_bytes(len + (fetch32(s) << 3), seed ^ fetch32(s + len - 4));
	if (len > 8 && len <= 16) {
		uint64_t a = fetch64(s), b = fetch64(s + len - 8);

		return hash_16_bytes(seed ^ a, rotr(b + len, (unsigned)len)) ^ b;
	}
	if (len > 16 && len <= 32) {
		uint64_t a = fetch64(s) * K1, b = fetch64(s + 8);
		uint64_t c = fetch64(s + len - 8) * K2, d = fetch64(s + len - 16) * K0;

		return hash_16_bytes(rotr(a - b, 43) + rotr(c ^ seed, 30) + d,
				     a + rotr(b ^ K3, 20) - c + len + seed);
	}
	if (len > 32) {
		uint64_t z = fetch64(s + 24), a = fetch64(s) + (len + fetch64(s + len - 16)) * K0;
		uint64_t b = rotr(a + z, 52), c = rotr(a, 37), vf, vs, wf, ws, r;

		a += fetch64(s + 8);
		c += rotr(a, 7);
		a += fetch64(s + 16);
		vf = a + z;
		vs = b + rotr(a, 31) + c;
		a = fetch64(s + 16) + fetch64(s + len - 32);
		z = fetch64(s + len - 8);
		b = rotr(a + z, 52);
		c = rotr(a, 37);
		a += fetch64(s + len - 24);
		c += rotr(a, 7);
		a += fetch64(s + len - 16);
		wf = a + z;
		ws = b + rotr(a, 31) + c;
		r = shift_mix((vf + ws) * K2 + (wf + vs) * K0);
		return shift_mix((seed ^ (r * K0)) + vs) * K2;
	}
	if (len != 0) {
		uint32_t y = (uint32_t)(unsigned char)s[0] + ((uint32_t)(unsigned char)s[len >> 1] << 8);
		uint32_t z = (uint32_t)len + ((uint32_t)(unsigned char)s[len - 1] << 2);

		return shift_mix((uint64_t)y * K2 ^ (uint64_t)z * K3 ^ seed) * K2;
	}
	return K2 ^ seed;
}

struct hash_state {
	uint64_t h0, h1, h2, h3, h4, h5, h6;
};

static void mix_32_bytes(const char *s, uint64_t *a, uint64_t *b)
{
	uint64_t c = fetch64(s + 24), d;

	*a += fetch64(s);
	*b = rotr(*b + *a + c, 21);
	d = *a;
	*a += fetch64(s + 8) + fetch64(s + 16);
	*b += rotr(*a, 44) + d;
	*a += c;
}

static void state_mix(struct hash_state *st, const char *s)
{
	uint64_t swap;

	st->h0 = rotr(st->h0 + st->h1 + st->h3 + fetch64(s + 8), 37) * K1;
	st->h1 = rotr(st->h1 + st->h4 + fetch64(s + 48), 42) * K1;
	st->h0 ^= st->h6;
	st->h1 += st->h3 + fetch64(s + 40);
	st->h2 = rotr(st->h2 + st->h5, 33) * K1;
	st->h3 = st->h4 * K1;
	st->h4 = st->h0 + st->h5;
	mix_32_bytes(s, &st->h3, &st->h4);
	st->h5 = st->h2 + st->h6;
	st->h6 = st->h1 + fetch64(s + 16);
	mix_32_bytes(s + 32, &st->h5, &st->h6);
	swap = st->h2;
	st->h2 = st->h0;
	st->h0 = swap;
}

static uint64_t llvm_hash_bytes(const char *s, size_t len)
{
	const uint64_t seed = EXECUTION_SEED;
	struct hash_state st;
	const char *end = s + len, *aligned_end = s + (len & ~(size_t)63);

	if (len <= 64)
		return hash_short(s, len, seed);
	st = (struct hash_state){ 0, seed, hash_16_bytes(seed, K1), rotr(seed ^ K1, 49),
				  seed * K1, shift_mix(seed), 0 };
	st.h6 = hash_16_bytes(st.h4, st.h5);
	state_mix(&st, s);
	for (s += 64; s != aligned_end; s += 64)
		state_mix(&st, s);
	if (len & 63)
		state_mix(&st, end - 64);
	return hash_16_bytes(hash_16_bytes(st.h3, st.h5) + shift_mix(st.h1) * K1 + st.h2,
			     hash_16_bytes(st.h4, st.h6) + shift_mix(len) * K1 + st.h0);
}

static uint32_t key_hash(enum ol_llvm_map map, const char *key)
{
	switch (map) {
	case OL_LLVM_STRINGMAP_16:
		return djb_hash(key);
	default:
		return (uint32_t)llvm_hash_bytes(key, strlen(key));
	}
}

/* The bucket a hash lands in, probing past occupied ones. */
static size_t place(const size_t *buckets, size_t nbuckets, uint32_t hash)
{
	size_t at = hash & (nbuckets - 1), step = 1;

	while (buckets[at] != EMPTY)
		at = (at + step++) & (nbuckets - 1);
	return at;
}

static size_t *rehash(size_t *buckets, size_t nbuckets, size_t new_size, const uint32_t *hashes)
{
	size_t *grown = ol_xmalloc(new_size * sizeof(*grown));

	for (size_t i = 0; i < new_size; i++)
		grown[i] = EMPTY;
	for (size_t i = 0; i < nbuckets; i++)
		if (buckets[i] != EMPTY)
			grown[place(grown, new_size, hashes[buckets[i]])] = buckets[i];
	free(buckets);
	return grown;
}

void ol_llvm_map_order(enum ol_llvm_map map, const char *const *keys, size_t n, size_t *order)
{
	int dense = map == OL_LLVM_DENSEMAP_STRREF;
	/* DenseMap starts at 64 buckets, StringMap at 16. */
	size_t nbuckets = dense ? 64 : 16, k = 0;
	uint32_t *hashes = ol_xmalloc((n ? n : 1) * sizeof(*hashes));
	size_t *buckets = ol_xmalloc(nbuckets * sizeof(*buckets));

	for (size_t i = 0; i < nbuckets; i++)
		buckets[i] = EMPTY;
	for (size_t i = 0; i < n; i++) {
		hashes[i] = key_hash(map, keys[i]);
		/* DenseMap grows before inserting the entry that would fill
		 * three quarters; StringMap after inserting one that passes it. */
		if (dense && (i + 1) * 4 >= nbuckets * 3) {
			buckets = rehash(buckets, nbuckets, 2 * nbuckets, hashes);
			nbuckets *= 2;
		}
		buckets[place(buckets, nbuckets, hashes[i])] = i;
		if (!dense && (i + 1) * 4 > nbuckets * 3) {
			buckets = rehash(buckets, nbuckets, 2 * nbuckets, hashes);
			nbuckets *= 2;
		} else if (!dense && nbuckets - (i + 1) <= nbuckets / 8) {
			buckets = rehash(buckets, nbuckets, nbuckets, hashes);
		}
	}
	for (size_t i = 0; i < nbuckets; i++)
		if (buckets[i] != EMPTY)
			order[k++] = buckets[i];
	free(buckets);
	free(hashes);
}
