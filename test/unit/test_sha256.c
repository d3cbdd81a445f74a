/* SHA-256 against FIPS 180-4 / NIST test vectors, one-shot and in pieces. */
#include "offload/sha256.h"
#include "check.h"
#include "support/sha256_internal.h"

#include <stdlib.h>
#include <string.h>

static int digest_is(const void *data, size_t size, const char *want)
{
	uint8_t digest[OL_SHA256_SIZE];
	char hex[2 * OL_SHA256_SIZE + 1];

	ol_sha256(data, size, digest);
	ol_sha256_hex(digest, hex);
	if (strcmp(hex, want) != 0)
		fprintf(stderr, "  got %s\n want %s\n", hex, want);
	return strcmp(hex, want) == 0;
}

int main(void)
{
	static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char *million = malloc(1000000);
	struct ol_sha256 h;
	uint8_t a[OL_SHA256_SIZE], b[OL_SHA256_SIZE];

	current_test = "vectors";
	CHECK(digest_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
	CHECK(digest_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
	CHECK(digest_is(two_blocks, strlen(two_blocks),
			"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
	memset(million, 'a', 1000000);
	CHECK(digest_is(million, 1000000,
			"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));

	current_test = "incremental";
	for (size_t step = 1; step < 130; step += 7) {
		ol_sha256_init(&h);
		for (size_t off = 0; off < 1000; off += step)
			ol_sha256_update(&h, million + off, off + step > 1000 ? 1000 - off : step);
		ol_sha256_final(&h, a);
		ol_sha256(million, 1000, b);
		CHECK(memcmp(a, b, sizeof(a)) == 0);
	}
	/* Both block functions, from the same states over the same blocks
	 * (the vectors above took whichever this processor runs). */
	current_test = "extensions";
	{
		uint32_t portable[8], accelerated[8];
		unsigned seed = 12345;

		for (size_t i = 0; i < 1000000; i++)
			million[i] = (char)((seed = seed * 1103515245u + 12345u) >> 16);
		for (size_t blocks = 1; blocks <= 64; blocks += 9) {
			for (int k = 0; k < 8; k++)
				portable[k] = accelerated[k] = (uint32_t)k * 0x9e3779b9u + (uint32_t)blocks;
			ol_sha256_blocks_portable(portable, (const uint8_t *)million + blocks, blocks);
			if (ol_sha256_blocks_accelerated(accelerated, (const uint8_t *)million + blocks,
							 blocks) < 0) {
				printf("  (no SHA extensions on this processor: the portable function only)\n");
				break;
			}
			CHECK(memcmp(portable, accelerated, sizeof(portable)) == 0);
		}
	}
	free(million);
	return failures != 0;
}
