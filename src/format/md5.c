/* md5: RFC 1321, written from the RFC's description.  See offload/md5.h. */
#include "offload/md5.h"

#include <string.h>

static uint32_t rotate_left(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* One 64-byte block into the state a, b, c, d (RFC 1321 section 3.4). */
static void md5_block(uint32_t state[4], const uint8_t block[64])
{
	/* Per-round shift amounts and K[i] = floor(abs(sin(i + 1)) * 2^32). */
	static const unsigned shifts[4][4] = {
		{ 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 },
	};
	static const uint32_t k[64] = {
		0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
		0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
		0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
		0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
		0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
		0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
		0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
		0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
		0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
		0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
		0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
	};
	uint32_t x[16], a = state[0], b = state[1], c = state[2], d = state[3];

	for (unsigned i = 0; i < 16; i++)
		x[i] = load_le32(block + 4 * i);
	for (unsigned i = 0; i < 64; i++) {
		unsigned round = i / 16, word;
		uint32_t f, rotated;

		switch (round) {
		case 0: f = (b & c) | (~b & d); word = i; break;
		case 1: f = (d & b) | (~d & c); word = (5 * i + 1) % 16; break;
		case 2: f = b ^ c ^ d; word = (3 * i + 5) % 16; break;
		default: f = c ^ (b | ~d); word = (7 * i) % 16; break;
		}
		rotated = b + rotate_left(a + f + k[i] + x[word], shifts[round][i % 4]);
		a = d;
		d = c;
		c = b;
		b = rotated;
	}
	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
}

void ol_md5(const void *data, size_t size, uint8_t digest[OL_MD5_SIZE])
{
	uint32_t state[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
	const uint8_t *p = data;
	uint64_t bits = (uint64_t)size * 8;
	uint8_t tail[128];
	size_t rest, tail_len;

	for (; size >= 64; p += 64, size -= 64)
		md5_block(state, p);
	/* Padding: 0x80, zeros up to 56 mod 64, then the length in bits. */
	rest = size;
	memset(tail, 0, sizeof(tail));
	if (rest)
		memcpy(tail, p, rest);
	tail[rest] = 0x80;
	tail_len = rest < 56 ? 64 : 128;
	for (unsigned i = 0; i < 8; i++)
		tail[tail_len - 8 + i] = (uint8_t)(bits >> (8 * i));
	md5_block(state, tail);
	if (tail_len == 128)
		md5_block(state, tail + 64);
	for (unsigned i = 0; i < 4; i++)
		store_le32(digest + 4 * i, state[i]);
}

uint64_t ol_md5_low(const uint8_t digest[OL_MD5_SIZE])
{
	uint64_t low = 0;

	for (int i = 7; i >= 0; i--)
		low = low << 8 | digest[i];
	return low;
}
