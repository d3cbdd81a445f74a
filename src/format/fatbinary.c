/*
 * fatbinary: read NVIDIA fat binary containers.  See offload/fatbinary.h for
 * the layout and where it comes from.
 *
 * The entries are walked twice: once to check them and count them, once to
 * fill the array, so nothing is allocated for entries the input cannot hold.
 */
#include "offload/fatbinary.h"
#include "offload/diag.h"
#include "format_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum {
	HDR_MAGIC = 0, HDR_VERSION = 4, HDR_HEADER_SIZE = 6, HDR_SIZE = 8,
	ENT_KIND = 0, ENT_VERSION = 2, ENT_HEADER_SIZE = 4, ENT_PAYLOAD_SIZE = 8,
	ENT_COMPRESSED_SIZE = 16, ENT_OPTIONS = 20, ENT_MINOR = 24, ENT_MAJOR = 26, ENT_SM = 28,
	ENT_IDENT_OFFSET = 32, ENT_IDENT_SIZE = 36, ENT_FLAGS = 40, ENT_UNCOMPRESSED_SIZE = 56,
	OPTIONS_RECORD_SIZE = 8,
};

int ol_fatbin_is_fatbin(const uint8_t *data, size_t size)
{
	return size >= 4 && ol_get32le(data + HDR_MAGIC) == OL_FATBIN_MAGIC;
}

const char *ol_fatbin_kind_name(uint16_t kind)
{
	switch (kind) {
	case OL_FATBIN_PTX: return "ptx";
	case OL_FATBIN_ELF: return "elf";
	case OL_FATBIN_OLD_CUBIN: return "cubin";
	case OL_FATBIN_NVVM: return "nvvm";
	default: return "unknown";
	}
}

const char *ol_fatbin_compression(const struct ol_fatbin_image *image)
{
	if (image->flags & OL_FATBIN_FLAG_COMPRESSED_ZSTD)
		return "zstd";
	if (image->flags & OL_FATBIN_FLAG_COMPRESSED)
		return "lz4";
	return NULL;
}

/* The (offset, length) string `what` of entry `index` (at container offset
 * `at`), which must lie inside the entry's header: a view in *out, or -1
 * naming the field at `field`. */
static int header_string(const uint8_t *data, uint64_t at, const struct ol_fatbin_image *image,
			 size_t index, const char *what, uint64_t field, uint64_t offset,
			 size_t length, const char **out, const char **why, uint64_t *bad_offset)
{
	if (offset > image->header_size || length > image->header_size - offset)
		return ol_format_fail(why, bad_offset, at + field,
				      "fatbinary entry %zu %s (offset %" PRIu64 ", length %zu) is "
				      "outside its %" PRIu32 "-byte header", index, what, offset,
				      length, image->header_size);
	*out = (const char *)data + at + offset;
	return 0;
}

/* Checks the entry at `at` (container offset) whose header and payload must
 * end by `end`; fills *image.  Returns 0 or -1 with the failure stored. */
static int parse_entry(const uint8_t *data, uint64_t at, uint64_t end, size_t index,
		       struct ol_fatbin_image *image, const char **why, uint64_t *bad_offset)
{
	const uint8_t *e = data + at;
	uint64_t options_record;

