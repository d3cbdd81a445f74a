/*
 * md5: RFC 1321, written from the specification.  Blocks are read
 * little-endian byte by byte, so input alignment does not matter.
 */
#include "offload/md5.h"

#include <string.h>

/* floor(abs(sin(i + 1)) * 2^32), RFC 1321 section 3.4. */
static const uint32_t sine_table[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

/* Left-rotation amounts: four per round, repeated for the round's 16 steps. */
static const uint8_t rotations[4][4] = {
	{ 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 },
};

static uint32_t rotate_left(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void transform(uint32_t state[4], const uint8_t block[64])
{
	uint32_t words[16];
	uint32_t a = state[0], b = state[1], c = state[2], d = state[3];

	for (int i = 0; i < 16; i++)
		words[i] = (uint32_t)block[4 * i] | (uint32_t)block[4 * i + 1] << 8 |
			   (uint32_t)block[4 * i + 2] << 16 | (uint32_t)block[4 * i + 3] << 24;
	for (int i = 0; i < 64; i++) {
		int round = i / 16;
		uint32_t f, next;
		int word;

		switch (round) {
		case 0: f = (b & c) | (~b & d); word = i; break;
		case 1: f = (d & b) | (~d & c); word = (5 * i + 1) % 16; break;
		case 2: f = b ^ c ^ d; word = (3 * i + 5) % 16; break;
		default: f = c ^ (b | ~d); word = (7 * i) % 16; break;
		}
		next = b + rotate_left(a + f + sine_table[i] + words[word], rotations[round][i % 4]);
		a = d;
		d = c;
		c = b;
		b = next;
	}
	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
}

void ol_md5_init(struct ol_md5 *md5)
{
	md5->state[0] = 0x67452301;
	md5->state[1] = 0xefcdab89;
	md5->state[2] = 0x98badcfe;
	md5->state[3] = 0x10325476;
	md5->length = 0;
}

void ol_md5_update(struct ol_md5 *md5, const void *data, size_t size)
{
	const uint8_t *p = data;
	size_t used = (size_t)(md5->length % 64);

	if (!size)
		return;   /* data may be NULL then */
	md5->length += size;
	if (used) {
		size_t take = 64 - used < size ? 64 - used : size;

		memcpy(md5->block + used, p, take);
		p += take;
		size -= take;
		if (used + take < 64)
			return;
		transform(md5->state, md5->block);
	}
	for (; size >= 64; p += 64, size -= 64)
		transform(md5->state, p);
	if (size)
		memcpy(md5->block, p, size);
}

void ol_md5_final(struct ol_md5 *md5, uint8_t digest[OL_MD5_SIZE])
{
	static const uint8_t padding[64] = { 0x80 };
	uint64_t bits = md5->length * 8;
	size_t used = (size_t)(md5->length % 64);
	uint8_t length_le[8];

	for (int i = 0; i < 8; i++)
		length_le[i] = (uint8_t)(bits >> (8 * i));
	/* A 1 bit, zeros up to 56 mod 64, then the bit length. */
	ol_md5_update(md5, padding, used < 56 ? 56 - used : 120 - used);
	ol_md5_update(md5, length_le, 8);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			digest[4 * i + j] = (uint8_t)(md5->state[i] >> (8 * j));
}

void ol_md5(const void *data, size_t size, uint8_t digest[OL_MD5_SIZE])
{
	struct ol_md5 md5;

	ol_md5_init(&md5);
	ol_md5_update(&md5, data, size);
	ol_md5_final(&md5, digest);
}

uint64_t ol_md5_low(const uint8_t digest[OL_MD5_SIZE])
{
	uint64_t low = 0;

	for (int i = 7; i >= 0; i--)
		low = low << 8 | digest[i];
	return low;
}
