/*
 * test_offload_bundle: the clang-offload-bundler container and CCOB.
 *
 * Without tools: the writer's layout, the id rewriting of each release (the
 * expectations are what the installed bundlers wrote when tried by hand),
 * round trips through every compression variant, and every reader error with
 * its exact message and offset, every truncation and random bit flips (this
 * file also runs under ASan/UBSan).
 *
 * With /usr/lib/llvm-{16,19,22}/bin/clang-offload-bundler (each release
 * skipped with a message when absent): ours equals the bundler's output for
 * the wrapper's command, uncompressed and compressed at several levels;
 * the bundler unbundles ours, compressed or not, back to the images; we read
 * its outputs; and it writes the id ol_bundle_entry_id() predicts for every
 * arch of our table and for odd target strings.  Images are small AMDGPU
 * objects from clang-22 when it is installed, and a 3 MiB synthetic one
 * whose repeats lie megabytes apart (long-distance matching).
 */
#include "offload/md5.h"
#include "offload/offload_bundle.h"
#include "offload/strvec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "external_tools.h"

/* "-input=<a one-byte file>", made by main(). */
static char one_byte_input[600];

#define TEST "test_offload_bundle"

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Reports the first difference of two buffers; returns whether equal. */
static int same_bytes(const char *what, const uint8_t *ours, size_t our_size,
		      const uint8_t *theirs, size_t their_size)
{
	size_t n = our_size < their_size ? our_size : their_size;

	if (our_size == their_size && (n == 0 || !memcmp(ours, theirs, n)))
		return 1;
	fprintf(stderr, "%s: %s differs: %zu bytes, expected %zu", TEST, what, our_size, their_size);
	for (size_t i = 0; i < n; i++)
		if (ours[i] != theirs[i]) {
			fprintf(stderr, "; first difference at 0x%zx: 0x%02x, expected 0x%02x", i,
				ours[i], theirs[i]);
			break;
		}
	fprintf(stderr, "\n");
	failures++;
	return 0;
}

/* ---- ids -------------------------------------------------------------- */

static const struct {
	int release;
	const char *target, *id;
} id_cases[] = {
	{ 16, "host-x86_64-unknown-linux", "host-x86_64-unknown-linux" },
	{ 16, "hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a" },
	{ 16, "hip-amdgcn-amd-amdhsa--gfx9999", "hip-amdgcn-amd-amdhsa--gfx9999" },
	{ 19, "host-x86_64-unknown-linux", "host-x86_64-unknown-linux--" },
	{ 19, "host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-" },
	{ 19, "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a" },
	{ 19, "hip-amdgcn-amd-amdhsa--gfx908:xnack+", "hip-amdgcn-amd-amdhsa--gfx908:xnack+" },
	{ 19, "hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack+",
	  "hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack+" },
	{ 19, "hip-amdgcn-amd-amdhsa--gfx950", "hip-amdgcn-amd-amdhsa--gfx950-" },
	{ 19, "hip-amdgcn-amd-amdhsa--gfx9999:xnack+", "hip-amdgcn-amd-amdhsa--gfx9999-" },
	{ 19, "hip-amdgcn-amd-amdhsa--", "hip-amdgcn-amd-amdhsa--hip-amdgcn-amd-amdhsa--" },
	{ 19, "hip-amdgcn-amd-amdhsa", "hip-amdgcn-amd-amdhsa--" },
	{ 19, "hip-amdgcn-amd-amdhsa-gnu-gfx90a:xnack-", "hip-amdgcn-amd-amdhsa-gnu-gfx90a:xnack-" },
	{ 19, "host-x86_64--linux-gnu", "host-x86_64--linux-gnu-" },
	{ 22, "host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-" },
	{ 22, "host-x86_64-unknown-linux-", "host-x86_64-unknown-linux-unknown-" },
	{ 22, "host-x86_64--linux-gnu", "host-x86_64-unknown-linux-gnu-" },
	{ 22, "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a" },
	{ 22, "hip-amdgcn-amd-amdhsa--gfx950", "hip-amdgcn-amd-amdhsa--gfx950" },
	{ 22, "hip-amdgcn-amd-amdhsa--gfx940", "hip-amdgcn-amd-amdhsa--" },
	{ 22, "hip-amdgcn-amd-amdhsa--gfx9999:xnack+", "hip-amdgcn-amd-amdhsa--" },
	{ 22, "hip-amdgcn-amd-amdhsa-gnu-gfx90a:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a:xnack-" },
	{ 22, "hip-amdgcn-amd-amdhsa--gfx90a-extra", "hip-amdgcn-amd-amdhsa--" },
	{ 22, "hip-nvptx64-nvidia-cuda--sm_80", "hip-nvptx64-nvidia-cuda-unknown-sm_80" },
	{ 22, "hip-spirv64-amd-amdhsa--amdgcnspirv", "hip-spirv64-amd-amdhsa--amdgcnspirv" },
};

static void test_entry_ids(void)
{
	const char *why = NULL;

	current_test = "entry ids";
	for (size_t i = 0; i < sizeof(id_cases) / sizeof(id_cases[0]); i++) {
		char *id = ol_bundle_entry_id(id_cases[i].release, id_cases[i].target, &why);

		if (!id || strcmp(id, id_cases[i].id)) {
			fprintf(stderr, "%s: %d '%s' -> '%s', expected '%s'\n", TEST, id_cases[i].release,
				id_cases[i].target, id ? id : why, id_cases[i].id);
			failures++;
		}
		free(id);
	}
	CHECK(ol_bundle_entry_id(22, "hip-amdgcn-amd-amdhsa", &why) == NULL);
	CHECK(!strcmp(why, "'hip-amdgcn-amd-amdhsa' is not '<kind>-<arch>-<vendor>-<os>-<env>"
			   "[-<target id>]', as clang-offload-bundler 22 requires"));
	CHECK(ol_bundle_entry_id(18, "hip-amdgcn-amd-amdhsa--gfx90a", &why) == NULL);
	CHECK(!strcmp(why, "unsupported release 18 (16, 19 and 22 are)"));
	CHECK(ol_bundle_arch_known(19, "gfx940") && !ol_bundle_arch_known(22, "gfx940"));
	CHECK(!ol_bundle_arch_known(19, "sm_100") && ol_bundle_arch_known(22, "sm_100"));
	CHECK(ol_bundle_arch_known(19, "gfx90a") && ol_bundle_arch_known(22, "gfx90a"));
	CHECK(!ol_bundle_arch_known(16, "gfx90a"));   /* 16 keeps ids as given */
	CHECK(ol_bundle_arch_name(0) != NULL);
}

