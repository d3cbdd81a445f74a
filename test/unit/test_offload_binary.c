/*
 * test_offload_binary: the OffloadBinary reader and writer.
 *
 * The writer must reproduce real packager outputs byte for byte: pk16/19/22
 * below are clang-offload-packager 16/19 and llvm-offload-binary 22 outputs
 * for two images (upstream-artifacts/pk{16,19,22}.out.xxd), rebuilt here
 * from their descriptors.  The reader must accept them, decode HIP as 3 (<=
 * 20) and 4 (>= 21), and reject every truncation, a newer version and
 * malformed sizes cleanly (this file also runs under ASan/UBSan).
 */
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/offload_binary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static uint64_t ol_get_le64_for_test(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}



/* pk16.out: 344 bytes */
static const uint8_t pk16[] = {
	0x10, 0xff, 0x10, 0xad, 0x01, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x6e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x75, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x69, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x87, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x72, 0x63,
	0x68, 0x00, 0x74, 0x72, 0x69, 0x70, 0x6c, 0x65, 0x00, 0x61, 0x6d, 0x64,
	0x67, 0x63, 0x6e, 0x2d, 0x61, 0x6d, 0x64, 0x2d, 0x61, 0x6d, 0x64, 0x68,
	0x73, 0x61, 0x00, 0x67, 0x66, 0x78, 0x39, 0x30, 0x61, 0x00, 0x00, 0x00,
	0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0xff, 0x10, 0xad, 0x01, 0x00, 0x00, 0x00,
	0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xb0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x86, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x8d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7e, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xa1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x79, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa8, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x72, 0x63, 0x68, 0x00, 0x66, 0x65,
	0x61, 0x74, 0x75, 0x72, 0x65, 0x00, 0x74, 0x72, 0x69, 0x70, 0x6c, 0x65,
	0x00, 0x6e, 0x76, 0x70, 0x74, 0x78, 0x36, 0x34, 0x2d, 0x6e, 0x76, 0x69,
	0x64, 0x69, 0x61, 0x2d, 0x63, 0x75, 0x64, 0x61, 0x00, 0x2b, 0x70, 0x74,
	0x78, 0x36, 0x33, 0x00, 0x73, 0x6d, 0x5f, 0x38, 0x30, 0x00, 0x00, 0x00,
	0x58, 0x59, 0x5a, 0x00, 0x00, 0x00, 0x00, 0x00,
};
/* pk19.out: 344 bytes */
static const uint8_t pk19[] = {
	0x10, 0xff, 0x10, 0xad, 0x01, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x69, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x87, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x6e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x72, 0x63,
	0x68, 0x00, 0x74, 0x72, 0x69, 0x70, 0x6c, 0x65, 0x00, 0x61, 0x6d, 0x64,
	0x67, 0x63, 0x6e, 0x2d, 0x61, 0x6d, 0x64, 0x2d, 0x61, 0x6d, 0x64, 0x68,
	0x73, 0x61, 0x00, 0x67, 0x66, 0x78, 0x39, 0x30, 0x61, 0x00, 0x00, 0x00,
	0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0xff, 0x10, 0xad, 0x01, 0x00, 0x00, 0x00,
	0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xb0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x7e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xa1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x79, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xa8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x86, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8d, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x72, 0x63, 0x68, 0x00, 0x66, 0x65,
	0x61, 0x74, 0x75, 0x72, 0x65, 0x00, 0x74, 0x72, 0x69, 0x70, 0x6c, 0x65,
	0x00, 0x6e, 0x76, 0x70, 0x74, 0x78, 0x36, 0x34, 0x2d, 0x6e, 0x76, 0x69,
	0x64, 0x69, 0x61, 0x2d, 0x63, 0x75, 0x64, 0x61, 0x00, 0x2b, 0x70, 0x74,
	0x78, 0x36, 0x33, 0x00, 0x73, 0x6d, 0x5f, 0x38, 0x30, 0x00, 0x00, 0x00,
	0x58, 0x59, 0x5a, 0x00, 0x00, 0x00, 0x00, 0x00,
};
/* pk22.out: 344 bytes */
static const uint8_t pk22[] = {
	0x10, 0xff, 0x10, 0xad, 0x01, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x69, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x87, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x6e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x72, 0x63,
	0x68, 0x00, 0x74, 0x72, 0x69, 0x70, 0x6c, 0x65, 0x00, 0x61, 0x6d, 0x64,
	0x67, 0x63, 0x6e, 0x2d, 0x61, 0x6d, 0x64, 0x2d, 0x61, 0x6d, 0x64, 0x68,
	0x73, 0x61, 0x00, 0x67, 0x66, 0x78, 0x39, 0x30, 0x61, 0x00, 0x00, 0x00,
	0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0xff, 0x10, 0xad, 0x01, 0x00, 0x00, 0x00,
	0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xb0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x7e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xa1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x79, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xa8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x86, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8d, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x72, 0x63, 0x68, 0x00, 0x66, 0x65,
	0x61, 0x74, 0x75, 0x72, 0x65, 0x00, 0x74, 0x72, 0x69, 0x70, 0x6c, 0x65,
	0x00, 0x6e, 0x76, 0x70, 0x74, 0x78, 0x36, 0x34, 0x2d, 0x6e, 0x76, 0x69,
	0x64, 0x69, 0x61, 0x2d, 0x63, 0x75, 0x64, 0x61, 0x00, 0x2b, 0x70, 0x74,
	0x78, 0x36, 0x33, 0x00, 0x73, 0x6d, 0x5f, 0x38, 0x30, 0x00, 0x00, 0x00,
	0x58, 0x59, 0x5a, 0x00, 0x00, 0x00, 0x00, 0x00,
};

