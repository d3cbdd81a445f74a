/*
 * test_fatbinary: the NVIDIA fat binary reader.
 *
 * `tiny` below is what CUDA 13's fatbinary wrote for
 *   fatbinary -64 --create tiny.fatbin -g --compress=false --ident=a.cu
 *             --cmdline=-O3 --image3=kind=ptx,sm=80,file=tiny.ptx
 * (tiny.ptx: ".version 8.0\n.target sm_80\n.address_size 64\n"): every field
 * of one PTX entry, identifier and options included.  Every reader error is
 * checked on mutations of it with its message and offset, every truncation
 * and random flips (this file also runs under ASan/UBSan).
 *
 * With /usr/local/cuda/bin/fatbinary and clang-22 (skipped with a message
 * when absent): containers of real cubins and PTX, zstd- and lz4-compressed
 * entries, 32-bit, identifiers and options, read back image by image; the zstd payloads decompress to
 * the declared sizes and the cubins' bytes.
 */
#include "offload/fatbinary.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "check.h"
#include "external_tools.h"

#define TEST "test_fatbinary"

static const uint8_t tiny[] = {
	0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00, 0x88, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x01, 0x58, 0x00, 0x00, 0x00,
	0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x50, 0x00, 0x00, 0x00,
	0x40, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x13, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x2e, 0x63, 0x75,
	0x00, 0x00, 0x00, 0x00, 0x50, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x2d, 0x4f, 0x33, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2e, 0x76, 0x65, 0x72,
	0x73, 0x69, 0x6f, 0x6e, 0x20, 0x38, 0x2e, 0x30, 0x0a, 0x2e, 0x74, 0x61,
	0x72, 0x67, 0x65, 0x74, 0x20, 0x73, 0x6d, 0x5f, 0x38, 0x30, 0x0a, 0x2e,
	0x61, 0x64, 0x64, 0x72, 0x65, 0x73, 0x73, 0x5f, 0x73, 0x69, 0x7a, 0x65,
	0x20, 0x36, 0x34, 0x0a, 0x00, 0x00, 0x00, 0x00,
};

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int span_is(const char *p, size_t len, const char *text)
{
	return p && len == strlen(text) && !memcmp(p, text, len);
}

static void test_tiny(void)
{
	static const char ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n";
	struct ol_fatbin fb;
	const char *why = NULL;
	uint64_t bad;

	current_test = "tiny";
	CHECK(ol_fatbin_is_fatbin(tiny, sizeof(tiny)) && !ol_fatbin_is_fatbin(tiny + 1, 8));
	CHECK(ol_fatbin_parse(tiny, sizeof(tiny), &fb, &why, &bad) == 0);
	CHECK(fb.version == 1 && fb.header_size == 16 && fb.size == sizeof(tiny));
	CHECK(fb.nimages == 1);
	if (fb.nimages == 1) {
		const struct ol_fatbin_image *im = &fb.images[0];

		CHECK(im->kind == OL_FATBIN_PTX && !strcmp(ol_fatbin_kind_name(im->kind), "ptx"));
		CHECK(im->version == 0x0101 && im->header_size == 88);
		CHECK(im->offset == 16 && im->payload_offset == 104 && im->payload_size == 48);
		CHECK(im->payload == tiny + 104 && !memcmp(im->payload, ptx, strlen(ptx)));
		CHECK(im->sm == 80 && im->major == 8 && im->minor == 0);
		CHECK(im->flags == (OL_FATBIN_FLAG_64BIT | OL_FATBIN_FLAG_DEBUG | OL_FATBIN_FLAG_LINUX));
		CHECK(ol_fatbin_compression(im) == NULL);
		CHECK(im->compressed_size == 0 && im->uncompressed_size == 0);
		CHECK(span_is(im->ident, im->ident_size, "a.cu"));
		CHECK(span_is(im->options, im->options_size, "-O3"));
	}
	ol_fatbin_release(&fb);
	CHECK(fb.images == NULL && fb.nimages == 0);

	/* Containers back to back (a .nv_fatbin section): each knows its size. */
	{
		uint8_t two[2 * sizeof(tiny)];
		uint64_t first_size;

		memcpy(two, tiny, sizeof(tiny));
		memcpy(two + sizeof(tiny), tiny, sizeof(tiny));
		CHECK(ol_fatbin_parse(two, sizeof(two), &fb, &why, &bad) == 0);
		first_size = fb.size;
		CHECK(first_size == sizeof(tiny));
		ol_fatbin_release(&fb);
		CHECK(ol_fatbin_parse(two + first_size, sizeof(two) - first_size, &fb, &why, &bad) ==
		      0 && fb.nimages == 1 && fb.images[0].offset == 16);
		ol_fatbin_release(&fb);
	}
	CHECK(!strcmp(ol_fatbin_kind_name(OL_FATBIN_ELF), "elf"));
	CHECK(!strcmp(ol_fatbin_kind_name(OL_FATBIN_NVVM), "nvvm"));
	CHECK(!strcmp(ol_fatbin_kind_name(3), "unknown"));
}

