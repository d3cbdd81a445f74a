/*
 * test_md5: the RFC 1321 test suite (appendix A.5), and the same digests
 * when the input arrives in pieces of every size around the 64-byte block.
 */
#include "offload/md5.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

static const struct {
	const char *text;
	const char *digest;
} rfc1321[] = {
	{ "", "d41d8cd98f00b204e9800998ecf8427e" },
	{ "a", "0cc175b9c0f1b6a831c399e269772661" },
	{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
	{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
	{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
	{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	  "d174ab98d277d9f5a5611c2c9f419d9f" },
	{ "1234567890123456789012345678901234567890"
	  "1234567890123456789012345678901234567890",
	  "57edf4a22be3c955ac49da2e2107b67a" },
};

static void hex(const uint8_t digest[OL_MD5_SIZE], char out[2 * OL_MD5_SIZE + 1])
{
	for (int i = 0; i < OL_MD5_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

static void test_rfc_suite(void)
{
	current_test = "rfc1321";
	for (size_t i = 0; i < sizeof(rfc1321) / sizeof(rfc1321[0]); i++) {
		uint8_t digest[OL_MD5_SIZE];
		char text[2 * OL_MD5_SIZE + 1];

		ol_md5(rfc1321[i].text, strlen(rfc1321[i].text), digest);
		hex(digest, text);
		if (strcmp(text, rfc1321[i].digest)) {
			fprintf(stderr, "md5(\"%s\") = %s, expected %s\n", rfc1321[i].text, text,
				rfc1321[i].digest);
			failures++;
		}
	}
}

/* Feeding 1..130 bytes at a time crosses the block and padding boundaries
 * (55/56/63/64 bytes) in every way; the digest must not change. */
static void test_pieces(void)
{
	uint8_t data[1000], whole[OL_MD5_SIZE];

	current_test = "pieces";
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + (i >> 3));
	for (size_t len = 0; len <= 200; len++) {
		ol_md5(data, len, whole);
		for (size_t piece = 1; piece <= 130; piece += piece < 10 ? 1 : 11) {
			struct ol_md5 md5;
			uint8_t digest[OL_MD5_SIZE];

			ol_md5_init(&md5);
			for (size_t at = 0; at < len; at += piece)
				ol_md5_update(&md5, data + at, len - at < piece ? len - at : piece);
			ol_md5_update(&md5, NULL, 0);
			ol_md5_final(&md5, digest);
			CHECK(!memcmp(digest, whole, OL_MD5_SIZE));
		}
	}
	/* The million 'a's of the classic MD5 checks. */
	{
		struct ol_md5 md5;
		uint8_t digest[OL_MD5_SIZE];
		char text[2 * OL_MD5_SIZE + 1];

		memset(data, 'a', sizeof(data));
		ol_md5_init(&md5);
		for (int i = 0; i < 1000; i++)
			ol_md5_update(&md5, data, sizeof(data));
		ol_md5_final(&md5, digest);
		hex(digest, text);
		CHECK(!strcmp(text, "7707d6ae4e027c70eea2a935c2296f21"));
	}
}

/* The low word upstream prints for an empty output under --dry-run
 * (spec 6.1: the relocatable sections' suffix "_4b2008fd98c1dd4"). */
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
	test_rfc_suite();
	test_pieces();
	test_low_word();
	if (failures)
		fprintf(stderr, "test_md5: %d check(s) failed\n", failures);
	return failures != 0;
}