/* ---- writer and reader ------------------------------------------------- */

/* A small bundle at alignment 8: entries at 0x20 (host, id 30 bytes), 0x56,
 * 0x8b; header ends at 0xc0; payloads [0xc0, 0xc8) and [0xc8, 0xcc). */
static uint8_t *sample_bundle(size_t *size)
{
	const struct ol_bundle_part parts[] = {
		{ "host-x86_64-unknown-linux-gnu-", NULL, 0 },
		{ "hip-amdgcn-amd-amdhsa--gfx90a", (const uint8_t *)"ABCDEFGH", 8 },
		{ "hip-amdgcn-amd-amdhsa--gfx908", (const uint8_t *)"IJKL", 4 },
	};

	return ol_bundle_write(parts, 3, 8, size);
}

static void test_writer_layout(void)
{
	size_t size;
	uint8_t *b = sample_bundle(&size);

	current_test = "writer layout";
	CHECK(size == 0xcc);
	CHECK(!memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24) && get64(b + 24) == 3);
	CHECK(get64(b + 0x20) == 0xc0 && get64(b + 0x28) == 0 && get64(b + 0x30) == 30);
	CHECK(!memcmp(b + 0x38, "host-x86_64-unknown-linux-gnu-", 30));
	CHECK(get64(b + 0x56) == 0xc0 && get64(b + 0x5e) == 8 && get64(b + 0x66) == 29);
	CHECK(get64(b + 0x8b) == 0xc8 && get64(b + 0x93) == 4 && get64(b + 0x9b) == 29);
	CHECK(!memcmp(b + 0xc0, "ABCDEFGHIJKL", 12));
	free(b);

	/* The wrapper's layout: every payload at the next 4096 boundary, the
	 * empty host entry too, zeros between, no padding after the last. */
	{
		static const uint8_t one[] = "one", two[] = "second image";
		const struct ol_hip_image images[] = {
			{ "amdgcn-amd-amdhsa", "gfx90a", one, 3 },
			{ "amdgcn-amd-amdhsa", "gfx908:xnack+", two, 12 },
		};
		const char *why = NULL;
		struct ol_bundle parsed;
		uint64_t bad;

		b = ol_hip_bundle_write(22, images, 2, NULL, &size, &why);
		CHECK(b && size == 0x2000 + 12);
		CHECK(b && ol_bundle_parse(b, size, &parsed, &why, &bad) == 0);
		if (b && parsed.nentries == 3) {
			CHECK(parsed.entries[0].offset == 0x1000 && parsed.entries[0].size == 0);
			CHECK(parsed.entries[1].offset == 0x1000 && parsed.entries[1].size == 3);
			CHECK(parsed.entries[2].offset == 0x2000 && parsed.entries[2].size == 12);
			CHECK(ol_bundle_find(&parsed, "host-x86_64-unknown-linux-gnu-") ==
			      &parsed.entries[0]);
			CHECK(ol_bundle_find(&parsed, "hip-amdgcn-amd-amdhsa--gfx908:xnack+") ==
			      &parsed.entries[2]);
			CHECK(ol_bundle_find(&parsed, "hip-amdgcn-amd-amdhsa--gfx908") == NULL);
			for (size_t i = parsed.header_size; i < 0x1000; i++)
				CHECK(b[i] == 0);
		}
		ol_bundle_release(&parsed);
		free(b);
	}
	/* No parts: the header alone. */
	b = ol_bundle_write(NULL, 0, 4096, &size);
	CHECK(size == 32 && get64(b + 24) == 0);
	free(b);
}

static void test_round_trips(void)
{
	static const struct ol_ccob_options variants[] = {
		{ 2, OL_CCOB_ZSTD, OL_CCOB_LEVEL_DEFAULT }, { 3, OL_CCOB_ZSTD, OL_CCOB_LEVEL_DEFAULT },
		{ 2, OL_CCOB_ZLIB, OL_CCOB_LEVEL_DEFAULT }, { 3, OL_CCOB_ZLIB, OL_CCOB_LEVEL_DEFAULT },
		{ 3, OL_CCOB_ZSTD, 19 }, { 3, OL_CCOB_ZSTD, -5 }, { 2, OL_CCOB_ZLIB, 0 },
		{ 2, OL_CCOB_ZLIB, 9 },
	};
	size_t size;
	uint8_t *bundle = sample_bundle(&size), digest[OL_MD5_SIZE];

	current_test = "round trips";
	ol_md5(bundle, size, digest);
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		const struct ol_ccob_options *v = &variants[i];
		struct ol_ccob_header header;
		const char *why = NULL;
		size_t csize, dsize;
		uint64_t bad;
		uint8_t *c = ol_ccob_compress(bundle, size, v, &csize, &why), *d;
		unsigned header_size = v->version == 2 ? 24 : 32;

		CHECK(c != NULL);
		if (!c)
			continue;
		CHECK(ol_bundle_is_compressed(c, csize) && !ol_bundle_is_uncompressed(c, csize));
		CHECK(c[4] == v->version && c[5] == 0 && c[6] == v->method && c[7] == 0);
		d = ol_ccob_decompress(c, csize, &dsize, &header, &why, &bad);
		CHECK(d && dsize == size && !memcmp(d, bundle, size));
		CHECK(header.version == v->version && header.method == v->method);
		CHECK(header.header_size == header_size && header.total_size == csize);
		CHECK(header.uncompressed_size == size && header.hash == get64(digest));
		/* The stream is the method's own format. */
		if (v->method == OL_CCOB_ZSTD)
			CHECK(!memcmp(c + header_size, "\x28\xb5\x2f\xfd", 4));
		else
			CHECK(c[header_size] == 0x78);
		/* Section padding after the CCOB is left alone (v2 and v3 know their size). */
		{
			uint8_t *padded = calloc(1, csize + 8);

			memcpy(padded, c, csize);
			free(d);
			d = ol_ccob_decompress(padded, csize + 8, &dsize, NULL, &why, &bad);
			CHECK(d && dsize == size);
			free(padded);
		}
		free(d);
		free(c);
	}
	free(bundle);
}

