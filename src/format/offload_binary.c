/*
 * offload_binary: read and write the OffloadBinary container, version 1
 * (upstream-spec section 2).  See offload/offload_binary.h.
 *
 * Reading never assumes alignment: every field is assembled little-endian
 * byte by byte (format_internal.h), so a binary may sit at any address inside an
 * mmapped file or archive member.  Every offset and size read from the
 * binary is checked against the binary's own Size (not only against the
 * buffer, as upstream does), so a binary is self-contained and a
 * concatenation can be walked safely.
 */
#include "offload/offload_binary.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "format_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Field offsets of the version 1 layout. */
enum {
	HDR_MAGIC = 0x00, HDR_VERSION = 0x04, HDR_SIZE = 0x08,
	HDR_ENTRY_OFFSET = 0x10, HDR_ENTRY_SIZE = 0x18,
	ENT_IMAGE_KIND = 0x00, ENT_OFFLOAD_KIND = 0x02, ENT_FLAGS = 0x04,
	ENT_STRING_OFFSET = 0x08, ENT_NUM_STRINGS = 0x10,
	ENT_IMAGE_OFFSET = 0x18, ENT_IMAGE_SIZE = 0x20,
	STRING_ENTRY_SIZE = 16,
};

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/* ---- enumerations ------------------------------------------------------ */

enum ol_offload_kind ol_offload_kind_decode(uint16_t raw)
{
	switch (raw) {
	case 1: return OL_OFK_OPENMP;
	case 2: return OL_OFK_CUDA;
	case 3: return OL_OFK_HIP;    /* LLVM <= 20 numbering */
	case 4: return OL_OFK_HIP;    /* LLVM >= 21 numbering */
	case 8: return OL_OFK_SYCL;
	default: return OL_OFK_NONE;
	}
}

uint16_t ol_offload_kind_encode(enum ol_offload_kind kind, int flavor)
{
	if (kind == OL_OFK_HIP)
		/* 16 and 19 write 3; 22 (and AUTO, which means the newest) write 4. */
		return (flavor != 0 && flavor < 21) ? 3 : 4;
	return (uint16_t)kind;
}

const char *ol_offload_kind_name(enum ol_offload_kind kind)
{
	switch (kind) {
	case OL_OFK_OPENMP: return "openmp";
	case OL_OFK_CUDA: return "cuda";
	case OL_OFK_HIP: return "hip";
	case OL_OFK_SYCL: return "sycl";
	default: return "none";
	}
}

enum ol_offload_kind ol_offload_kind_from_name(const char *name)
{
	static const enum ol_offload_kind kinds[] = {
		OL_OFK_OPENMP, OL_OFK_CUDA, OL_OFK_HIP, OL_OFK_SYCL,
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(name, ol_offload_kind_name(kinds[i])))
			return kinds[i];
	return OL_OFK_NONE;
}

const char *ol_image_kind_name(enum ol_image_kind kind)
{
	switch (kind) {
	case OL_IMG_OBJECT: return "o";
	case OL_IMG_BITCODE: return "bc";
	case OL_IMG_CUBIN: return "cubin";
	case OL_IMG_FATBINARY: return "fatbin";
	case OL_IMG_PTX: return "s";
	case OL_IMG_SPIRV: return "spv";
	default: return "";
	}
}

/* ---- reader ------------------------------------------------------------ */

/* A string at `offset` must start and end (NUL) inside the binary. */
static const char *string_at(const uint8_t *data, uint64_t size, uint64_t offset)
{
	if (offset >= size)
		return NULL;
	if (!memchr(data + offset, '\0', (size_t)(size - offset)))
		return NULL;
	return (const char *)data + offset;
}

int ol_offload_binary_parse(const uint8_t *data, size_t avail, struct ol_arena *arena,
			    struct ol_offload_binary *out, const char **why, uint64_t *bad_offset)
{
	uint64_t size, entry_offset, entry_size, string_offset, nstrings;
	uint64_t image_offset, image_size;
	const uint8_t *entry;