static void expect_error(const char *what, const uint8_t *data, size_t size, const char *message,
			 uint64_t offset)
{
	struct ol_fatbin fb;
	const char *why = NULL;
	uint64_t bad = ~0ull;
	int rc = ol_fatbin_parse(data, size, &fb, &why, &bad);

	check_failure(what, rc, why, bad, message, offset);
	CHECK(fb.images == NULL);
	if (rc == 0)
		ol_fatbin_release(&fb);
}

/* A proper prefix is refused, the offset inside it. */
static void prefix_fails(const uint8_t *prefix, size_t len)
{
	struct ol_fatbin fb;
	const char *why = NULL;
	uint64_t bad = ~0ull;

	CHECK(ol_fatbin_parse(prefix, len, &fb, &why, &bad) == -1 && why && bad <= len);
}

static void test_errors(void)
{
	uint8_t buf[sizeof(tiny) + 64];

	current_test = "errors";
#define MUTATE(stmt) (memcpy(buf, tiny, sizeof(tiny)), (stmt), buf)
	expect_error("magic", MUTATE(buf[3] = 0xbb), sizeof(tiny), "not a fatbinary (bad magic)", 0);
	expect_error("empty", tiny, 0, "not a fatbinary (bad magic)", 0);
	expect_error("header 5", tiny, 5, "truncated fatbinary header (5 of 16 bytes)", 4);
	expect_error("header 7", tiny, 7, "truncated fatbinary header (7 of 16 bytes)", 6);
	expect_error("header 10", tiny, 10, "truncated fatbinary header (10 of 16 bytes)", 8);
	expect_error("version", MUTATE(buf[4] = 2), sizeof(tiny),
		     "unsupported fatbinary version 2 (1 is known)", 4);
	expect_error("header size", MUTATE(buf[6] = 8), sizeof(tiny),
		     "fatbinary header size 8 is not between 16 and the 152 bytes available", 6);
	expect_error("header size large", MUTATE(put_le(buf + 6, 0xffff, 2)), sizeof(tiny),
		     "fatbinary header size 65535 is not between 16 and the 152 bytes available", 6);
	expect_error("size", MUTATE(put_le(buf + 8, 0x1000, 8)), sizeof(tiny),
		     "fatbinary size 4096 exceeds the 136 bytes available after its header", 8);
	expect_error("size huge", MUTATE(put_le(buf + 8, ~0ull, 8)), sizeof(tiny),
		     "fatbinary size 18446744073709551615 exceeds the 136 bytes available after "
		     "its header", 8);
	expect_error("entry header", MUTATE(put_le(buf + 8, 40, 8)), sizeof(tiny),
		     "truncated fatbinary entry 0 header (40 of 64 bytes)", 16);
	expect_error("entry header size", MUTATE(put_le(buf + 20, 32, 4)), sizeof(tiny),
		     "fatbinary entry 0 header size 32 is not between 64 and the 136 bytes left in "
		     "the container", 20);
	expect_error("entry header size large", MUTATE(put_le(buf + 20, 0xffffffff, 4)), sizeof(tiny),
		     "fatbinary entry 0 header size 4294967295 is not between 64 and the 136 bytes "
		     "left in the container", 20);
	expect_error("payload", MUTATE(put_le(buf + 24, 49, 8)), sizeof(tiny),
		     "fatbinary entry 0 payload of 49 bytes runs past the end of the container (0x98)",
		     24);
	expect_error("payload huge", MUTATE(put_le(buf + 24, ~0ull, 8)), sizeof(tiny),
		     "fatbinary entry 0 payload of 18446744073709551615 bytes runs past the end of "
		     "the container (0x98)", 24);
	expect_error("compressed size", MUTATE((buf[16 + 41] |= 0x80, put_le(buf + 32, 100, 4))),
		     sizeof(tiny), "fatbinary entry 0 compressed size 100 exceeds its payload of 48 bytes",
		     32);
	expect_error("ident", MUTATE(put_le(buf + 48, 86, 4)), sizeof(tiny),
		     "fatbinary entry 0 identifier (offset 86, length 4) is outside its 88-byte header",
		     48);
	expect_error("ident length", MUTATE(put_le(buf + 52, 0xffffffff, 4)), sizeof(tiny),
		     "fatbinary entry 0 identifier (offset 64, length 4294967295) is outside its "
		     "88-byte header", 48);
	expect_error("options record", MUTATE(put_le(buf + 36, 84, 4)), sizeof(tiny),
		     "fatbinary entry 0 options record (offset 84, length 8) is outside its 88-byte "
		     "header", 36);
	expect_error("options text", MUTATE(put_le(buf + 16 + 0x48, 86, 4)), sizeof(tiny),
		     "fatbinary entry 0 options (offset 86, length 3) is outside its 88-byte header",
		     16 + 0x48);
	/* A second entry that the container size claims but the bytes do not hold. */
	memcpy(buf, tiny, sizeof(tiny));
	memset(buf + sizeof(tiny), 0, 30);
	put_le(buf + 8, sizeof(tiny) - 16 + 30, 8);
	expect_error("second entry", buf, sizeof(tiny) + 30,
		     "truncated fatbinary entry 1 header (30 of 64 bytes)", sizeof(tiny));
#undef MUTATE
	check_prefixes(tiny, sizeof(tiny), 1, prefix_fails);
}