/* ---- reader errors ------------------------------------------------------ */

static void expect_bundle_error(const char *what, const uint8_t *data, size_t size,
				const char *message, uint64_t offset)
{
	struct ol_bundle b;
	const char *why = NULL;
	uint64_t bad = ~0ull;
	int rc = ol_bundle_parse(data, size, &b, &why, &bad);

	check_failure(what, rc, why, bad, message, offset);
	CHECK(b.entries == NULL);
	if (rc == 0)
		ol_bundle_release(&b);
}

/* A proper prefix of a bundle or CCOB is refused, the offset inside it. */
static void bundle_prefix_fails(const uint8_t *prefix, size_t len)
{
	struct ol_bundle b;
	const char *why = NULL;
	uint64_t bad = ~0ull;

	CHECK(ol_bundle_parse(prefix, len, &b, &why, &bad) == -1 && why && bad <= len);
}

static void ccob_prefix_fails(const uint8_t *prefix, size_t len)
{
	const char *why = NULL;
	uint64_t bad = ~0ull;
	size_t out_size;

	CHECK(ol_ccob_decompress(prefix, len, &out_size, NULL, &why, &bad) == NULL && why &&
	      bad <= len);
}

static void test_bundle_errors(void)
{
	size_t size;
	uint8_t *valid = sample_bundle(&size), buf[256];

	current_test = "bundle errors";
#define MUTATE(stmt) (memcpy(buf, valid, size), (stmt), buf)
	expect_bundle_error("magic", MUTATE(buf[0] = 'X'), size, "not an offload bundle (bad magic)", 0);
	expect_bundle_error("short", valid, 20, "not an offload bundle (bad magic)", 0);
	expect_bundle_error("header", valid, 28, "truncated offload bundle header (28 of 32 bytes)",
			    0x18);
	expect_bundle_error("count", MUTATE(put_le(buf + 0x18, 1000, 8)), size,
			    "entry count 1000 cannot fit in a bundle of 204 bytes", 0x18);
	expect_bundle_error("huge count", MUTATE(put_le(buf + 0x18, ~0ull, 8)), size,
			    "entry count 18446744073709551615 cannot fit in a bundle of 204 bytes",
			    0x18);
	expect_bundle_error("empty id", MUTATE(put_le(buf + 0x56 + 16, 0, 8)), size,
			    "entry 1 has an empty id", 0x66);
	expect_bundle_error("long id", MUTATE(put_le(buf + 0x8b + 16, 1000, 8)), size,
			    "entry 2 id of 1000 bytes runs past the end of the bundle (204 bytes)",
			    0x9b);
	expect_bundle_error("huge id", MUTATE(put_le(buf + 0x8b + 16, ~0ull, 8)), size,
			    "entry 2 id of 18446744073709551615 bytes runs past the end of the "
			    "bundle (204 bytes)", 0x9b);
	expect_bundle_error("outside", MUTATE(put_le(buf + 0x56 + 8, 100, 8)), size,
			    "entry 1 payload (offset 0xc0, size 100) is outside the bundle of 204 bytes",
			    0x56);
	expect_bundle_error("wraps", MUTATE(put_le(buf + 0x56, ~0ull - 2, 8)), size,
			    "entry 1 payload (offset 0xfffffffffffffffd, size 8) is outside the "
			    "bundle of 204 bytes", 0x56);
	expect_bundle_error("in header", MUTATE(put_le(buf + 0x8b, 100, 8)), size,
			    "entry 2 payload (offset 0x64) starts inside the header, which ends at 0xc0",
			    0x8b);
	expect_bundle_error("repeated id", MUTATE(buf[0x8b + 24 + 28] = 'a'), size,
			    "entry 2 repeats the id 'hip-amdgcn-amd-amdhsa--gfx90a' of entry 1", 0xa3);
	expect_bundle_error("overlap", MUTATE(put_le(buf + 0x8b, 0xc4, 8)), size,
			    "entry 2 payload [0xc4, 0xc8) overlaps entry 1 payload [0xc0, 0xc8)", 0x8b);
	/* The host entry is empty: an empty payload overlaps nothing. */
	{
		struct ol_bundle b;
		const char *why;
		uint64_t bad;

		CHECK(ol_bundle_parse(MUTATE(put_le(buf + 0x20, 0xc4, 8)), size, &b, &why, &bad) == 0);
		ol_bundle_release(&b);
	}
	/* An entry cut before its id: a 10-byte id leaves room for the count. */
	{
		const struct ol_bundle_part part = { "0123456789", NULL, 0 };
		size_t one_size;
		uint8_t *one = ol_bundle_write(&part, 1, 1, &one_size);

		memset(buf, 0, sizeof(buf));
		memcpy(buf, one, one_size);
		put_le(buf + 0x18, 2, 8);
		expect_bundle_error("entry", buf, one_size + 19,
				    "truncated entry 1 (19 of 24 bytes before its id)", one_size);
		free(one);
	}
#undef MUTATE
	check_prefixes(valid, size, 1, bundle_prefix_fails);
	free(valid);
}

