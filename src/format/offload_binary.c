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
#include "compression.h"
#include "format_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Field offsets.  HDR_ENTRY_SIZE holds the entry's size in version 1 and
 * the number of entries from version 2 on; HDR_INFLATED_SIZE exists from
 * version 3 on. */
enum {
	HDR_MAGIC = 0x00, HDR_VERSION = 0x04, HDR_SIZE = 0x08,
	HDR_ENTRY_OFFSET = 0x10, HDR_ENTRY_SIZE = 0x18, HDR_INFLATED_SIZE = 0x20,
	ENT_IMAGE_KIND = 0x00, ENT_OFFLOAD_KIND = 0x02, ENT_FLAGS = 0x04,
	ENT_STRING_OFFSET = 0x08, ENT_NUM_STRINGS = 0x10,
	ENT_IMAGE_OFFSET = 0x18, ENT_IMAGE_SIZE = 0x20,
	STRING_ENTRY_SIZE_V1 = 16, STRING_ENTRY_SIZE_V2 = 24,
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

/* The header of each version: v1 keeps the entry's size where v2 keeps the
 * entry count; v3 adds the inflated size of a compressed body. */
static uint64_t header_size(uint32_t version)
{
	return version >= 3 ? OL_OFFLOAD_HEADER_SIZE_V3 : OL_OFFLOAD_HEADER_SIZE;
}

static uint64_t string_entry_size(uint32_t version)
{
	return version == 1 ? STRING_ENTRY_SIZE_V1 : STRING_ENTRY_SIZE_V2;
}

/* A NUL-terminated string at `offset` must start and end inside the binary. */
static const char *string_at(const uint8_t *data, uint64_t size, uint64_t offset)
{
	if (offset >= size)
		return NULL;
	if (!memchr(data + offset, '\0', (size_t)(size - offset)))
		return NULL;
	return (const char *)data + offset;
}

/* A v2 value: `length` bytes at `offset`, inside the binary; NUL-terminated
 * for the C side (a copy when the writer did not end it with one). */
static const char *sized_string_at(const uint8_t *data, uint64_t size, uint64_t offset,
				   uint64_t length, struct ol_arena *arena)
{
	if (offset > size || length > size - offset)
		return NULL;
	if (length < size - offset && data[offset + length] == '\0')
		return (const char *)data + offset;
	return ol_arena_strndup(arena, (const char *)data + offset, (size_t)length);
}

/* One entry of a binary whose header was checked: its fields, string map
 * and image, each bounded by the binary's size. */
static int parse_entry(const uint8_t *data, uint64_t size, uint32_t version, uint64_t at,
		       struct ol_arena *arena, struct ol_offload_binary *out,
		       const char **why, uint64_t *bad_offset)
{
	const uint8_t *entry = data + at;
	uint64_t string_offset, nstrings, image_offset, image_size;
	uint64_t stride = string_entry_size(version);

	out->image_kind = ol_get16le(entry + ENT_IMAGE_KIND);
	out->offload_kind_raw = ol_get16le(entry + ENT_OFFLOAD_KIND);
	out->offload_kind = ol_offload_kind_decode(out->offload_kind_raw);
	out->flags = ol_get32le(entry + ENT_FLAGS);
	string_offset = ol_get64le(entry + ENT_STRING_OFFSET);
	nstrings = ol_get64le(entry + ENT_NUM_STRINGS);
	image_offset = ol_get64le(entry + ENT_IMAGE_OFFSET);
	image_size = ol_get64le(entry + ENT_IMAGE_SIZE);

	if (image_offset > size || image_size > size - image_offset)
		return ol_format_fail(why, bad_offset, at + ENT_IMAGE_OFFSET,
				      "image (offset 0x%" PRIx64 ", size %" PRIu64
				      ") is outside the binary of %" PRIu64 " bytes",
				      image_offset, image_size, size);
	if (string_offset > size || nstrings > (size - string_offset) / stride)
		return ol_format_fail(why, bad_offset, at + ENT_STRING_OFFSET,
				      "string entries (offset 0x%" PRIx64 ", count %" PRIu64
				      ") are outside the binary of %" PRIu64 " bytes",
				      string_offset, nstrings, size);

	out->image = data + image_offset;
	out->image_size = image_size;
	out->nstrings = (size_t)nstrings;
	out->strings = nstrings ? ol_arena_alloc(arena, sizeof(*out->strings) * (size_t)nstrings)
				: NULL;
	for (uint64_t i = 0; i < nstrings; i++) {
		uint64_t se = string_offset + i * stride;
		uint64_t key_offset = ol_get64le(data + se);
		uint64_t value_offset = ol_get64le(data + se + 8);
		uint64_t value_size = version == 1 ? 0 : ol_get64le(data + se + 16);
		const char *key = string_at(data, size, key_offset);
		const char *value = version == 1
			? string_at(data, size, value_offset)
			: sized_string_at(data, size, value_offset, value_size, arena);

		if (!key)
			return ol_format_fail(why, bad_offset, se,
					      "string key at 0x%" PRIx64 " is not NUL-terminated inside the binary",
					      key_offset);
		if (!value)
			return ol_format_fail(why, bad_offset, se + 8, version == 1
					      ? "string value at 0x%" PRIx64
						" is not NUL-terminated inside the binary"
					      : "string value at 0x%" PRIx64
						" runs past the end of the binary", value_offset);
		out->strings[i].key = key;
		out->strings[i].value = value;
		out->strings[i].value_size = version == 1 ? strlen(value) : (size_t)value_size;
	}
	out->triple = ol_offload_binary_get(out, "triple");
	out->arch = ol_offload_binary_get(out, "arch");
	if (!out->triple)
		out->triple = "";
	if (!out->arch)
		out->arch = "";
	return 0;
}

/* Version 3 with InflatedSize: everything after the header is one zlib or
 * zstd stream of the body.  The binary is rebuilt in the arena as upstream
 * rebuilds it (the header with Size = InflatedSize and no InflatedSize,
 * then the body), and parsed as an uncompressed one. */
static int inflate_binary(const uint8_t *data, uint64_t size, struct ol_arena *arena,
			  const uint8_t **inflated_out, uint64_t *inflated_size,
			  const char **why, uint64_t *bad_offset)
{
	uint64_t entries_offset = ol_get64le(data + HDR_ENTRY_OFFSET);
	uint64_t inflated = ol_get64le(data + HDR_INFLATED_SIZE);
	const struct ol_compression_method *method;
	const uint8_t *stream;
	uint64_t stream_size, body_size;
	size_t produced = 0, at = 0;
	uint8_t *copy;

	if (entries_offset < OL_OFFLOAD_HEADER_SIZE_V3 || entries_offset > size)
		return ol_format_fail(why, bad_offset, HDR_ENTRY_OFFSET,
				      "entries offset 0x%" PRIx64 " of a compressed binary is out of bounds",
				      entries_offset);
	if (inflated < entries_offset)
		return ol_format_fail(why, bad_offset, HDR_INFLATED_SIZE,
				      "inflated size %" PRIu64 " is smaller than the header", inflated);
	stream = data + entries_offset;
	stream_size = size - entries_offset;
	method = ol_compression_method(ol_compression_sniff(stream, (size_t)stream_size));
	body_size = inflated - entries_offset;
	/* A declared size no stream of this length can reach is a lie: refuse
	 * it before allocating for it. */
	if (body_size / method->max_ratio > stream_size || body_size > (uint64_t)SIZE_MAX / 2)
		return ol_format_fail(why, bad_offset, HDR_INFLATED_SIZE,
				      "inflated size %" PRIu64 " is impossible for a %s stream of %" PRIu64
				      " bytes", inflated, method->name, stream_size);
	copy = ol_arena_alloc(arena, (size_t)inflated + 1);
	if (method->decompress(stream, (size_t)stream_size, copy + entries_offset,
			       (size_t)body_size + 1, &produced, why, &at) < 0) {
		if (bad_offset)
			*bad_offset = entries_offset + at;
		return -1;
	}
	if (produced != body_size)
		return ol_format_fail(why, bad_offset, HDR_INFLATED_SIZE,
				      "the %s stream holds %s bytes than the inflated size %" PRIu64
				      " declares", method->name, produced > body_size ? "more" : "fewer",
				      inflated);
	memcpy(copy, data, (size_t)entries_offset);
	ol_put64le(copy + HDR_SIZE, inflated);
	ol_put64le(copy + HDR_INFLATED_SIZE, 0);
	*inflated_out = copy;
	*inflated_size = inflated;
	return 0;
}

int ol_offload_binary_parse_all(const uint8_t *data, size_t avail, struct ol_arena *arena,
				struct ol_offload_binaries *out, const char **why,
				uint64_t *bad_offset)
{
	uint32_t version;
	uint64_t size, hsize, entries_offset, count;
	const uint8_t *body = data;
	uint64_t body_size;
	int compressed = 0;

	memset(out, 0, sizeof(*out));
	if (avail < 4 || memcmp(data, OL_OFFLOAD_MAGIC_BYTES, 4))
		return ol_format_fail(why, bad_offset, 0, "not an offload binary (bad magic)");
	if (avail < HDR_VERSION + 4)
		return ol_format_fail(why, bad_offset, 0, "truncated offload binary header");
	version = ol_get32le(data + HDR_VERSION);
	if (version < 1 || version > OL_OFFLOAD_VERSION_MAX)
		return ol_format_fail(why, bad_offset, HDR_VERSION,
				      "unsupported offload binary version %" PRIu32
				      " (versions 1 to %d are known: 1 from LLVM 16 to 22, "
				      "2 and 3 from later releases)", version, OL_OFFLOAD_VERSION_MAX);
	hsize = header_size(version);
	if (avail < hsize)
		return ol_format_fail(why, bad_offset, 0,
				      "truncated offload binary header (%zu of %" PRIu64 " bytes)",
				      avail, hsize);

	size = ol_get64le(data + HDR_SIZE);
	if (size < hsize)
		return ol_format_fail(why, bad_offset, HDR_SIZE,
				      "invalid offload binary size %" PRIu64, size);
	if (size > avail)
		return ol_format_fail(why, bad_offset, HDR_SIZE,
				      "offload binary size %" PRIu64 " exceeds the %zu bytes available",
				      size, avail);
	out->stored_size = size;
	body_size = size;
	if (version >= 3 && ol_get64le(data + HDR_INFLATED_SIZE) != 0) {
		if (inflate_binary(data, size, arena, &body, &body_size, why, bad_offset) < 0)
			return -1;
		compressed = 1;
	}

	entries_offset = ol_get64le(body + HDR_ENTRY_OFFSET);
	count = version == 1 ? 1 : ol_get64le(body + HDR_ENTRY_SIZE);
	if (body_size < hsize + OL_OFFLOAD_ENTRY_SIZE && count != 0)
		return ol_format_fail(why, bad_offset, HDR_SIZE,
				      "invalid offload binary size %" PRIu64, body_size);
	if (version == 1 && entries_offset > size - OL_OFFLOAD_ENTRY_SIZE)
		return ol_format_fail(why, bad_offset, HDR_ENTRY_OFFSET,
				      "entry offset 0x%" PRIx64 " is out of bounds", entries_offset);
	if (entries_offset > body_size || count > (body_size - entries_offset) / OL_OFFLOAD_ENTRY_SIZE)
		return ol_format_fail(why, bad_offset, compressed ? HDR_INFLATED_SIZE : HDR_ENTRY_OFFSET,
				      "%" PRIu64 " entr%s at offset 0x%" PRIx64
				      " do not fit the binary of %" PRIu64 " bytes",
				      count, count == 1 ? "y" : "ies", entries_offset, body_size);
	if (version == 1 && ol_get64le(body + HDR_ENTRY_SIZE) > size - OL_OFFLOAD_HEADER_SIZE)
		return ol_format_fail(why, bad_offset, HDR_ENTRY_SIZE, "entry size %" PRIu64
				      " is out of bounds", ol_get64le(body + HDR_ENTRY_SIZE));

	out->n = (size_t)count;
	out->v = count ? ol_arena_alloc(arena, sizeof(*out->v) * (size_t)count) : NULL;
	for (uint64_t i = 0; i < count; i++) {
		struct ol_offload_binary *bin = &out->v[i];
		uint64_t at = entries_offset + i * OL_OFFLOAD_ENTRY_SIZE;
		uint64_t bad = 0;

		bin->data = body;
		bin->size = body_size;
		bin->version = version;
		bin->compressed = compressed;
		bin->index = i;
		if (parse_entry(body, body_size, version, at, arena, bin, why, &bad) < 0) {
			/* A field of the inflated body has no place in the file:
			 * the binary's own header is named instead. */
			if (bad_offset)
				*bad_offset = compressed ? HDR_INFLATED_SIZE : bad;
			return -1;
		}
	}
	return 0;
}

int ol_offload_binary_parse(const uint8_t *data, size_t avail, struct ol_arena *arena,
			    struct ol_offload_binary *out, const char **why, uint64_t *bad_offset)
{
	struct ol_offload_binaries all;