/* Random bit flips must never crash or read out of bounds. */
static void test_flips(const uint8_t *valid, size_t size)
{
	uint64_t state = 0x2545f4914f6cdd1dull;

	current_test = "flips";
	for (int round = 0; round < 20000; round++) {
		uint8_t *buf = malloc(size);
		struct ol_fatbin fb;
		const char *why;
		uint64_t bad;

		memcpy(buf, valid, size);
		for (int i = 0; i < 1 + round % 4; i++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			/* Half of the flips land in the headers. */
			buf[(state >> 33) % (i & 1 ? (size < 104 ? size : 104) : size)] ^=
				(uint8_t)(1u << ((state >> 29) & 7));
		}
		if (ol_fatbin_parse(buf, size, &fb, &why, &bad) == 0) {
			for (size_t i = 0; i < fb.nimages; i++)
				CHECK(fb.images[i].payload_offset + fb.images[i].payload_size <= fb.size);
			CHECK(fb.size <= size);
			ol_fatbin_release(&fb);
		}
		free(buf);
	}
}

/* ---- CUDA's fatbinary ---------------------------------------------------- */

#define FATBINARY "/usr/local/cuda/bin/fatbinary"

struct inputs {
	uint8_t *cubin80, *cubin90, *ptx;
	size_t cubin80_size, cubin90_size, ptx_size;
	char cubin80_path[512], cubin90_path[512], ptx_path[512];
};

static int compile(const char *source, const char *march, const char *mode, const char *output)
{
	const char *argv[] = { "clang-22", "--target=nvptx64-nvidia-cuda", march, mode, source,
			       "-o", output, NULL };

	return run_tool(argv, NULL);
}

static int make_inputs(struct inputs *in)
{
	static const char code[] = "__attribute__((visibility(\"default\"))) int counter = 7;\n"
				   "int twice(int x) { return 2 * x + counter; }\n";
	const char *source = scratch("d.c");

	snprintf(in->cubin80_path, sizeof(in->cubin80_path), "%s", scratch("d80.cubin"));
	snprintf(in->cubin90_path, sizeof(in->cubin90_path), "%s", scratch("d90.cubin"));
	snprintf(in->ptx_path, sizeof(in->ptx_path), "%s", scratch("d80.ptx"));
	if (write_whole(source, code, strlen(code)) < 0 ||
	    compile(source, "-march=sm_80", "-c", in->cubin80_path) != 0 ||
	    compile(source, "-march=sm_90", "-c", in->cubin90_path) != 0 ||
	    compile(source, "-march=sm_80", "-S", in->ptx_path) != 0)
		return -1;
	in->cubin80 = read_whole(in->cubin80_path, &in->cubin80_size);
	in->cubin90 = read_whole(in->cubin90_path, &in->cubin90_size);
	in->ptx = read_whole(in->ptx_path, &in->ptx_size);
	return in->cubin80 && in->cubin90 && in->ptx ? 0 : -1;
}