static uint8_t *expect_ccob_error(const char *what, const uint8_t *data, size_t size,
				  const char *message, uint64_t offset)
{
	const char *why = NULL;
	uint64_t bad = ~0ull;
	size_t out_size;
	uint8_t *out = ol_ccob_decompress(data, size, &out_size, NULL, &why, &bad);

	check_failure(what, out ? 0 : -1, why, bad, message, offset);
	free(out);
	return NULL;
}

static void test_ccob_errors(void)
{
	size_t size, csize, zsize;
	uint8_t *bundle = sample_bundle(&size), digest[OL_MD5_SIZE], *buf;
	const struct ol_ccob_options v3 = { 3, OL_CCOB_ZSTD, OL_CCOB_LEVEL_DEFAULT };
	const struct ol_ccob_options v2zlib = { 2, OL_CCOB_ZLIB, OL_CCOB_LEVEL_DEFAULT };
	const char *why = NULL;
	uint8_t *c = ol_ccob_compress(bundle, size, &v3, &csize, &why);
	uint8_t *z = ol_ccob_compress(bundle, size, &v2zlib, &zsize, &why);
	char message[256];

	current_test = "ccob errors";
	ol_md5(bundle, size, digest);
	buf = malloc(csize + zsize + 64);
#define MUTATE(src, stmt) (memcpy(buf, src, src##size), (stmt), buf)
	expect_ccob_error("magic", MUTATE(c, buf[0] = 'c'), csize,
			  "not a compressed offload bundle (bad magic)", 0);
	expect_ccob_error("short", c, 6,
			  "truncated compressed offload bundle header (6 of at least 20 bytes)", 4);
	expect_ccob_error("version", MUTATE(c, buf[4] = 4), csize,
			  "unknown compressed offload bundle version 4 (1, 2 and 3 are known)", 4);
	expect_ccob_error("version 0", MUTATE(c, buf[4] = 0), csize,
			  "unknown compressed offload bundle version 0 (1, 2 and 3 are known)", 4);
	expect_ccob_error("v3 header", c, 28,
			  "truncated compressed offload bundle header (28 of 32 bytes for version 3)",
			  8);
	expect_ccob_error("method", MUTATE(c, buf[6] = 2), csize,
			  "unknown compression method 2 (0 zlib, 1 zstd)", 6);
	expect_ccob_error("total small", MUTATE(c, put_le(buf + 8, 10, 8)), csize,
			  "compressed bundle size 10 is smaller than its 32-byte header", 8);
	snprintf(message, sizeof(message),
		 "compressed bundle size %zu exceeds the %zu bytes available", csize + 1, csize);
	expect_ccob_error("total large", MUTATE(c, put_le(buf + 8, csize + 1, 8)), csize, message, 8);
	snprintf(message, sizeof(message),
		 "uncompressed size 1099511627776 is more than a %zu-byte zstd stream can hold",
		 csize - 32);
	expect_ccob_error("absurd size", MUTATE(c, put_le(buf + 16, 1ull << 40, 8)), csize,
			  message, 16);
	expect_ccob_error("declared less", MUTATE(c, put_le(buf + 16, 100, 8)), csize,
			  "the zstd stream decompresses to more than the declared 100 bytes", 16);
	expect_ccob_error("declared more", MUTATE(c, put_le(buf + 16, 300, 8)), csize,
			  "the zstd stream decompresses to 204 bytes, not the declared 300", 16);
	snprintf(message, sizeof(message),
		 "hash mismatch: the header says 0x%016" PRIx64 ", the decompressed bundle hashes "
		 "to 0x%016" PRIx64, get64(digest) ^ 0x80, get64(digest));
	expect_ccob_error("hash", MUTATE(c, buf[24] ^= 0x80), csize, message, 24);
	expect_ccob_error("zstd magic", MUTATE(c, buf[32] ^= 1), csize, "corrupt zstd stream: ...", 32);
	/* zlib, version 2: cut the Adler-32, append junk, break the header. */
	expect_ccob_error("zlib cut", MUTATE(z, put_le(buf + 8, zsize - 4, 4)), zsize - 4,
			  "truncated zlib stream", zsize - 4);
	memcpy(buf, z, zsize);
	memcpy(buf + zsize, "xyz", 3);
	put_le(buf + 8, zsize + 3, 4);
	expect_ccob_error("zlib junk", buf, zsize + 3, "3 bytes follow the end of the zlib stream",
			  zsize);
	/* zlib errors point where inflate stopped: after the 2-byte header here. */
	expect_ccob_error("zlib header", MUTATE(z, buf[24] = 0x79), zsize,
			  "corrupt zlib stream: incorrect header check", 26);
	expect_ccob_error("zlib less", MUTATE(z, put_le(buf + 12, 200, 4)), zsize,
			  "the zlib stream decompresses to more than the declared 200 bytes", 12);
	expect_ccob_error("zlib more", MUTATE(z, put_le(buf + 12, 205, 4)), zsize,
			  "the zlib stream decompresses to 204 bytes, not the declared 205", 12);
	snprintf(message, sizeof(message),
		 "uncompressed size 4294967295 is more than a %zu-byte zlib stream can hold",
		 zsize - 24);
	expect_ccob_error("zlib absurd", MUTATE(z, put_le(buf + 12, 0xffffffff, 4)), zsize, message,
			  12);
#undef MUTATE
	/* Version 1 (LLVM 18; read only): no total size, the stream runs to the end. */
	{
		struct ol_ccob_header header;
		size_t v1_size = csize - 12, out_size;
		uint64_t bad;
		uint8_t *out;

		memcpy(buf, "CCOB", 4);
		put_le(buf + 4, 1, 2);
		put_le(buf + 6, OL_CCOB_ZSTD, 2);
		put_le(buf + 8, size, 4);
		put_le(buf + 12, get64(digest), 8);
		memcpy(buf + 20, c + 32, csize - 32);
		out = ol_ccob_decompress(buf, v1_size, &out_size, &header, &why, &bad);
		CHECK(out && out_size == size && !memcmp(out, bundle, size));
		CHECK(header.version == 1 && header.header_size == 20 && header.total_size == v1_size);
		free(out);
		expect_ccob_error("v1 cut", buf, v1_size - 1, "corrupt zstd stream: ...", 20);
	}
	check_prefixes(c, csize, 1, ccob_prefix_fails);
	free(buf);
	free(c);
	free(z);
	free(bundle);
}