	memset(out, 0, sizeof(*out));
	if (avail < 4 || memcmp(data, OL_OFFLOAD_MAGIC_BYTES, 4))
		return ol_format_fail(why, bad_offset, 0, "not an offload binary (bad magic)");
	if (avail < HDR_VERSION + 4)
		return ol_format_fail(why, bad_offset, 0, "truncated offload binary header");
	out->version = ol_get32le(data + HDR_VERSION);
	if (out->version != 1)
		/* Versions 2 and 3 come from LLVM newer than 22 (spec 2.4). */
		return ol_format_fail(why, bad_offset, HDR_VERSION,
				      "unsupported offload binary version %" PRIu32
				      " (only version 1, written by LLVM 16 to 22, is supported)",
				      out->version);
	if (avail < OL_OFFLOAD_HEADER_SIZE)
		return ol_format_fail(why, bad_offset, 0,
				      "truncated offload binary header (%zu of %d bytes)",
				      avail, OL_OFFLOAD_HEADER_SIZE);

	size = ol_get64le(data + HDR_SIZE);
	if (size < OL_OFFLOAD_HEADER_SIZE + OL_OFFLOAD_ENTRY_SIZE)
		return ol_format_fail(why, bad_offset, HDR_SIZE,
				      "invalid offload binary size %" PRIu64, size);
	if (size > avail)
		return ol_format_fail(why, bad_offset, HDR_SIZE,
				      "offload binary size %" PRIu64 " exceeds the %zu bytes available",
				      size, avail);

	entry_offset = ol_get64le(data + HDR_ENTRY_OFFSET);
	entry_size = ol_get64le(data + HDR_ENTRY_SIZE);
	if (entry_offset > size - OL_OFFLOAD_ENTRY_SIZE)
		return ol_format_fail(why, bad_offset, HDR_ENTRY_OFFSET,
				      "entry offset 0x%" PRIx64 " is out of bounds", entry_offset);
	if (entry_size > size - OL_OFFLOAD_HEADER_SIZE)
		return ol_format_fail(why, bad_offset, HDR_ENTRY_SIZE,
				      "entry size %" PRIu64 " is out of bounds", entry_size);

	entry = data + entry_offset;
	out->data = data;
	out->size = size;
	out->image_kind = ol_get16le(entry + ENT_IMAGE_KIND);
	out->offload_kind_raw = ol_get16le(entry + ENT_OFFLOAD_KIND);
	out->offload_kind = ol_offload_kind_decode(out->offload_kind_raw);
	out->flags = ol_get32le(entry + ENT_FLAGS);
	string_offset = ol_get64le(entry + ENT_STRING_OFFSET);
	nstrings = ol_get64le(entry + ENT_NUM_STRINGS);
	image_offset = ol_get64le(entry + ENT_IMAGE_OFFSET);
	image_size = ol_get64le(entry + ENT_IMAGE_SIZE);

	if (image_offset > size || image_size > size - image_offset)
		return ol_format_fail(why, bad_offset, entry_offset + ENT_IMAGE_OFFSET,
				      "image (offset 0x%" PRIx64 ", size %" PRIu64
				      ") is outside the binary of %" PRIu64 " bytes",
				      image_offset, image_size, size);
	if (string_offset > size || nstrings > (size - string_offset) / STRING_ENTRY_SIZE)
		return ol_format_fail(why, bad_offset, entry_offset + ENT_STRING_OFFSET,
				      "string entries (offset 0x%" PRIx64 ", count %" PRIu64
				      ") are outside the binary of %" PRIu64 " bytes",
				      string_offset, nstrings, size);

	out->image = data + image_offset;
	out->image_size = image_size;
	out->nstrings = (size_t)nstrings;
	out->strings = nstrings ? ol_arena_alloc(arena, sizeof(*out->strings) * (size_t)nstrings)
				: NULL;
	for (uint64_t i = 0; i < nstrings; i++) {
		uint64_t at = string_offset + i * STRING_ENTRY_SIZE;
		uint64_t key_offset = ol_get64le(data + at);
		uint64_t value_offset = ol_get64le(data + at + 8);
		const char *key = string_at(data, size, key_offset);
		const char *value = string_at(data, size, value_offset);

		if (!key)
			return ol_format_fail(why, bad_offset, at,
					      "string key at 0x%" PRIx64 " is not NUL-terminated inside the binary",
					      key_offset);
		if (!value)
			return ol_format_fail(why, bad_offset, at + 8,
					      "string value at 0x%" PRIx64
					      " is not NUL-terminated inside the binary", value_offset);
		out->strings[i].key = key;
		out->strings[i].value = value;
	}
	out->triple = ol_offload_binary_get(out, "triple");
	out->arch = ol_offload_binary_get(out, "arch");
	if (!out->triple)
		out->triple = "";
	if (!out->arch)
		out->arch = "";
	return 0;
}