/* fatbinary <options> --create <scratch>/<name> <images>; the file read back. */
static uint8_t *make_fatbin(const char *name, const char *const *options, const char *const *images,
			    size_t *size)
{
	const char *argv[16], *output = scratch("%s", name);
	size_t n = 0;

	argv[n++] = FATBINARY;
	for (; *options; options++)
		argv[n++] = *options;
	argv[n++] = "--create";
	argv[n++] = output;
	for (; *images; images++)
		argv[n++] = *images;
	argv[n] = NULL;
	if (run_tool(argv, NULL) != 0) {
		fprintf(stderr, "%s: fatbinary failed to write %s\n", TEST, name);
		failures++;
		return NULL;
	}
	return read_whole(output, size);
}

static int parse_ok(const char *what, const uint8_t *data, size_t size, struct ol_fatbin *fb)
{
	const char *why = NULL;
	uint64_t bad = 0;

	if (ol_fatbin_parse(data, size, fb, &why, &bad) == 0)
		return 1;
	fprintf(stderr, "%s: %s rejected: +0x%" PRIx64 ": %s\n", TEST, what, bad, why);
	failures++;
	return 0;
}

/* A stored image is the input, then zeros up to the next multiple of 8. */
static void check_stored(const struct ol_fatbin_image *im, const uint8_t *input, size_t size)
{
	CHECK(ol_fatbin_compression(im) == NULL);
	CHECK(im->payload_size == ((size + 7) & ~(size_t)7));
	CHECK(!memcmp(im->payload, input, size));
	for (size_t i = size; i < im->payload_size; i++)
		CHECK(im->payload[i] == 0);
}

/* A zstd image decompresses to its declared size; returns the bytes. */
static uint8_t *unzstd(const struct ol_fatbin_image *im)
{
	uint8_t *out = malloc(im->uncompressed_size + 1);
	size_t n;

	CHECK(ol_fatbin_compression(im) && !strcmp(ol_fatbin_compression(im), "zstd"));
	CHECK(im->compressed_size <= im->payload_size);
	n = ZSTD_decompress(out, im->uncompressed_size + 1, im->payload, im->compressed_size);
	CHECK(!ZSTD_isError(n) && n == im->uncompressed_size);
	out[ZSTD_isError(n) ? 0 : n] = 0;
	return out;
}

/* Entries follow one another and the last one ends the container. */
static void check_contiguous(const struct ol_fatbin *fb, size_t file_size)
{
	uint64_t at = fb->header_size;

	for (size_t i = 0; i < fb->nimages; i++) {
		CHECK(fb->images[i].offset == at);
		CHECK(fb->images[i].payload_offset == at + fb->images[i].header_size);
		at = fb->images[i].payload_offset + fb->images[i].payload_size;
	}
	CHECK(at == fb->size && fb->size == file_size);
}

