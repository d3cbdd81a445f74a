/*
 * xxh3: XXH3-64 (seed 0, default secret), after the algorithm's
 * specification in xxHash (BSD-2-Clause, Yann Collet): the short paths for
 * up to 16, 128 and 240 bytes and the striped long path beyond.
 */
#include "offload/xxh3.h"

#include <string.h>

#define PRIME32_1 0x9E3779B1u
#define PRIME32_2 0x85EBCA77u
#define PRIME32_3 0xC2B2AE3Du
#define PRIME64_1 0x9E3779B185EBCA87ull
#define PRIME64_2 0xC2B2AE3D27D4EB4Full
#define PRIME64_3 0x165667B19E3779F9ull
#define PRIME64_4 0x85EBCA77C2B2AE63ull
#define PRIME64_5 0x27D4EB2F165667C5ull
#define PRIME_MX1 0x165667919E3779F9ull
#define PRIME_MX2 0x9FB21C651E98DF25ull

#define SECRET_SIZE 192
#define STRIPE_LEN 64
#define ACC_COUNT 8

static const uint8_t secret[SECRET_SIZE] = {
	0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
	0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
	0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
	0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
	0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
	0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
	0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
	0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
	0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
	0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
	0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
	0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

static uint32_t read32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t read64(const uint8_t *p)
{
	return (uint64_t)read32(p) | (uint64_t)read32(p + 4) << 32;
}

static uint64_t rotl64(uint64_t v, int r)
{
	return v << r | v >> (64 - r);
}

static uint64_t swap64(uint64_t v)
{
	return __builtin_bswap64(v);
}

/* The 128-bit product's halves, folded together. */
static uint64_t mul128_fold64(uint64_t a, uint64_t b)
{
	unsigned __int128 product = (unsigned __int128)a * b;

	return (uint64_t)product ^ (uint64_t)(product >> 64);
}

static uint64_t xxh64_avalanche(uint64_t h)
{
	h ^= h >> 33;
	h *= PRIME64_2;
	h ^= h >> 29;
	h *= PRIME64_3;
	return h ^ (h >> 32);
}

static uint64_t xxh3_avalanche(uint64_t h)
{
	h ^= h >> 37;
	h *= PRIME_MX1;
	return h ^ (h >> 32);
}

static uint64_t rrmxmx(uint64_t h, uint64_t len)
{
	h ^= rotl64(h, 49) ^ rotl64(h, 24);
	h *= PRIME_MX2;
	h ^= (h >> 35) + len;
	h *= PRIME_MX2;
	return h ^ (h >> 28);
}

static uint64_t mix16(const uint8_t *in, const uint8_t *sec)
{
	return mul128_fold64(read64(in) ^ read64(sec), read64(in + 8) ^ read64(sec + 8));
}

static uint64_t hash_0_to_16(const uint8_t *in, size_t len)
{
	if (len > 8) {
		uint64_t lo = read64(in) ^ (read64(secret + 24) ^ read64(secret + 32));
		uint64_t hi = read64(in + len - 8) ^ (read64(secret + 40) ^ read64(secret + 48));

		return xxh3_avalanche(len + swap64(lo) + hi + mul128_fold64(lo, hi));
	}
	if (len >= 4) {
		uint64_t joined = read32(in + len - 4) + ((uint64_t)read32(in) << 32);

		return rrmxmx(joined ^ (read64(secret + 8) ^ read64(secret + 16)), len);
	}
	if (len > 0) {
		uint32_t combined = (uint32_t)in[0] << 16 | (uint32_t)in[len >> 1] << 24 |
				    (uint32_t)in[len - 1] | (uint32_t)len << 8;

		return xxh64_avalanche(combined ^ (uint64_t)(read32(secret) ^ read32(secret + 4)));
	}
	return xxh64_avalanche(read64(secret + 56) ^ read64(secret + 64));
}

static uint64_t hash_17_to_128(const uint8_t *in, size_t len)
{
	uint64_t acc = len * PRIME64_1;

	if (len > 32) {
		if (len > 64) {
			if (len > 96) {
				acc += mix16(in + 48, secret + 96);
				acc += mix16(in + len - 64, secret + 112);
			}
			acc += mix16(in + 32, secret + 64);
			acc += mix16(in + len - 48, secret + 80);
		}
		acc += mix16(in + 16, secret + 32);
		acc += mix16(in + len - 32, secret + 48);
	}
	acc += mix16(in, secret);
	acc += mix16(in + len - 16, secret + 16);
	return xxh3_avalanche(acc);
}

static uint64_t hash_129_to_240(const uint8_t *in, size_t len)
{
	uint64_t acc = len * PRIME64_1;
	size_t rounds = len / 16;

	for (size_t i = 0; i < 8; i++)
		acc += mix16(in + 16 * i, secret + 16 * i);
	acc = xxh3_avalanche(acc);
	for (size_t i = 8; i < rounds; i++)
		acc += mix16(in + 16 * i, secret + 16 * (i - 8) + 3);
	acc += mix16(in + len - 16, secret + 136 - 17);
	return xxh3_avalanche(acc);
}

static void accumulate_stripe(uint64_t acc[ACC_COUNT], const uint8_t *in, const uint8_t *sec)
{
	for (int i = 0; i < ACC_COUNT; i++) {
		uint64_t value = read64(in + 8 * i);
		uint64_t keyed = value ^ read64(sec + 8 * i);

		acc[i ^ 1] += value;
		acc[i] += (uint64_t)(uint32_t)keyed * (keyed >> 32);
	}
}

static void scramble(uint64_t acc[ACC_COUNT], const uint8_t *sec)
{
	for (int i = 0; i < ACC_COUNT; i++) {
		uint64_t a = acc[i];

		a ^= a >> 47;
		a ^= read64(sec + 8 * i);
		acc[i] = a * PRIME32_1;
	}
}

static uint64_t hash_long(const uint8_t *in, size_t len)
{
	uint64_t acc[ACC_COUNT] = { PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3,
				    PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1 };
	const size_t stripes_per_block = (SECRET_SIZE - STRIPE_LEN) / 8;
	const size_t block_len = STRIPE_LEN * stripes_per_block;
	size_t blocks = (len - 1) / block_len, last_stripes;
	uint64_t result = len * PRIME64_1;

	for (size_t b = 0; b < blocks; b++) {
		for (size_t s = 0; s < stripes_per_block; s++)
			accumulate_stripe(acc, in + b * block_len + s * STRIPE_LEN, secret + s * 8);
		scramble(acc, secret + SECRET_SIZE - STRIPE_LEN);
	}
	last_stripes = ((len - 1) - block_len * blocks) / STRIPE_LEN;
	for (size_t s = 0; s < last_stripes; s++)
		accumulate_stripe(acc, in + blocks * block_len + s * STRIPE_LEN, secret + s * 8);
	accumulate_stripe(acc, in + len - STRIPE_LEN, secret + SECRET_SIZE - STRIPE_LEN - 7);
	for (int i = 0; i < 4; i++)
		result += mul128_fold64(acc[2 * i] ^ read64(secret + 11 + 16 * i),
					acc[2 * i + 1] ^ read64(secret + 11 + 16 * i + 8));
	return xxh3_avalanche(result);
}

uint64_t ol_xxh3_64(const void *data, size_t len)
{
	const uint8_t *in = data;

	if (len <= 16)
		return hash_0_to_16(in, len);
	if (len <= 128)
		return hash_17_to_128(in, len);
	if (len <= 240)
		return hash_129_to_240(in, len);
	return hash_long(in, len);
}