static void test_writer_errors(void)
{
	static const uint8_t code[] = "code";
	const struct ol_hip_image twice[] = {
		{ "amdgcn-amd-amdhsa", "gfx90a", code, 4 }, { "amdgcn-amd-amdhsa", "gfx90a", code, 4 },
	};
	const struct ol_hip_image unknown[] = {
		{ "amdgcn-amd-amdhsa", "gfx9999", code, 4 },
		{ "amdgcn-amd-amdhsa", "gfx9999:xnack+", code, 4 },
	};
	const struct ol_hip_image short_triple = { "amdgcn", "gfx90a", code, 4 };
	struct ol_ccob_options options;
	const char *why = NULL;
	size_t size;

	current_test = "writer errors";
	CHECK(ol_ccob_default_options(16, &options) == -1);
	CHECK(ol_ccob_default_options(19, &options) == 0 && options.version == 2 &&
	      options.method == OL_CCOB_ZSTD && options.level == OL_CCOB_LEVEL_DEFAULT);
	CHECK(ol_ccob_default_options(22, &options) == 0 && options.version == 3);
	options.version = 1;
	CHECK(!ol_ccob_compress(code, 4, &options, &size, &why));
	CHECK(!strcmp(why, "cannot write compressed bundle version 1 (2 and 3 can be written)"));
	options.version = 3;
	options.method = (enum ol_ccob_method)5;
	CHECK(!ol_ccob_compress(code, 4, &options, &size, &why));
	CHECK(!strcmp(why, "unknown compression method 5 (0 zlib, 1 zstd)"));
	options.method = OL_CCOB_ZLIB;
	options.level = 42;
	CHECK(!ol_ccob_compress(code, 4, &options, &size, &why));
	CHECK(!strcmp(why, "zlib rejected compression level 42 (0 to 9, or -1)"));

	CHECK(!ol_hip_bundle_write(17, twice, 1, NULL, &size, &why));
	CHECK(!strcmp(why, "unsupported release 17 (16, 19 and 22 are)"));
	CHECK(ol_ccob_default_options(22, &options) == 0);
	CHECK(!ol_hip_bundle_write(16, twice, 1, &options, &size, &why));
	CHECK(!strcmp(why, "clang-offload-bundler 16 cannot compress"));
	CHECK(!ol_hip_bundle_write(22, twice, 2, NULL, &size, &why));
	CHECK(!strcmp(why, "images 0 and 1 both become bundle entry 'hip-amdgcn-amd-amdhsa--gfx90a'"));
	CHECK(!ol_hip_bundle_write(19, unknown, 2, NULL, &size, &why));
	CHECK(!strcmp(why, "images 0 and 1 both become bundle entry 'hip-amdgcn-amd-amdhsa--gfx9999-'"));
	CHECK(!ol_hip_bundle_write(22, &short_triple, 1, NULL, &size, &why));
	CHECK(!strcmp(why, "'hip-amdgcn--gfx90a' is not '<kind>-<arch>-<vendor>-<os>-<env>"
			   "[-<target id>]', as clang-offload-bundler 22 requires"));
}

/* Random bit flips must never crash or read out of bounds. */
static void test_flips(void)
{
	const struct ol_ccob_options v2 = { 2, OL_CCOB_ZLIB, OL_CCOB_LEVEL_DEFAULT };
	uint64_t state = 0x9e3779b97f4a7c15ull;
	size_t size, csize;
	uint8_t *bundle = sample_bundle(&size);
	const char *why;
	uint8_t *c = ol_ccob_compress(bundle, size, &v2, &csize, &why);

	current_test = "flips";
	for (int round = 0; round < 20000; round++) {
		int compressed = round & 1;
		size_t n = compressed ? csize : size;
		uint8_t *buf = malloc(n);
		uint64_t bad;

		memcpy(buf, compressed ? c : bundle, n);
		for (int i = 0; i < 1 + round % 4; i++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			/* Half of the flips land in the first 40 bytes: the headers. */
			buf[(state >> 33) % (i & 1 ? 40 : n)] ^= (uint8_t)(1u << ((state >> 29) & 7));
		}
		if (compressed) {
			size_t out_size;

			free(ol_ccob_decompress(buf, n, &out_size, NULL, &why, &bad));
		} else {
			struct ol_bundle b;

			if (ol_bundle_parse(buf, n, &b, &why, &bad) == 0) {
				for (size_t i = 0; i < b.nentries; i++)
					CHECK(b.entries[i].offset + b.entries[i].size <= n);
				ol_bundle_release(&b);
			}
		}
		free(buf);
	}
	free(c);
	free(bundle);
}

/* ---- the real bundlers -------------------------------------------------- */

#define NIMAGES 3

struct images {
	struct ol_hip_image image[NIMAGES];
	uint8_t *data[NIMAGES];
	const char *path[NIMAGES];
};

static const char *bundler(int release)
{
	static char paths[3][64];
	char *path = paths[release == 16 ? 0 : release == 19 ? 1 : 2];

	snprintf(path, sizeof(paths[0]), "/usr/lib/llvm-%d/bin/clang-offload-bundler", release);
	return path;
}