	memset(image, 0, sizeof(*image));
	if (end - at < OL_FATBIN_ENTRY_HEADER_SIZE)
		return ol_format_fail(why, bad_offset, at,
				      "truncated fatbinary entry %zu header (%" PRIu64 " of %d bytes)",
				      index, end - at, OL_FATBIN_ENTRY_HEADER_SIZE);
	image->kind = ol_get16le(e + ENT_KIND);
	image->version = ol_get16le(e + ENT_VERSION);
	image->header_size = ol_get32le(e + ENT_HEADER_SIZE);
	image->payload_size = ol_get64le(e + ENT_PAYLOAD_SIZE);
	image->compressed_size = ol_get32le(e + ENT_COMPRESSED_SIZE);
	image->minor = ol_get16le(e + ENT_MINOR);
	image->major = ol_get16le(e + ENT_MAJOR);
	image->sm = ol_get32le(e + ENT_SM);
	image->flags = ol_get64le(e + ENT_FLAGS);
	image->uncompressed_size = ol_get64le(e + ENT_UNCOMPRESSED_SIZE);
	if (image->header_size < OL_FATBIN_ENTRY_HEADER_SIZE ||
	    image->header_size > end - at)
		return ol_format_fail(why, bad_offset, at + ENT_HEADER_SIZE,
				      "fatbinary entry %zu header size %" PRIu32 " is not between %d "
				      "and the %" PRIu64 " bytes left in the container", index,
				      image->header_size, OL_FATBIN_ENTRY_HEADER_SIZE, end - at);
	if (image->payload_size > end - at - image->header_size)
		return ol_format_fail(why, bad_offset, at + ENT_PAYLOAD_SIZE,
				      "fatbinary entry %zu payload of %" PRIu64 " bytes runs past the "
				      "end of the container (0x%" PRIx64 ")", index,
				      image->payload_size, end);
	if (ol_fatbin_compression(image) && image->compressed_size > image->payload_size)
		return ol_format_fail(why, bad_offset, at + ENT_COMPRESSED_SIZE,
				      "fatbinary entry %zu compressed size %" PRIu32 " exceeds its "
				      "payload of %" PRIu64 " bytes", index, image->compressed_size,
				      image->payload_size);
	image->ident_size = ol_get32le(e + ENT_IDENT_SIZE);
	if ((ol_get32le(e + ENT_IDENT_OFFSET) || image->ident_size) &&
	    header_string(data, at, image, index, "identifier", ENT_IDENT_OFFSET,
			  ol_get32le(e + ENT_IDENT_OFFSET), image->ident_size, &image->ident, why,
			  bad_offset) < 0)
		return -1;
	options_record = ol_get32le(e + ENT_OPTIONS);
	if (options_record) {
		const char *record = NULL;

		/* The record is (u32 offset, u32 length) of the text, in the header too. */
		if (header_string(data, at, image, index, "options record", ENT_OPTIONS,
				  options_record, OPTIONS_RECORD_SIZE, &record, why, bad_offset) < 0)
			return -1;
		image->options_size = ol_get32le((const uint8_t *)record + 4);
		if (header_string(data, at, image, index, "options", options_record,
				  ol_get32le((const uint8_t *)record), image->options_size,
				  &image->options, why, bad_offset) < 0)
			return -1;
	}
	image->offset = at;
	image->payload_offset = at + image->header_size;
	image->payload = data + image->payload_offset;
	return 0;
}

/* Walks the entries in [header_size, end); stores them when images is not
 * NULL.  Returns the count, or -1. */
static long walk_entries(const uint8_t *data, uint64_t header_size, uint64_t end,
			 struct ol_fatbin_image *images, const char **why, uint64_t *bad_offset)
{
	struct ol_fatbin_image image;
	uint64_t at = header_size;
	long n = 0;

	while (at < end) {
		if (parse_entry(data, at, end, (size_t)n, &image, why, bad_offset) < 0)
			return -1;
		if (images)
			images[n] = image;
		n++;
		at += image.header_size + image.payload_size;   /* >= 64: progress */
	}
	return n;
}

int ol_fatbin_parse(const uint8_t *data, size_t avail, struct ol_fatbin *out, const char **why,
		    uint64_t *bad_offset)
{
	uint64_t entries_size, end;
	long n;

	memset(out, 0, sizeof(*out));
	if (!ol_fatbin_is_fatbin(data, avail))
		return ol_format_fail(why, bad_offset, HDR_MAGIC, "not a fatbinary (bad magic)");
	if (avail < OL_FATBIN_HEADER_SIZE)
		return ol_format_fail(why, bad_offset, avail < HDR_HEADER_SIZE ? HDR_VERSION
						     : avail < HDR_SIZE ? HDR_HEADER_SIZE : HDR_SIZE,
				      "truncated fatbinary header (%zu of %d bytes)", avail,
				      OL_FATBIN_HEADER_SIZE);
	out->version = ol_get16le(data + HDR_VERSION);
	out->header_size = ol_get16le(data + HDR_HEADER_SIZE);
	entries_size = ol_get64le(data + HDR_SIZE);
	if (out->version != 1)
		return ol_format_fail(why, bad_offset, HDR_VERSION,
				      "unsupported fatbinary version %u (1 is known)", out->version);
	if (out->header_size < OL_FATBIN_HEADER_SIZE || out->header_size > avail)
		return ol_format_fail(why, bad_offset, HDR_HEADER_SIZE,
				      "fatbinary header size %u is not between %d and the %zu bytes "
				      "available", out->header_size, OL_FATBIN_HEADER_SIZE, avail);
	if (entries_size > avail - out->header_size)
		return ol_format_fail(why, bad_offset, HDR_SIZE,
				      "fatbinary size %" PRIu64 " exceeds the %zu bytes available "
				      "after its header", entries_size, avail - out->header_size);
	end = out->header_size + entries_size;
	n = walk_entries(data, out->header_size, end, NULL, why, bad_offset);
	if (n < 0)
		return -1;
	out->data = data;
	out->size = end;
	out->nimages = (size_t)n;
	out->images = ol_xcalloc(n ? (size_t)n : 1, sizeof(*out->images));
	walk_entries(data, out->header_size, end, out->images, why, bad_offset);
	return 0;
}

void ol_fatbin_release(struct ol_fatbin *fatbin)
{
	free(fatbin->images);
	memset(fatbin, 0, sizeof(*fatbin));
}