const char *ol_offload_binary_get(const struct ol_offload_binary *bin, const char *key)
{
	/* Upstream keeps a map: the last occurrence of a key wins. */
	for (size_t i = bin->nstrings; i-- > 0;)
		if (!strcmp(bin->strings[i].key, key))
			return bin->strings[i].value;
	return NULL;
}

/* Length of the line at p and where the next one starts: "\n" and "\r\n"
 * end a line, a lone '\r' belongs to it. */
static size_t line_length(const char *p, const char **next)
{
	size_t len = 0;

	while (p[len] && p[len] != '\n' && !(p[len] == '\r' && p[len + 1] == '\n'))
		len++;
	*next = p + len + (p[len] == '\n' ? 1 : p[len] == '\r' ? 2 : 0);
	return len;
}

size_t ol_offload_symbol_list(const char *list, struct ol_arena *arena, const char ***names_out)
{
	const char *p, *next;
	const char **names;
	size_t n = 0;

	for (p = list; *p; p = next)
		n += line_length(p, &next) != 0;
	names = ol_arena_alloc(arena, (n ? n : 1) * sizeof(*names));
	n = 0;
	for (p = list; *p; p = next) {
		size_t len = line_length(p, &next);

		if (len)
			names[n++] = ol_arena_strndup(arena, p, len);
	}
	*names_out = names;
	return n;
}

int ol_offload_section_parse(const uint8_t *data, size_t size, const struct ol_loc *loc,
			     struct ol_arena *arena, ol_offload_binary_cb cb, void *ctx)
{
	uint64_t offset = 0;
	int count = 0;

	while (offset < size) {
		struct ol_offload_binary bin;
		const char *why;
		uint64_t bad;

		if (ol_offload_binary_parse(data + offset, size - (size_t)offset, arena, &bin,
					    &why, &bad) < 0) {
			struct ol_loc at = *loc;

			at.offset = offset + bad;
			at.has_offset = 1;
			return ol_error_at(&at, "%s", why);
		}
		cb(ctx, &bin, offset);
		count++;
		/* bin.size >= 72 and <= size - offset: the walk always advances
		 * and never leaves the section. */
		offset = align8(offset + bin.size);
	}
	return count;
}

/* ---- writer ------------------------------------------------------------ */

/* The string table of StringTableBuilder(ELF), optimized: strings sorted so
 * that suffixes follow the strings they end, each emitted once. */
struct strtab_entry {
	const char *s;
	size_t len;
	uint64_t offset;
};

/* Order of llvm::StringTableBuilder's multikeySort: compare characters from
 * the end, greater first; a string that runs out first (a suffix of the
 * other) goes after.  That is: descending order of the reversed strings. */
static int strtab_cmp(const void *a, const void *b)
{
	const struct strtab_entry *x = *(const struct strtab_entry *const *)a;
	const struct strtab_entry *y = *(const struct strtab_entry *const *)b;

	for (size_t i = 0;; i++) {
		int cx = i < x->len ? (unsigned char)x->s[x->len - 1 - i] : -1;
		int cy = i < y->len ? (unsigned char)y->s[y->len - 1 - i] : -1;

		if (cx != cy)
			return cx > cy ? -1 : 1;
		if (cx < 0)
			return 0;
	}
}

static int ends_with(const struct strtab_entry *longer, const struct strtab_entry *tail)
{
	return longer->len >= tail->len &&
	       !memcmp(longer->s + longer->len - tail->len, tail->s, tail->len);
}