/* Two small AMDGPU objects from clang-22 (or stand-ins when it is missing)
 * and a large synthetic image: 1 MiB of noise, 1 MiB of other noise, then
 * the first MiB again 2 MiB back, and a tail. */
static int make_images(struct images *im)
{
	static const char *const target_ids[NIMAGES] = { "gfx90a", "gfx908:xnack+", "gfx1030" };
	static const char code[] = "int add(int a, int b) { return a + b; }\n"
				   "__attribute__((visibility(\"default\"))) int g = 42;\n";
	const char *source = scratch("k.c");
	size_t big = (3u << 20) + 12345;
	uint64_t state = 42;

	memset(im, 0, sizeof(*im));
	if (write_whole(source, code, strlen(code)) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		char mcpu[32];
		const char *argv[] = { "clang-22", "--target=amdgcn-amd-amdhsa", mcpu, "-nogpulib",
				       "-c", source, "-o", NULL, NULL };

		im->path[i] = strdup(scratch("image%d.o", i));
		argv[7] = im->path[i];
		snprintf(mcpu, sizeof(mcpu), "-mcpu=%.*s", (int)strcspn(target_ids[i], ":"),
			 target_ids[i]);
		if (run_tool(argv, NULL) != 0) {
			printf("%s: clang-22 could not build an AMDGPU object: stand-in bytes\n", TEST);
			write_whole(im->path[i], target_ids[i], strlen(target_ids[i]));
		}
	}
	im->path[2] = strdup(scratch("big.bin"));
	im->data[2] = malloc(big);
	for (size_t i = 0; i < big; i++) {
		if (i >= (2u << 20) && i < (3u << 20)) {
			im->data[2][i] = im->data[2][i - (2u << 20)];
			continue;
		}
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		im->data[2][i] = (uint8_t)(state >> 56);
	}
	write_whole(im->path[2], im->data[2], big);
	free(im->data[2]);
	for (int i = 0; i < NIMAGES; i++) {
		size_t size;

		im->data[i] = read_whole(im->path[i], &size);
		if (!im->data[i])
			return -1;
		im->image[i] = (struct ol_hip_image){ "amdgcn-amd-amdhsa", target_ids[i], im->data[i],
						      size };
	}
	return 0;
}

static void free_images(struct images *im)
{
	for (int i = 0; i < NIMAGES; i++) {
		free(im->data[i]);
		free((char *)im->path[i]);
	}
}

/* "-<option>=<scratch file>" into buf. */
static const char *file_option(char *buf, size_t size, const char *option, const char *path)
{
	snprintf(buf, size, "-%s=%s", option, path);
	return buf;
}

/* The wrapper's bundler command (spec 4.5), plus `extra` options. */
static int run_bundler(int release, const struct images *im, const char *output,
		       const char *const *extra_options, const char *const *env)
{
	const char *argv[32];
	char targets[512], inputs[NIMAGES][600], output_option[600];
	size_t n = 0, len;

	len = (size_t)snprintf(targets, sizeof(targets), "-targets=%s",
			       ol_hip_bundle_host_target(release));
	for (int i = 0; i < NIMAGES; i++)
		len += (size_t)snprintf(targets + len, sizeof(targets) - len, ",%s-%s--%s",
					ol_hip_bundle_kind(release), im->image[i].triple,
					im->image[i].target_id);
	argv[n++] = bundler(release);
	argv[n++] = "-type=o";
	argv[n++] = "-bundle-align=4096";
	for (; extra_options && *extra_options; extra_options++)
		argv[n++] = *extra_options;
	argv[n++] = targets;
	argv[n++] = "-input=/dev/null";
	for (int i = 0; i < NIMAGES; i++)
		argv[n++] = file_option(inputs[i], sizeof(inputs[i]), "input", im->path[i]);
	argv[n++] = file_option(output_option, sizeof(output_option), "output", output);
	argv[n] = NULL;
	return run_tool(argv, env);
}

/* clang-offload-bundler -unbundle of `file` gives the images back. */
static void check_unbundles(int release, const struct images *im, const char *file,
			    const char *what)
{
	const char *argv[16];
	char targets[512], input[600], outputs[NIMAGES][600];
	size_t n = 0, len;

	len = (size_t)snprintf(targets, sizeof(targets), "-targets=");
	for (int i = 0; i < NIMAGES; i++)
		len += (size_t)snprintf(targets + len, sizeof(targets) - len, "%s%s-%s--%s",
					i ? "," : "", ol_hip_bundle_kind(release),
					im->image[i].triple, im->image[i].target_id);
	argv[n++] = bundler(release);
	argv[n++] = "-unbundle";
	argv[n++] = "-type=o";
	argv[n++] = targets;
	argv[n++] = file_option(input, sizeof(input), "input", file);
	for (int i = 0; i < NIMAGES; i++)
		argv[n++] = file_option(outputs[i], sizeof(outputs[i]), "output", scratch("out%d", i));
	argv[n] = NULL;
	if (run_tool(argv, NULL) != 0) {
		fprintf(stderr, "%s: clang-offload-bundler-%d -unbundle failed on %s\n", TEST, release,
			what);
		failures++;
	} else {
		for (int i = 0; i < NIMAGES; i++) {
			size_t size;
			uint8_t *back = read_whole(outputs[i] + strlen("-output="), &size);
			char label[128];

			snprintf(label, sizeof(label), "release %d: image %d unbundled from %s", release,
				 i, what);
			same_bytes(label, back ? back : (uint8_t *)"", back ? size : 0,
				   im->image[i].data, im->image[i].size);
			free(back);
		}
	}
}