	memset(out, 0, sizeof(*out));
	if (ol_offload_binary_parse_all(data, avail, arena, &all, why, bad_offset) < 0)
		return -1;
	if (all.n == 0)
		return ol_format_fail(why, bad_offset, HDR_ENTRY_SIZE, "offload binary has no entries");
	*out = all.v[0];
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
		struct ol_offload_binaries all;
		const char *why;
		uint64_t bad = 0;

		if (ol_offload_binary_parse_all(data + offset, size - (size_t)offset, arena, &all,
						&why, &bad) < 0) {
			struct ol_loc at = *loc;

			at.offset = offset + bad;
			at.has_offset = 1;
			return ol_error_at(&at, "%s", why);
		}
		for (size_t i = 0; i < all.n; i++)
			cb(ctx, &all.v[i], offset);
		count += (int)all.n;
		/* stored_size >= the header and <= size - offset: the walk
		 * always advances and never leaves the section. */
		offset = align8(offset + all.stored_size);
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

/* The bytes of a string value as `version` stores it: version 1 ends each
 * at its NUL, a later value has its own size (and may hold NULs). */
static size_t value_length(const struct ol_offload_string *str, unsigned version)
{
	return version >= 2 && str->value_size ? str->value_size : strlen(str->value);
}

/* One binary of any version (OffloadBinary::write): header, every entry,
 * every entry's string entries, one string table for all, zero padding to
 * 8, the images one after another (each at its entry's offset, unpadded),
 * zero padding to 8.  Version 1 holds exactly one entry and keeps the
 * entry size where later versions keep the entry count; its string entries
 * have no value size. */
static uint8_t *write_binary(const struct ol_offload_binary_desc *descs, size_t n,
			     unsigned version, size_t *size_out)
{
	uint64_t hsize = header_size(version), se_size = string_entry_size(version);
	uint64_t nstr = 0, images = 0;
	uint64_t strings_offset, strtab_offset, strtab_size, data_offset, total;
	struct strtab_entry *entries;
	uint8_t *out;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		nstr += descs[i].nstrings;
		images += descs[i].image_size;
	}
	entries = ol_xcalloc(nstr ? 2 * nstr : 1, sizeof(*entries));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < descs[i].nstrings; j++, k += 2) {
			entries[k].s = descs[i].strings[j].key;
			entries[k].len = strlen(descs[i].strings[j].key);
			entries[k + 1].s = descs[i].strings[j].value;
			entries[k + 1].len = value_length(&descs[i].strings[j], version);
		}
	strtab_size = strtab_finalize(entries, 2 * nstr);
	strings_offset = hsize + n * OL_OFFLOAD_ENTRY_SIZE;
	strtab_offset = strings_offset + nstr * se_size;
	data_offset = align8(strtab_offset + strtab_size);
	total = align8(data_offset + images);