static void test_real_fatbinaries(void)
{
	struct inputs in = { 0 };
	char elf80[600], elf90[600], ptx80[600];
	struct ol_fatbin fb;
	uint8_t *data;
	size_t size;

	if (!have_tool(FATBINARY, TEST, "checks on real fat binaries"))
		return;
	current_test = "fatbinary";
	if (make_inputs(&in) < 0) {
		printf("%s: clang-22 could not build NVPTX inputs: checks on real fat binaries skipped\n",
		       TEST);
		goto out;
	}
	snprintf(elf80, sizeof(elf80), "--image3=kind=elf,sm=80,file=%s", in.cubin80_path);
	snprintf(elf90, sizeof(elf90), "--image3=kind=elf,sm=90,file=%s", in.cubin90_path);
	snprintf(ptx80, sizeof(ptx80), "--image3=kind=ptx,sm=80,file=%s", in.ptx_path);

	/* What upstream 22 runs, with a PTX image between: PTX is compressed
	 * by default, cubins are not. */
	{
		const char *options[] = { "-64", NULL }, *images[] = { elf80, ptx80, elf90, NULL };

		data = make_fatbin("three.fatbin", options, images, &size);
		if (data && parse_ok("three.fatbin", data, size, &fb)) {
			CHECK(fb.nimages == 3);
			check_contiguous(&fb, size);
			if (fb.nimages == 3) {
				const uint64_t flags = OL_FATBIN_FLAG_64BIT | OL_FATBIN_FLAG_LINUX;
				uint8_t *text;

				CHECK(fb.images[0].kind == OL_FATBIN_ELF && fb.images[0].sm == 80);
				CHECK(fb.images[0].flags == flags && fb.images[0].header_size == 64);
				check_stored(&fb.images[0], in.cubin80, in.cubin80_size);
				CHECK(fb.images[1].kind == OL_FATBIN_PTX && fb.images[1].sm == 80);
				CHECK(fb.images[1].flags == (flags | OL_FATBIN_FLAG_COMPRESSED_ZSTD));
				text = unzstd(&fb.images[1]);
				/* fatbinary rewrites the PTX (comments go); the directives stay. */
				CHECK(strstr((char *)text, ".target sm_80") != NULL);
				free(text);
				CHECK(fb.images[2].kind == OL_FATBIN_ELF && fb.images[2].sm == 90);
				check_stored(&fb.images[2], in.cubin90, in.cubin90_size);
				CHECK(fb.images[0].ident == NULL && fb.images[0].options == NULL);
			}
			ol_fatbin_release(&fb);
		}
		if (data)
			test_flips(data, size);
		if (data)
			check_prefixes(data, size, 61, prefix_fails);
		free(data);
	}
	/* --compress-all: the cubin is compressed too, and comes back whole. */
	{
		const char *options[] = { "-64", "--compress-all", NULL }, *images[] = { elf80, NULL };

		data = make_fatbin("zstd.fatbin", options, images, &size);
		if (data && parse_ok("zstd.fatbin", data, size, &fb)) {
			CHECK(fb.nimages == 1);
			check_contiguous(&fb, size);
			if (fb.nimages == 1) {
				uint8_t *cubin = unzstd(&fb.images[0]);

				CHECK(fb.images[0].uncompressed_size == in.cubin80_size);
				CHECK(!memcmp(cubin, in.cubin80, in.cubin80_size));
				free(cubin);
			}
			ol_fatbin_release(&fb);
		}
		free(data);
	}
	/* --compress-mode=speed: NVIDIA's LZ4-like scheme; debug. */
	{
		const char *options[] = { "-64", "-g", "--compress-mode=speed", "--compress-all", NULL };
		const char *images[] = { elf80, NULL };

		data = make_fatbin("lz4.fatbin", options, images, &size);
		if (data && parse_ok("lz4.fatbin", data, size, &fb)) {
			CHECK(fb.nimages == 1);
			check_contiguous(&fb, size);
			if (fb.nimages == 1) {
				const struct ol_fatbin_image *im = &fb.images[0];

				CHECK(im->flags == (OL_FATBIN_FLAG_64BIT | OL_FATBIN_FLAG_DEBUG |
						    OL_FATBIN_FLAG_LINUX | OL_FATBIN_FLAG_COMPRESSED));
				CHECK(ol_fatbin_compression(im) && !strcmp(ol_fatbin_compression(im), "lz4"));
				CHECK(im->compressed_size <= im->payload_size &&
				      im->uncompressed_size == in.cubin80_size);
			}
			ol_fatbin_release(&fb);
		}
		free(data);
	}
	/* 32-bit PTX with an identifier and ptxas options. */
	{
		const char *options[] = { "-32", "--ident=d.cu", "--cmdline=-O3 -v", NULL };
		const char *images[] = { ptx80, NULL };

		data = make_fatbin("ptx32.fatbin", options, images, &size);
		if (data && parse_ok("ptx32.fatbin", data, size, &fb)) {
			CHECK(fb.nimages == 1);
			check_contiguous(&fb, size);
			if (fb.nimages == 1) {
				const struct ol_fatbin_image *im = &fb.images[0];

				CHECK(im->flags == (OL_FATBIN_FLAG_LINUX | OL_FATBIN_FLAG_COMPRESSED_ZSTD));
				CHECK(span_is(im->ident, im->ident_size, "d.cu"));
				CHECK(span_is(im->options, im->options_size, "-O3 -v"));
				free(unzstd(im));
			}
			ol_fatbin_release(&fb);
		}
		free(data);
	}
out:
	free(in.cubin80);
	free(in.cubin90);
	free(in.ptx);
}

int main(void)
{
	test_tiny();
	test_errors();
	test_flips(tiny, sizeof(tiny));
	if (scratch_open() < 0)
		return 2;
	test_real_fatbinaries();
	scratch_close();
	if (failures)
		fprintf(stderr, "%s: %d check(s) failed\n", TEST, failures);
	return failures != 0;
}