/* Our reader on the bundler's uncompressed output: ids and payloads. */
static void check_reads(int release, const struct images *im, const uint8_t *data, size_t size)
{
	struct ol_bundle b;
	const char *why = NULL;
	uint64_t bad = 0;

	if (ol_bundle_parse(data, size, &b, &why, &bad) < 0) {
		fprintf(stderr, "%s: release %d: bundler output rejected: +0x%" PRIx64 ": %s\n", TEST,
			release, bad, why);
		failures++;
		return;
	}
	CHECK(b.nentries == NIMAGES + 1);
	for (size_t i = 0; i < b.nentries && i <= NIMAGES; i++) {
		char target[128], *id;

		if (i == 0)
			snprintf(target, sizeof(target), "%s", ol_hip_bundle_host_target(release));
		else
			snprintf(target, sizeof(target), "%s-%s--%s", ol_hip_bundle_kind(release),
				 im->image[i - 1].triple, im->image[i - 1].target_id);
		id = ol_bundle_entry_id(release, target, &why);
		CHECK(id && b.entries[i].id_size == strlen(id) &&
		      !memcmp(b.entries[i].id, id, b.entries[i].id_size));
		free(id);
		if (i == 0)
			CHECK(b.entries[i].size == 0);
		else
			CHECK(b.entries[i].size == im->image[i - 1].size &&
			      !memcmp(b.entries[i].data, im->image[i - 1].data, b.entries[i].size));
	}
	ol_bundle_release(&b);
}

static void cross_check_release(int release, const struct images *im)
{
	static const char *const levels[] = { NULL, "-compression-level=1",
					      "-compression-level=9", "-compression-level=19" };
	const char *upstream = scratch("upstream%d.hipfb", release);
	const char *ours_path = scratch("ours%d.hipfb", release);
	struct ol_ccob_options options;
	const char *why = NULL;
	size_t size, their_size, plain_size;
	uint8_t *ours, *theirs, *plain;
	char label[128];

	if (!have_tool(bundler(release), TEST, "byte comparisons with that release"))
		return;
	current_test = "cross-check";
	ours = ol_hip_bundle_write(release, im->image, NIMAGES, NULL, &size, &why);
	if (run_bundler(release, im, upstream, NULL, NULL) != 0 || !ours) {
		fprintf(stderr, "%s: release %d: no bundle to compare (%s)\n", TEST, release,
			ours ? "the bundler failed" : why);
		failures++;
		free(ours);
		return;
	}
	plain = read_whole(upstream, &plain_size);
	snprintf(label, sizeof(label), "release %d uncompressed bundle", release);
	same_bytes(label, ours, size, plain, plain_size);
	check_reads(release, im, plain, plain_size);
	write_whole(ours_path, ours, size);
	check_unbundles(release, im, ours_path, "our uncompressed bundle");
	free(ours);
	if (release == 16) {
		free(plain);
		return;
	}

	/* -compress: the release's version, zstd, at the default and other levels. */
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		const char *extra[] = { "-compress", levels[l], NULL };
		size_t dsize;
		uint64_t bad;
		uint8_t *back;

		ol_ccob_default_options(release, &options);
		if (levels[l])
			options.level = atoi(strchr(levels[l], '=') + 1);
		ours = ol_hip_bundle_write(release, im->image, NIMAGES, &options, &size, &why);
		if (run_bundler(release, im, upstream, extra, NULL) != 0 || !ours) {
			fprintf(stderr, "%s: release %d -compress %s failed\n", TEST, release,
				levels[l] ? levels[l] : "");
			failures++;
			free(ours);
			continue;
		}
		theirs = read_whole(upstream, &their_size);
		snprintf(label, sizeof(label), "release %d bundle compressed at %s", release,
			 levels[l] ? levels[l] : "the default level");
		same_bytes(label, ours, size, theirs, their_size);
		back = ol_ccob_decompress(theirs, their_size, &dsize, NULL, &why, &bad);
		if (!back) {
			fprintf(stderr, "%s: %s: ours rejects it: +0x%" PRIx64 ": %s\n", TEST, label, bad,
				why);
			failures++;
		} else {
			same_bytes(label, back, dsize, plain, plain_size);
		}
		free(back);
		free(theirs);
		free(ours);
	}

	/* 22 writes version 2 when told to; 19 and 22 unbundle all our variants. */
	if (release == 22) {
		const char *extra[] = { "-compress", NULL };
		const char *env[] = { "COMPRESSED_BUNDLE_FORMAT_VERSION=2", NULL };

		options = (struct ol_ccob_options){ 2, OL_CCOB_ZSTD, OL_CCOB_LEVEL_DEFAULT };
		ours = ol_hip_bundle_write(release, im->image, NIMAGES, &options, &size, &why);
		if (run_bundler(release, im, upstream, extra, env) == 0 && ours) {
			theirs = read_whole(upstream, &their_size);
			same_bytes("release 22 bundle compressed as version 2", ours, size, theirs,
				   their_size);
			free(theirs);
		} else {
			fprintf(stderr, "%s: release 22 -compress as version 2 failed\n", TEST);
			failures++;
		}
		free(ours);
	}
	for (unsigned version = 2; version <= 3; version++)
		for (int method = OL_CCOB_ZLIB; method <= OL_CCOB_ZSTD; method++) {
			options = (struct ol_ccob_options){ version, (enum ol_ccob_method)method,
							    OL_CCOB_LEVEL_DEFAULT };
			if (release == 19 && version == 3)
				continue;   /* 19 knows versions 1 and 2 */
			ours = ol_hip_bundle_write(release, im->image, NIMAGES, &options, &size, &why);
			write_whole(ours_path, ours, size);
			snprintf(label, sizeof(label), "our version %u %s bundle", version,
				 method == OL_CCOB_ZLIB ? "zlib" : "zstd");
			check_unbundles(release, im, ours_path, label);
			free(ours);
		}
	free(plain);
}

/* The ids the bundler writes for every arch of our table, and for odd target
 * strings, are the ones ol_bundle_entry_id() predicts. */