	out = ol_xcalloc(1, (size_t)total);
	memcpy(out + HDR_MAGIC, OL_OFFLOAD_MAGIC_BYTES, 4);
	ol_put32le(out + HDR_VERSION, version);
	ol_put64le(out + HDR_SIZE, total);
	ol_put64le(out + HDR_ENTRY_OFFSET, hsize);
	ol_put64le(out + HDR_ENTRY_SIZE, version == 1 ? OL_OFFLOAD_ENTRY_SIZE : n);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t *entry = out + hsize + i * OL_OFFLOAD_ENTRY_SIZE;

		ol_put16le(entry + ENT_IMAGE_KIND, descs[i].image_kind);
		ol_put16le(entry + ENT_OFFLOAD_KIND, descs[i].offload_kind_raw);
		ol_put32le(entry + ENT_FLAGS, descs[i].flags);
		ol_put64le(entry + ENT_STRING_OFFSET, strings_offset);
		ol_put64le(entry + ENT_NUM_STRINGS, descs[i].nstrings);
		ol_put64le(entry + ENT_IMAGE_OFFSET, data_offset);
		ol_put64le(entry + ENT_IMAGE_SIZE, descs[i].image_size);
		for (size_t j = 0; j < descs[i].nstrings; j++, k += 2) {
			uint8_t *se = out + strings_offset;

			ol_put64le(se, strtab_offset + entries[k].offset);
			ol_put64le(se + 8, strtab_offset + entries[k + 1].offset);
			if (version >= 2)
				ol_put64le(se + 16, entries[k + 1].len);
			strings_offset += se_size;
		}
		if (descs[i].image_size)
			memcpy(out + data_offset, descs[i].image, (size_t)descs[i].image_size);
		data_offset += descs[i].image_size;
	}
	for (size_t i = 0; i < 2 * nstr; i++)
		memcpy(out + strtab_offset + entries[i].offset, entries[i].s, entries[i].len);
	free(entries);
	*size_out = (size_t)total;
	return out;
}