struct expected_image {
	uint16_t image_kind;
	enum ol_offload_kind kind;
	const char *const *strings;   /* key, value, ... in entry order */
	size_t nstrings;
	const char *image;
};

/* Writes the two images of a packager run and compares with its output. */
static void check_writer(const char *name, const uint8_t *expected, size_t expected_size,
			 const struct expected_image *images, int flavor)
{
	uint8_t out[1024];
	size_t total = 0;

	for (int i = 0; i < 2; i++) {
		struct ol_offload_string strings[4];
		struct ol_offload_binary_desc desc = {
			.image_kind = images[i].image_kind,
			.offload_kind_raw = ol_offload_kind_encode(images[i].kind, flavor),
			.strings = strings,
			.nstrings = images[i].nstrings,
			.image = (const uint8_t *)images[i].image,
			.image_size = strlen(images[i].image),
		};
		uint8_t *bin;
		size_t size;

		for (size_t j = 0; j < images[i].nstrings; j++) {
			strings[j].key = images[i].strings[2 * j];
			strings[j].value = images[i].strings[2 * j + 1];
		}
		bin = ol_offload_binary_write(&desc, &size);
		CHECK(size % 8 == 0);
		CHECK(total + size <= sizeof(out));
		if (total + size <= sizeof(out))
			memcpy(out + total, bin, size);
		total += size;
		free(bin);
	}
	if (total != expected_size || memcmp(out, expected, expected_size)) {
		fprintf(stderr, "%s: writer output differs from the packager's\n", name);
		for (size_t i = 0; i < total && i < expected_size; i++)
			if (out[i] != expected[i]) {
				fprintf(stderr, "  first difference at 0x%zx: 0x%02x, expected 0x%02x\n",
					i, out[i], expected[i]);
				break;
			}
		failures++;
	}
}

struct collected {
	struct ol_offload_binary bins[8];
	uint64_t offsets[8];
	int n;
};

static void collect(void *ctx, const struct ol_offload_binary *bin, uint64_t offset)
{
	struct collected *c = ctx;

	if (c->n < 8) {
		c->bins[c->n] = *bin;
		c->offsets[c->n] = offset;
	}
	c->n++;
}

/* Parses a section, capturing messages; returns the count (or -1). */
static int parse_section(const uint8_t *data, size_t size, struct collected *c,
			 struct ol_diag_buffer *diag)
{
	struct ol_loc loc = { .file = "lib.a", .member = "m.o", .section = ".llvm.offloading" };
	int n;