static void check_ids_written(int release, const char *host, const char *const *devices,
			      size_t ndevices)
{
	const char *output = scratch("ids%d.b", release), *argv[256];
	char output_option[600];
	struct strbuf targets = STRBUF_INIT;
	struct ol_bundle b;
	const char *why = NULL;
	uint64_t bad;
	size_t size, n = 0;
	uint8_t *data;
	int rejected = 0;

	if (ndevices + 8 > sizeof(argv) / sizeof(argv[0]))
		return;
	strbuf_addf(&targets, "-targets=%s", host);
	for (size_t i = 0; i < ndevices; i++)
		strbuf_addf(&targets, ",%s", devices[i]);
	argv[n++] = bundler(release);
	argv[n++] = "-type=o";
	argv[n++] = targets.buf;
	argv[n++] = "-input=/dev/null";   /* the host input decides the file type */
	for (size_t i = 0; i < ndevices; i++)
		argv[n++] = one_byte_input;
	argv[n++] = file_option(output_option, sizeof(output_option), "output", output);
	argv[n] = NULL;
	/* Where we refuse a target, the bundler must refuse the line too. */
	for (size_t i = 0; i <= ndevices; i++) {
		char *id = ol_bundle_entry_id(release, i ? devices[i - 1] : host, &why);

		rejected |= !id;
		free(id);
	}
	if (run_tool_with(argv, NULL, rejected) != 0 || !(data = read_whole(output, &size))) {
		if (!rejected) {
			fprintf(stderr, "%s: release %d: the bundler failed on %s\n", TEST, release,
				targets.buf);
			failures++;
		}
		strbuf_release(&targets);
		return;
	}
	CHECK(!rejected);
	if (ol_bundle_parse(data, size, &b, &why, &bad) < 0) {
		fprintf(stderr, "%s: release %d: +0x%" PRIx64 ": %s\n", TEST, release, bad, why);
		failures++;
	} else {
		CHECK(b.nentries == ndevices + 1);
		for (size_t i = 0; i < b.nentries && i <= ndevices; i++) {
			const char *target = i ? devices[i - 1] : host;
			char *id = ol_bundle_entry_id(release, target, &why);

			if (!id || b.entries[i].id_size != strlen(id) ||
			    memcmp(b.entries[i].id, id, b.entries[i].id_size)) {
				fprintf(stderr, "%s: release %d: '%s' written as '%.*s', we say '%s'\n",
					TEST, release, target, (int)b.entries[i].id_size,
					b.entries[i].id, id ? id : why);
				failures++;
			}
			free(id);
		}
		ol_bundle_release(&b);
	}
	free(data);
	strbuf_release(&targets);
}

static void cross_check_ids(int release)
{
	static const char *const odd_devices[] = {
		"hip-amdgcn-amd-amdhsa--gfx9999", "hip-amdgcn-amd-amdhsa--gfx9999:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx950", "hip-amdgcn-amd-amdhsa--gfx940",
		"hip-amdgcn-amd-amdhsa--", "hip-amdgcn-amd-amdhsa-unknown-gfx90a",
		"hip-amdgcn-amd-amdhsa-gnu-gfx90a:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a-extra",
		"hip-nvptx64-nvidia-cuda--sm_80", "hip-spirv64-amd-amdhsa--amdgcnspirv",
		"openmp-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a",
		"hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-",
	};
	static const char *const odd_hosts[] = {
		"host-x86_64-unknown-linux", "host-x86_64-unknown-linux-gnu",
		"host-x86_64-unknown-linux-", "host-x86_64--linux-gnu", "host-x86_64-pc-linux-gnu",
	};
	const char *devices[128];
	char names[128][64];

	if (!have_tool(bundler(release), TEST, "id checks with that release"))
		return;
	current_test = "ids written";
	/* Every arch the release knows in one run, then the AMD ones with a
	 * feature in another (the bundler refuses gfx90a beside gfx90a:xnack-). */
	for (int features = 0; features <= 1; features++) {
		size_t n = 0;

		for (size_t i = 0; ol_bundle_arch_name(i) && n < 128; i++) {
			const char *arch = ol_bundle_arch_name(i);

			if (!ol_bundle_arch_known(release, arch) ||
			    (features && strncmp(arch, "gfx", 3)))
				continue;
			snprintf(names[n], sizeof(names[n]), "hip-amdgcn-amd-amdhsa--%s%s", arch,
				 features ? ":xnack-" : "");
			devices[n] = names[n];
			n++;
		}
		check_ids_written(release, ol_hip_bundle_host_target(release), devices, n);
	}
	/* The odd ones one at a time: some become the same id. */
	for (size_t i = 0; i < sizeof(odd_devices) / sizeof(odd_devices[0]); i++)
		check_ids_written(release, "host-x86_64-unknown-linux-gnu", &odd_devices[i], 1);
	for (size_t i = 0; i < sizeof(odd_hosts) / sizeof(odd_hosts[0]); i++)
		check_ids_written(release, odd_hosts[i], &odd_devices[0], 1);
}

int main(void)
{
	struct images im;

	test_entry_ids();
	test_writer_layout();
	test_round_trips();
	test_bundle_errors();
	test_ccob_errors();
	test_writer_errors();
	test_flips();

	if (scratch_open() < 0)
		return 2;
	file_option(one_byte_input, sizeof(one_byte_input), "input", scratch("x.bin"));
	write_whole(one_byte_input + strlen("-input="), "x", 1);
	if (make_images(&im) == 0) {
		cross_check_release(16, &im);
		cross_check_release(19, &im);
		cross_check_release(22, &im);
	} else {
		fprintf(stderr, "%s: could not prepare images in %s\n", TEST, scratch_dir);
		failures++;
	}
	free_images(&im);
	cross_check_ids(19);
	cross_check_ids(22);
	scratch_close();
	if (failures)
		fprintf(stderr, "%s: %d check(s) failed\n", TEST, failures);
	return failures != 0;
}