/* Version 3 compressed: the header (Size = header + stream, InflatedSize =
 * the whole uncompressed binary), the stream of everything after the
 * header, zero padding to 8 beyond Size. */
static uint8_t *compress_binary(uint8_t *plain, size_t plain_size, unsigned format, int level,
				size_t *size_out, const char **why)
{
	const struct ol_compression_method *method = ol_compression_method(format);
	uint64_t hsize = OL_OFFLOAD_HEADER_SIZE_V3;
	size_t stream_size;
	uint8_t *stream, *out;

	if (!method) {
		free(plain);
		ol_format_fail(why, NULL, 0, "unknown compression format %u", format);
		return NULL;
	}
	/* LLVM's compression::compress leaves zstd's long-distance matching off. */
	stream = method->compress(plain + hsize, plain_size - (size_t)hsize,
				  level < 0 ? method->default_level : level, 0, &stream_size, why);
	if (!stream) {
		free(plain);
		return NULL;
	}
	out = ol_xcalloc(1, (size_t)align8(hsize + stream_size));
	memcpy(out, plain, (size_t)hsize);
	ol_put64le(out + HDR_SIZE, hsize + stream_size);
	ol_put64le(out + HDR_INFLATED_SIZE, plain_size);
	memcpy(out + hsize, stream, stream_size);
	free(stream);
	free(plain);
	*size_out = (size_t)align8(hsize + stream_size);
	return out;
}