	memset(c, 0, sizeof(*c));
	memset(diag, 0, sizeof(*diag));
	ol_diag_capture_begin(diag);
	n = ol_offload_section_parse(data, size, &loc, &ol_link_arena, collect, c);
	ol_diag_capture_end();
	return n;
}

static const char *diag_text(const struct ol_diag_buffer *diag)
{
	return diag->text ? diag->text : "";
}

static void check_reader(const char *name, const uint8_t *data, size_t size,
			 const struct expected_image *images, uint16_t hip_raw)
{
	struct ol_diag_buffer diag;
	struct collected c;
	int n = parse_section(data, size, &c, &diag);

	CHECK(n == 2);
	CHECK(diag.len == 0);
	free(diag.text);
	if (n != 2) {
		fprintf(stderr, "%s: %d binaries\n", name, n);
		return;
	}
	CHECK(c.offsets[0] == 0 && c.offsets[1] == 0xa0);
	for (int i = 0; i < 2; i++) {
		const struct ol_offload_binary *bin = &c.bins[i];

		CHECK(bin->version == 1);
		CHECK(bin->image_kind == images[i].image_kind);
		CHECK(bin->offload_kind == images[i].kind);
		CHECK(bin->flags == 0);
		CHECK(bin->nstrings == images[i].nstrings);
		for (size_t j = 0; j < bin->nstrings && j < images[i].nstrings; j++) {
			CHECK(!strcmp(bin->strings[j].key, images[i].strings[2 * j]));
			CHECK(!strcmp(bin->strings[j].value, images[i].strings[2 * j + 1]));
		}
		CHECK(bin->image_size == strlen(images[i].image));
		CHECK(!memcmp(bin->image, images[i].image, strlen(images[i].image)));
		CHECK(bin->size % 8 == 0);
	}
	CHECK(!strcmp(c.bins[0].triple, "amdgcn-amd-amdhsa"));
	CHECK(!strcmp(c.bins[0].arch, "gfx90a"));
	CHECK(!strcmp(ol_offload_binary_get(&c.bins[1], "feature"), "+ptx63"));
	CHECK(ol_offload_binary_get(&c.bins[1], "kind") == NULL);
	if (hip_raw)
		CHECK(c.bins[1].offload_kind_raw == hip_raw);
}

/* Every proper prefix of a binary is rejected, without reading past it
 * (each prefix lives in its own exact-size allocation for ASan). */