/* Lays out the table; returns its size.  entries[] get their offsets. */
static uint64_t strtab_finalize(struct strtab_entry *entries, size_t n)
{
	struct strtab_entry **order = ol_xcalloc(n ? n : 1, sizeof(*order));
	const struct strtab_entry *previous = NULL;
	uint64_t size = 1;   /* offset 0 is the empty string */
	size_t nunique = 0;

	/* Identical strings are stored once: keep the first of each. */
	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < nunique; j++)
			if (order[j]->len == entries[i].len &&
			    !memcmp(order[j]->s, entries[i].s, entries[i].len))
				break;
		if (j == nunique)
			order[nunique++] = &entries[i];
	}
	qsort(order, nunique, sizeof(*order), strtab_cmp);
	for (size_t i = 0; i < nunique; i++) {
		struct strtab_entry *e = order[i];

		if (e->len == 0) {
			e->offset = 0;   /* "" is always the leading NUL */
		} else if (previous && ends_with(previous, e)) {
			e->offset = size - e->len - 1;
		} else {
			e->offset = size;
			size += e->len + 1;
			previous = e;
		}
	}
	/* Duplicates take the offset of the copy that was kept. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < nunique; j++)
			if (order[j]->len == entries[i].len &&
			    !memcmp(order[j]->s, entries[i].s, entries[i].len)) {
				entries[i].offset = order[j]->offset;
				break;
			}
	free(order);
	return size;
}

uint8_t *ol_offload_binary_write(const struct ol_offload_binary_desc *desc, size_t *size_out)
{
	size_t nstr = desc->nstrings;
	struct strtab_entry *entries = ol_xcalloc(nstr ? 2 * nstr : 1, sizeof(*entries));
	uint64_t strings_offset = OL_OFFLOAD_HEADER_SIZE + OL_OFFLOAD_ENTRY_SIZE;
	uint64_t strtab_offset = strings_offset + (uint64_t)nstr * STRING_ENTRY_SIZE;
	uint64_t strtab_size, image_offset, total;
	uint8_t *out, *entry;

	for (size_t i = 0; i < nstr; i++) {
		entries[2 * i].s = desc->strings[i].key;
		entries[2 * i].len = strlen(desc->strings[i].key);
		entries[2 * i + 1].s = desc->strings[i].value;
		entries[2 * i + 1].len = strlen(desc->strings[i].value);
	}
	strtab_size = strtab_finalize(entries, 2 * nstr);
	image_offset = align8(strtab_offset + strtab_size);
	total = align8(image_offset + desc->image_size);

	out = ol_xcalloc(1, (size_t)total);
	memcpy(out + HDR_MAGIC, OL_OFFLOAD_MAGIC_BYTES, 4);
	ol_put32le(out + HDR_VERSION, 1);
	ol_put64le(out + HDR_SIZE, total);
	ol_put64le(out + HDR_ENTRY_OFFSET, OL_OFFLOAD_HEADER_SIZE);
	ol_put64le(out + HDR_ENTRY_SIZE, OL_OFFLOAD_ENTRY_SIZE);

	entry = out + OL_OFFLOAD_HEADER_SIZE;
	ol_put16le(entry + ENT_IMAGE_KIND, desc->image_kind);
	ol_put16le(entry + ENT_OFFLOAD_KIND, desc->offload_kind_raw);
	ol_put32le(entry + ENT_FLAGS, desc->flags);
	ol_put64le(entry + ENT_STRING_OFFSET, strings_offset);
	ol_put64le(entry + ENT_NUM_STRINGS, nstr);
	ol_put64le(entry + ENT_IMAGE_OFFSET, image_offset);
	ol_put64le(entry + ENT_IMAGE_SIZE, desc->image_size);

	for (size_t i = 0; i < nstr; i++) {
		uint8_t *se = out + strings_offset + i * STRING_ENTRY_SIZE;

		ol_put64le(se, strtab_offset + entries[2 * i].offset);
		ol_put64le(se + 8, strtab_offset + entries[2 * i + 1].offset);
	}
	for (size_t i = 0; i < 2 * nstr; i++)
		memcpy(out + strtab_offset + entries[i].offset, entries[i].s, entries[i].len);
	if (desc->image_size)
		memcpy(out + image_offset, desc->image, (size_t)desc->image_size);
	free(entries);
	*size_out = (size_t)total;
	return out;
}