uint8_t *ol_offload_binary_write_version(const struct ol_offload_binary_desc *descs, size_t n,
					 const struct ol_offload_write_options *opts,
					 size_t *size_out, const char **why)
{
	uint8_t *out;

	if (opts->version < 1 || opts->version > OL_OFFLOAD_VERSION_MAX) {
		ol_format_fail(why, NULL, 0, "offload binary version %u cannot be written "
			       "(1 to %d can)", opts->version, OL_OFFLOAD_VERSION_MAX);
		return NULL;
	}
	if (opts->compress >= 0 && opts->version < 3) {
		ol_format_fail(why, NULL, 0, "only version 3 offload binaries are compressed");
		return NULL;
	}
	if (opts->version == 1) {
		/* One binary per image, back to back, as the packager writes them. */
		size_t total = 0;

		out = NULL;
		for (size_t i = 0; i < n; i++) {
			size_t size;
			uint8_t *one = ol_offload_binary_write(&descs[i], &size);

			out = ol_xrealloc(out, total + size);
			memcpy(out + total, one, size);
			free(one);
			total += size;
		}
		*size_out = total;
		return out ? out : ol_xcalloc(1, 1);
	}
	out = write_binary(descs, n, opts->version, size_out);
	if (opts->compress >= 0)
		out = compress_binary(out, *size_out, (unsigned)opts->compress, opts->level,
				      size_out, why);
	return out;
}

uint8_t *ol_offload_binary_write(const struct ol_offload_binary_desc *desc, size_t *size_out)
{
	return write_binary(desc, 1, 1, size_out);
}