static void check_truncations(const uint8_t *data, size_t size)
{
	for (size_t len = 0; len < size; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		struct ol_offload_binary bin;
		struct ol_diag_buffer diag;
		struct collected c;
		const char *why = NULL;
		uint64_t bad = ~0ull;
		int n;

		memcpy(copy, data, len);
		CHECK(ol_offload_binary_parse(copy, len, &ol_link_arena, &bin, &why, &bad) < 0 ||
		      len >= 0xa0);   /* the first of the two binaries ends at 0xa0 */
		if (len < 0xa0) {
			CHECK(why && *why);
			CHECK(bad < 0xa0);
		}
		n = parse_section(copy, len, &c, &diag);
		if (len == 0)
			CHECK(n == 0);
		else if (len == 0xa0)
			CHECK(n == 1);
		else
			CHECK(n == -1 && diag.errors == 1 && strstr(diag_text(&diag), "lib.a(m.o): .llvm.offloading+0x"));
		free(diag.text);
		free(copy);
	}
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void check_malformed(const uint8_t *valid, size_t size)
{
	uint8_t buf[512];
	struct ol_diag_buffer diag;
	struct collected c;
	int n;

	/* A container version no release has written is named. */
	memcpy(buf, valid, size);
	buf[4] = 4;
	n = parse_section(buf, size, &c, &diag);
	CHECK(n == -1);
	CHECK(strstr(diag_text(&diag), "lib.a(m.o): .llvm.offloading+0x4: unsupported offload binary version 4") != NULL);
	free(diag.text);
	n = parse_section(buf, 8, &c, &diag);   /* even when only the version is there */
	CHECK(n == -1 && strstr(diag_text(&diag), "unsupported offload binary version 4"));
	free(diag.text);
	/* A version 1 binary labelled 2: its entry size (40) read as a count. */
	memcpy(buf, valid, size);
	buf[4] = 2;
	n = parse_section(buf, size, &c, &diag);
	CHECK(n == -1);
	CHECK(strstr(diag_text(&diag), ".llvm.offloading+0x10: 40 entries at offset 0x20 do not fit") != NULL);
	free(diag.text);

	/* Size 0 would loop forever if trusted. */
	memcpy(buf, valid, size);
	put64(buf + 0xa0 + 8, 0);
	n = parse_section(buf, size, &c, &diag);
	CHECK(n == -1 && c.n == 1);
	CHECK(strstr(diag_text(&diag), ".llvm.offloading+0xa8: invalid offload binary size 0") != NULL);
	free(diag.text);

	/* Size past the end of the section. */
	memcpy(buf, valid, size);
	put64(buf + 8, 0x1000);
	n = parse_section(buf, size, &c, &diag);
	CHECK(n == -1 && c.n == 0 && strstr(diag_text(&diag), "+0x8: offload binary size 4096 exceeds"));
	free(diag.text);

	/* Image outside the binary. */
	memcpy(buf, valid, size);
	put64(buf + 0x40, 0x100);
	n = parse_section(buf, size, &c, &diag);
	CHECK(n == -1 && strstr(diag_text(&diag), "+0x38: image"));
	free(diag.text);

	/* String offset outside the binary; string without its NUL. */
	memcpy(buf, valid, size);
	put64(buf + 0x48, 0xa0);
	n = parse_section(buf, size, &c, &diag);
	CHECK(n == -1 && strstr(diag_text(&diag), "+0x48: string key"));
	free(diag.text);
	memcpy(buf, valid, size);
	memset(buf + 0x88, 'x', 8);   /* "gfx90a\0" runs into the padding, then the image */
	memset(buf + 0x90, 'y', 0x10);
	n = parse_section(buf, 0xa0, &c, &diag);
	CHECK(n == -1 && strstr(diag_text(&diag), "string value"));
	free(diag.text);

	/* Too many string entries. */
	memcpy(buf, valid, size);
	put64(buf + 0x30, 1ull << 60);
	n = parse_section(buf, size, &c, &diag);
	CHECK(n == -1 && strstr(diag_text(&diag), "+0x28: string entries"));
	free(diag.text);

	/* Bad magic at the second binary: the offset names it. */
	memcpy(buf, valid, size);
	buf[0xa0] = 0;
	n = parse_section(buf, size, &c, &diag);
	CHECK(n == -1 && strstr(diag_text(&diag), ".llvm.offloading+0xa0: not an offload binary"));
	free(diag.text);

	/* A section padded past the last binary is fine only up to 8. */
	memcpy(buf, valid, 0xa0);
	n = parse_section(buf, 0xa0, &c, &diag);
	CHECK(n == 1);
	free(diag.text);
}

/* Unaligned input: the reader must not care where the binary sits. */
static void check_unaligned(const uint8_t *valid, size_t size)
{
	uint8_t *buf = malloc(size + 3);
	struct ol_diag_buffer diag;
	struct collected c;

	memcpy(buf + 3, valid, size);
	CHECK(parse_section(buf + 3, size, &c, &diag) == 2);
	free(diag.text);
	free(buf);
}

/* Random corruption: must never crash or read out of bounds. */
static void check_flips(const uint8_t *valid, size_t size)
{
	uint64_t state = 0x9e3779b97f4a7c15ull;

	for (int round = 0; round < 20000; round++) {
		uint8_t *buf = malloc(size);
		struct ol_diag_buffer diag;
		struct collected c;
		int flips = 1 + round % 4;

		memcpy(buf, valid, size);
		for (int i = 0; i < flips; i++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			buf[(state >> 33) % size] ^= (uint8_t)(1u << ((state >> 29) & 7));
		}
		parse_section(buf, size, &c, &diag);
		free(diag.text);
		free(buf);
	}
}

static void check_string_table(void)
{
	/* Tail merging: "64" is the tail of "x86_64"; "" is offset 0. */
	struct ol_offload_string strings[] = {
		{ "triple", "x86_64", 0 }, { "arch", "", 0 }, { "feature", "64", 0 },
	};
	struct ol_offload_binary_desc desc = {
		.image_kind = OL_IMG_OBJECT, .offload_kind_raw = 1,
		.strings = strings, .nstrings = 3,
		.image = (const uint8_t *)"\x7f" "ELF", .image_size = 4,
	};
	struct ol_offload_binary bin;
	const char *why;
	uint64_t bad, strtab = 72 + 3 * 16;
	size_t size;
	uint8_t *out = ol_offload_binary_write(&desc, &size);

	CHECK(ol_offload_binary_parse(out, size, &ol_link_arena, &bin, &why, &bad) == 0);
	CHECK(!strcmp(bin.triple, "x86_64") && !strcmp(bin.arch, ""));
	CHECK(!strcmp(ol_offload_binary_get(&bin, "feature"), "64"));
	/* Descending reversed strings: "hcra" > "erutaef" > "elpirt" >
	 * "46_68x" > "46" (its tail) > "". */
	CHECK(!memcmp(out + strtab, "\0arch\0feature\0triple\0x86_64\0", 29));
	CHECK(bin.strings[1].value == (const char *)out + strtab);      /* "" -> 0 */
	CHECK(bin.strings[2].value == (const char *)out + strtab + 25); /* "64" in "x86_64" */
	CHECK(size == 72 + 48 + 32 + 8);
	free(out);

	/* No strings, no image. */
	desc.nstrings = 0;
	desc.image_size = 0;
	out = ol_offload_binary_write(&desc, &size);
	CHECK(size == 80);
	CHECK(ol_offload_binary_parse(out, size, &ol_link_arena, &bin, &why, &bad) == 0);
	CHECK(bin.nstrings == 0 && bin.image_size == 0 && !strcmp(bin.triple, ""));
	free(out);
}

/* Versions 2 and 3 (after 22): two entries in one binary, sized values (one
 * holding a NUL), a metadata-only entry; version 3 plain, zlib and zstd. */
static void check_later_versions(void)
{
	static const char nul_value[] = "a\0b";
	struct ol_offload_string first[] = {
		{ "triple", "nvptx64-nvidia-cuda", 0 }, { "arch", "sm_90", 0 },
	};
	struct ol_offload_string second[] = {
		{ "triple", "spirv64-intel", 0 }, { "symbols", nul_value, 3 },
	};
	struct ol_offload_binary_desc descs[] = {
		{ OL_IMG_CUBIN, OL_OFK_CUDA, 0, first, 2, (const uint8_t *)"CUBIN!", 6 },
		{ OL_IMG_SPIRV, OL_OFK_SYCL, OL_OFFLOAD_FLAG_METADATA, second, 2, NULL, 0 },
	};
	static const int compress[] = { -1, -1, 0, 1 };
	static const unsigned versions[] = { 2, 3, 3, 3 };

	for (size_t k = 0; k < sizeof(versions) / sizeof(versions[0]); k++) {
		struct ol_offload_write_options opts = { versions[k], compress[k], -1 };
		struct ol_offload_binaries all;
		const char *why = NULL;
		uint64_t bad = 0, header = versions[k] >= 3 ? 40 : 32;
		size_t size;
		uint8_t *out = ol_offload_binary_write_version(descs, 2, &opts, &size, &why);

		CHECK(out != NULL);
		if (!out)
			continue;
		CHECK(size % 8 == 0);
		CHECK(out[4] == versions[k]);
		CHECK(ol_offload_binary_parse_all(out, size, &ol_link_arena, &all, &why, &bad) == 0);
		CHECK(all.n == 2 && all.stored_size <= size && size - all.stored_size < 8);
		if (all.n != 2) {
			free(out);
			continue;
		}
		CHECK(all.v[0].compressed == (compress[k] >= 0));
		CHECK(all.v[0].image_kind == OL_IMG_CUBIN && all.v[0].offload_kind == OL_OFK_CUDA);
		CHECK(!strcmp(all.v[0].triple, "nvptx64-nvidia-cuda") && !strcmp(all.v[0].arch, "sm_90"));
		CHECK(all.v[0].image_size == 6 && !memcmp(all.v[0].image, "CUBIN!", 6));
		CHECK(all.v[1].index == 1 && all.v[1].flags == OL_OFFLOAD_FLAG_METADATA);
		CHECK(all.v[1].image_size == 0 && all.v[1].offload_kind == OL_OFK_SYCL);
		CHECK(all.v[1].strings[1].value_size == 3 &&
		      !memcmp(all.v[1].strings[1].value, nul_value, 3));
		if (compress[k] < 0) {
			/* Layout: header, two entries, three... 4 string entries of 24. */
			CHECK(ol_get_le64_for_test(out + 16) == header);
			CHECK(ol_get_le64_for_test(out + 24) == 2);
			CHECK(ol_get_le64_for_test(out + header + 8) == header + 80);
			CHECK(ol_get_le64_for_test(out + header + 40 + 8) == header + 80 + 48);
		} else {
			/* Compressed: the stored size is the header and stream; a
			 * damaged stream or a false inflated size is an error. */
			uint8_t *bad_copy = malloc(size);

			CHECK(ol_get_le64_for_test(out + 32) > all.stored_size);
			memcpy(bad_copy, out, size);
			bad_copy[44] ^= 0x55;
			bad_copy[45] ^= 0x55;
			CHECK(ol_offload_binary_parse_all(bad_copy, size, &ol_link_arena, &all, &why,
							  &bad) < 0);
			memcpy(bad_copy, out, size);
			bad_copy[32] += 1;   /* one byte more inflated than the stream holds */
			CHECK(ol_offload_binary_parse_all(bad_copy, size, &ol_link_arena, &all, &why,
							  &bad) < 0);
			CHECK(strstr(why, "fewer bytes") != NULL && bad == 32);
			memcpy(bad_copy, out, size);
			bad_copy[37] = 0x40;   /* an inflated size of 2^42 from a few bytes */
			CHECK(ol_offload_binary_parse_all(bad_copy, size, &ol_link_arena, &all, &why,
							  &bad) < 0);
			CHECK(strstr(why, "impossible") != NULL);
			free(bad_copy);
		}
		/* Every truncation fails cleanly. */
		for (size_t cut = 0; cut < all.stored_size; cut++) {
			uint8_t *copy = malloc(cut ? cut : 1);

			memcpy(copy, out, cut);
			CHECK(ol_offload_binary_parse_all(copy, cut, &ol_link_arena, &all, &why, &bad) < 0);
			free(copy);
		}
		free(out);
	}
	{
		/* Version 4 does not exist; version 0 never did. */
		uint8_t header[40] = { 0x10, 0xff, 0x10, 0xad, 4 };
		struct ol_offload_binaries all;
		const char *why;
		uint64_t bad;

		CHECK(ol_offload_binary_parse_all(header, sizeof(header), &ol_link_arena, &all, &why,
						  &bad) < 0 && bad == 4);
		header[4] = 0;
		CHECK(ol_offload_binary_parse_all(header, sizeof(header), &ol_link_arena, &all, &why,
						  &bad) < 0 && bad == 4);
	}
}

static void check_kinds(void)
{
	CHECK(ol_offload_kind_decode(3) == OL_OFK_HIP);
	CHECK(ol_offload_kind_decode(4) == OL_OFK_HIP);
	CHECK(ol_offload_kind_decode(1) == OL_OFK_OPENMP);
	CHECK(ol_offload_kind_decode(2) == OL_OFK_CUDA);
	CHECK(ol_offload_kind_decode(8) == OL_OFK_SYCL);
	CHECK(ol_offload_kind_decode(0) == OL_OFK_NONE);
	CHECK(ol_offload_kind_decode(16) == OL_OFK_NONE);
	CHECK(ol_offload_kind_encode(OL_OFK_HIP, 16) == 3);
	CHECK(ol_offload_kind_encode(OL_OFK_HIP, 19) == 3);
	CHECK(ol_offload_kind_encode(OL_OFK_HIP, 22) == 4);
	CHECK(ol_offload_kind_encode(OL_OFK_OPENMP, 19) == 1);
	CHECK(ol_offload_kind_encode(OL_OFK_CUDA, 22) == 2);
	CHECK(!strcmp(ol_offload_kind_name(OL_OFK_HIP), "hip"));
	CHECK(!strcmp(ol_offload_kind_name(OL_OFK_NONE), "none"));
	CHECK(ol_offload_kind_from_name("openmp") == OL_OFK_OPENMP);
	CHECK(ol_offload_kind_from_name("sycl") == OL_OFK_SYCL);
	CHECK(ol_offload_kind_from_name("bogus") == OL_OFK_NONE);
	CHECK(!strcmp(ol_image_kind_name(OL_IMG_PTX), "s"));
	CHECK(!strcmp(ol_image_kind_name(OL_IMG_FATBINARY), "fatbin"));
	CHECK(!strcmp(ol_image_kind_name(OL_IMG_NONE), ""));
}

/* clang-sycl-linker 22 writes a SYCL image's entry points one per line;
 * upstream's wrapper reads them with line_iterator. */
static void check_symbol_list(void)
{
	static const struct {
		const char *list;
		size_t n;
		const char *names[3];
	} cases[] = {
		{ "", 0, { NULL } },
		{ "stub", 1, { "stub" } },
		{ "_ZTS4kern\n_ZTS5kern2", 2, { "_ZTS4kern", "_ZTS5kern2" } },
		{ "a\n\n\nb\n", 2, { "a", "b" } },
		{ "\na\r\nb", 2, { "a", "b" } },
		/* A '\r' not followed by '\n' is part of the name. */
		{ "a\r\r\nb\r", 2, { "a\r", "b\r" } },
		{ "\n\r\n\n", 0, { NULL } },
	};

	current_test = "symbol list";
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char **names = NULL;
		size_t n = ol_offload_symbol_list(cases[i].list, &ol_link_arena, &names);

		CHECK(n == cases[i].n);
		for (size_t k = 0; k < n && k < cases[i].n; k++)
			CHECK(!strcmp(names[k], cases[i].names[k]));
	}
	current_test = "";
}

