/*
 * md5: the test suite of RFC 1321 (appendix A.5), inputs that straddle the
 * padding boundaries (55, 56, 63, 64 and 65 bytes, against digests from
 * coreutils' md5sum), and the low word upstream prints for an empty output
 * under --dry-run (spec 6.1: "_4b2008fd98c1dd4").
 */
#include "check.h"
#include "offload/md5.h"

#include <stdio.h>
#include <string.h>

static void hex(const uint8_t digest[OL_MD5_SIZE], char out[2 * OL_MD5_SIZE + 1])
{
	for (int i = 0; i < OL_MD5_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

static int digest_is(const void *data, size_t size, const char *want)
{
	uint8_t digest[OL_MD5_SIZE];
	char got[2 * OL_MD5_SIZE + 1];

	ol_md5(data, size, digest);
	hex(digest, got);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "md5 of %zu bytes: got %s, want %s\n", size, got, want);
	return strcmp(got, want) == 0;
}

static void test_rfc1321(void)
{
	static const struct {
		const char *input, *digest;
	} cases[] = {
		{ "", "d41d8cd98f00b204e9800998ecf8427e" },
		{ "a", "0cc175b9c0f1b6a831c399e269772661" },
		{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
		{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
		{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		  "d174ab98d277d9f5a5611c2c9f419d9f" },
		{ "1234567890123456789012345678901234567890123456789012345678901234567890"
		  "1234567890",
		  "57edf4a22be3c955ac49da2e2107b67a" },
	};

	current_test = "RFC 1321";
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(digest_is(cases[i].input, strlen(cases[i].input), cases[i].digest));
}

static void test_block_boundaries(void)
{
	static const struct {
		size_t size;
		const char *digest;   /* of `size` bytes 'x' (md5sum) */
	} cases[] = {
		{ 55, "04364420e25c512fd958a70738aa8f72" },
		{ 56, "668a72d5ba17f08e62dabcafad6db14b" },
		{ 63, "7dc2ca208106a2f703567bdff99d8981" },
		{ 64, "c1bb4f81d892b2d57947682aeb252456" },
		{ 65, "1bc932052302d074bdec39795fe00cf6" },
	};
	char buf[65];

	current_test = "block boundaries";
	memset(buf, 'x', sizeof(buf));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(digest_is(buf, cases[i].size, cases[i].digest));
}

static void test_low_word(void)
{
	uint8_t digest[OL_MD5_SIZE];
	char printed[32];

	current_test = "low word";
	ol_md5("", 0, digest);
	snprintf(printed, sizeof(printed), "%llx", (unsigned long long)ol_md5_low(digest));
	CHECK(strcmp(printed, "4b2008fd98c1dd4") == 0);
}

int main(void)
{
	test_rfc1321();
	test_block_boundaries();
	test_low_word();
	return failures != 0;
}
