/*
 * test_xxh3: ol_xxh3_64 against llvm::xxh3_64bits (libLLVM 19), on the
 * lengths that pick each path of the algorithm and its edges: 0, 1-3, 4-8,
 * 9-16, 17-128, 129-240 and the striped path beyond (one block is 1024
 * bytes).  Input byte i of a length-n buffer is (i*131 + n*7 + i/8) mod 256.
 */
#include "offload/xxh3.h"

#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static const struct {
	size_t len;
	uint64_t hash;
} expected[] = {
	{ 0, 0x2d06800538d394c2ull },    { 1, 0x4c5cca45d0f4811full },
	{ 3, 0xde31dc6f857de05cull },    { 4, 0x4096389f9b7508e9ull },
	{ 8, 0xa2531ca9bc96d2f3ull },    { 9, 0xfd45db1f8beffbadull },
	{ 16, 0x50e5d20d0066ad51ull },   { 17, 0xe28b350a8b61b646ull },
	{ 100, 0x0237b2ec8732fbe4ull },  { 129, 0xdaecea5ce4072cb9ull },
	{ 200, 0x3d1d2f6576676371ull },  { 240, 0xbe2cebc36ce55687ull },
	{ 241, 0xf611c3046d586e93ull },  { 457, 0x4f7c9ab374081b31ull },
	{ 692, 0x8a837a1d89d06a93ull },  { 1045, 0xfd914581ecb7fa86ull },
	{ 1574, 0xb1287208c3a5f0c6ull }, { 2368, 0xa61f09c966831d66ull },
};

int main(void)
{
	for (size_t k = 0; k < sizeof(expected) / sizeof(expected[0]); k++) {
		size_t n = expected[k].len;
		unsigned char *buf = malloc(n ? n : 1);
		uint64_t got;

		for (size_t i = 0; i < n; i++)
			buf[i] = (unsigned char)(i * 131 + n * 7 + (i >> 3));
		got = ol_xxh3_64(buf, n);
		if (got != expected[k].hash)
			fprintf(stderr, "length %zu: %016llx, expected %016llx\n", n,
				(unsigned long long)got, (unsigned long long)expected[k].hash);
		CHECK(got == expected[k].hash);
		free(buf);
	}
	if (failures)
		fprintf(stderr, "test_xxh3: %d check(s) failed\n", failures);
	return failures != 0;
}