int main(void)
{
	static const char *const amd_triple_arch[] = {
		"triple", "amdgcn-amd-amdhsa", "arch", "gfx90a" };
	static const char *const amd_arch_triple[] = {
		"arch", "gfx90a", "triple", "amdgcn-amd-amdhsa" };
	static const char *const nv16[] = {
		"triple", "nvptx64-nvidia-cuda", "feature", "+ptx63", "arch", "sm_80" };
	static const char *const nv19[] = {
		"feature", "+ptx63", "arch", "sm_80", "triple", "nvptx64-nvidia-cuda" };
	/* String entry order: 16 iterates a StringMap (hash order), 19/22 the
	 * packager's insertion order. */
	const struct expected_image images16[] = {
		{ OL_IMG_NONE, OL_OFK_OPENMP, amd_triple_arch, 2, "ABCDEFGHIJ" },
		{ OL_IMG_NONE, OL_OFK_CUDA, nv16, 3, "XYZ" },
	};
	const struct expected_image images19[] = {
		{ OL_IMG_NONE, OL_OFK_OPENMP, amd_arch_triple, 2, "ABCDEFGHIJ" },
		{ OL_IMG_NONE, OL_OFK_HIP, nv19, 3, "XYZ" },
	};

	check_writer("pk16", pk16, sizeof(pk16), images16, 16);
	check_writer("pk19", pk19, sizeof(pk19), images19, 19);
	check_writer("pk22", pk22, sizeof(pk22), images19, 22);
	check_reader("pk16", pk16, sizeof(pk16), images16, 0);
	check_reader("pk19", pk19, sizeof(pk19), images19, 3);
	check_reader("pk22", pk22, sizeof(pk22), images19, 4);
	check_truncations(pk22, sizeof(pk22));
	check_malformed(pk22, sizeof(pk22));
	check_unaligned(pk19, sizeof(pk19));
	check_flips(pk16, sizeof(pk16));
	check_string_table();
	check_later_versions();
	check_kinds();
	check_symbol_list();
	ol_arena_release(&ol_link_arena);
	if (failures)
		fprintf(stderr, "test_offload_binary: %d check(s) failed\n", failures);
	return failures != 0;
}
