/* sha256: FIPS 180-4 SHA-256.  See include/offload/sha256.h. */
#include "offload/sha256.h"
#include "sha256_internal.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define OL_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#include <stdatomic.h>
#endif

static const uint32_t round_constants[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t state[8], const uint8_t block[64])
{
	uint32_t w[64], a, b, c, d, e, f, g, h;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
		       (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = state[0], b = state[1], c = state[2], d = state[3];
	e = state[4], f = state[5], g = state[6], h = state[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
			      round_constants[i] + w[i];
		uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	state[0] += a, state[1] += b, state[2] += c, state[3] += d;
	state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

#ifdef OL_SHA256_X86
/*
 * The same blocks through the SHA extensions (x86 SHA-NI), where the
 * processor has them: a link hashes every input image for its cache key,
 * hundreds of megabytes in a large program, several times faster so.  The
 * state travels as two registers, ABEF and CDGH; each sha256rnds2 does two
 * rounds from the low half of its message operand.
 */
__attribute__((target("sha,sse4.1")))
static void compress_shani(uint32_t state[8], const uint8_t *data, size_t nblocks)
{
	const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i abef, cdgh, tmp, msg, w[4];

	tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xb1);  /* CDAB */
	cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1b); /* EFGH */
	abef = _mm_alignr_epi8(tmp, cdgh, 8);
	cdgh = _mm_blend_epi16(cdgh, tmp, 0xf0);
	for (; nblocks > 0; nblocks--, data += 64) {
		__m128i abef_before = abef, cdgh_before = cdgh;

		for (int i = 0; i < 16; i++) {
			__m128i *now = &w[i & 3];

			if (i < 4) {
				*now = _mm_shuffle_epi8(
					_mm_loadu_si128((const __m128i *)(data + 16 * i)), byte_swap);
			} else {
				/* W[t-16] + s0(W[t-15]), + W[t-7], + s1(W[t-2]). */
				msg = _mm_sha256msg1_epu32(*now, w[(i + 1) & 3]);
				msg = _mm_add_epi32(msg, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
				*now = _mm_sha256msg2_epu32(msg, w[(i + 3) & 3]);
			}
			msg = _mm_add_epi32(*now, _mm_loadu_si128((const __m128i *)&round_constants[4 * i]));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(msg, 0x0e));
		}
		abef = _mm_add_epi32(abef, abef_before);
		cdgh = _mm_add_epi32(cdgh, cdgh_before);
	}
	tmp = _mm_shuffle_epi32(abef, 0x1b);   /* FEBA */
	cdgh = _mm_shuffle_epi32(cdgh, 0xb1);  /* DCHG */
	_mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(tmp, cdgh, 0xf0)); /* DCBA */
	_mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(cdgh, tmp, 8));    /* HGFE */
}

static int has_sha_extensions(void)
{
	static atomic_int known = -1;
	int has = atomic_load_explicit(&known, memory_order_relaxed);
	unsigned a, b, c, d;

	if (has >= 0)
		return has;
	has = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3) &&
	      __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
	atomic_store_explicit(&known, has, memory_order_relaxed);
	return has;
}
#endif

void ol_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t nblocks)
{
	for (; nblocks > 0; nblocks--, data += 64)
		compress(state, data);
}

int ol_sha256_blocks_accelerated(uint32_t state[8], const uint8_t *data, size_t nblocks)
{
#ifdef OL_SHA256_X86
	if (has_sha_extensions()) {
		compress_shani(state, data, nblocks);
		return 0;
	}
#else
	(void)state, (void)data, (void)nblocks;
#endif
	return -1;
}

static void compress_blocks(uint32_t state[8], const uint8_t *data, size_t nblocks)
{
	if (ol_sha256_blocks_accelerated(state, data, nblocks) < 0)
		ol_sha256_blocks_portable(state, data, nblocks);
}

void ol_sha256_init(struct ol_sha256 *h)
{
	static const uint32_t initial[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(h->state, initial, sizeof(initial));
	h->length = 0;
	h->fill = 0;
}

void ol_sha256_update(struct ol_sha256 *h, const void *data, size_t size)
{
	const uint8_t *p = data;

	h->length += size;
	if (h->fill) {
		size_t take = 64 - h->fill < size ? 64 - h->fill : size;
		memcpy(h->block + h->fill, p, take);
		h->fill += take;
		p += take;
		size -= take;
		if (h->fill < 64)
			return;
		compress_blocks(h->state, h->block, 1);
		h->fill = 0;
	}
	compress_blocks(h->state, p, size / 64);
	p += size / 64 * 64;
	size %= 64;
	memcpy(h->block, p, size);
	h->fill = size;
}

void ol_sha256_final(struct ol_sha256 *h, uint8_t digest[OL_SHA256_SIZE])
{
	uint64_t bits = h->length * 8;
	uint8_t pad[72] = { 0x80 };
	size_t npad = (h->fill < 56 ? 56 : 120) - h->fill;

	for (int i = 0; i < 8; i++)
		pad[npad + i] = (uint8_t)(bits >> (56 - 8 * i));
	ol_sha256_update(h, pad, npad + 8);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = (uint8_t)(h->state[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(h->state[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(h->state[i] >> 8);
		digest[4 * i + 3] = (uint8_t)h->state[i];
	}
}

void ol_sha256(const void *data, size_t size, uint8_t digest[OL_SHA256_SIZE])
{
	struct ol_sha256 h;

	ol_sha256_init(&h);
	ol_sha256_update(&h, data, size);
	ol_sha256_final(&h, digest);
}

void ol_sha256_hex(const uint8_t digest[OL_SHA256_SIZE], char hex[2 * OL_SHA256_SIZE + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < OL_SHA256_SIZE; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[2 * OL_SHA256_SIZE] = '\0';
}
