/*
 * coff: COFF object headers, section table and symbol table (include/offload/coff.h).
 *
 * Layout (Microsoft PE/COFF specification): a 20-byte file header, or the
 * 56-byte /bigobj header; 40-byte section headers; 18-byte symbols (20 with
 * /bigobj) followed by the string table, whose first 4 bytes give its size.
 * Long section names are "/<decimal offset>" or "//<base64 offset>" into the
 * string table; long symbol names have four zero bytes and the offset.
 */
#include "offload/coff.h"
#include "format_internal.h"

#include <string.h>

enum {
	FILE_HEADER_SIZE = 20,
	BIGOBJ_HEADER_SIZE = 56,
	SECTION_HEADER_SIZE = 40,
	SYMBOL_SIZE = 18,
	BIGOBJ_SYMBOL_SIZE = 20,
};

/* The machines identify_magic accepts as COFF objects. */
static const uint16_t machines[] = {
	0x014c,   /* i386 */
	0x8664,   /* x86-64 */
	0xaa64,   /* ARM64 */
	0x01c4,   /* ARMNT */
	0xa641,   /* ARM64EC */
	0xa64e,   /* ARM64X */
};

/* {D1BAA1C7-BAEE-4ba9-AF20-FAF66AA4DCB8}, as the bytes of the header. */
static const uint8_t bigobj_class_id[16] = {
	0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b,
	0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8,
};

static int known_machine(uint16_t machine)
{
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (machines[i] == machine)
			return 1;
	return 0;
}

static int is_bigobj(const uint8_t *data, size_t size)
{
	return size >= BIGOBJ_HEADER_SIZE && ol_get16le(data) == 0 && ol_get16le(data + 2) == 0xffff &&
	       ol_get16le(data + 4) >= 2 && !memcmp(data + 12, bigobj_class_id, sizeof(bigobj_class_id));
}

int ol_coff_is_object(const uint8_t *data, size_t size)
{
	if (is_bigobj(data, size))
		return known_machine(ol_get16le(data + 6));
	return size >= FILE_HEADER_SIZE && known_machine(ol_get16le(data));
}

static int fail(const char **why, const char *text)
{
	*why = text;
	return -1;
}

int ol_coff_open(const uint8_t *data, size_t size, struct ol_coff *out, const char **why)
{
	size_t symbol_size, symbols_end;

	memset(out, 0, sizeof(*out));
	out->data = data;
	out->size = size;
	if (is_bigobj(data, size)) {
		out->bigobj = 1;
		out->machine = ol_get16le(data + 6);
		out->nsections = ol_get32le(data + 44);
		out->symbol_table = ol_get32le(data + 48);
		out->nsymbols = ol_get32le(data + 52);
		out->section_table = BIGOBJ_HEADER_SIZE;
		symbol_size = BIGOBJ_SYMBOL_SIZE;
	} else if (size >= FILE_HEADER_SIZE) {
		out->machine = ol_get16le(data);
		out->nsections = ol_get16le(data + 2);
		out->symbol_table = ol_get32le(data + 8);
		out->nsymbols = ol_get32le(data + 12);
		out->section_table = FILE_HEADER_SIZE + (size_t)ol_get16le(data + 16);
		symbol_size = SYMBOL_SIZE;
	} else {
		return fail(why, "truncated COFF header");
	}
	if (!known_machine(out->machine))
		return fail(why, "not a COFF object of a known machine");
	if (out->section_table > size ||
	    out->nsections > (size - out->section_table) / SECTION_HEADER_SIZE)
		return fail(why, "COFF section table extends past the end of the file");
	if (out->symbol_table == 0) {
		out->nsymbols = 0;
		return 0;
	}
	if (out->symbol_table > size || out->nsymbols > (size - out->symbol_table) / symbol_size)
		return fail(why, "COFF symbol table extends past the end of the file");
	/* The string table follows the symbols; a file may end without one. */
	symbols_end = out->symbol_table + (size_t)out->nsymbols * symbol_size;
	if (size - symbols_end >= 4) {
		size_t strings_size = ol_get32le(data + symbols_end);

		if (strings_size > size - symbols_end)
			return fail(why, "COFF string table extends past the end of the file");
		out->strings = data + symbols_end;
		out->strings_size = strings_size < 4 ? 4 : strings_size;
	}
	return 0;
}

/* A NUL-terminated string at `offset` of the string table. */
static int string_at(const struct ol_coff *c, uint64_t offset, const char **name, size_t *len,
		     const char **why)
{
	const uint8_t *end;

	if (!c->strings || offset < 4 || offset >= c->strings_size)
		return fail(why, "COFF name offset outside the string table");
	end = memchr(c->strings + offset, '\0', c->strings_size - (size_t)offset);
	if (!end)
		return fail(why, "COFF name not terminated in the string table");
	*name = (const char *)c->strings + offset;
	*len = (size_t)(end - (c->strings + offset));
	return 0;
}

/* An inline name: up to 8 bytes, NUL-padded. */
static void short_name(const uint8_t *field, char *buf, const char **name, size_t *len)
{
	memcpy(buf, field, 8);
	buf[8] = '\0';
	*name = buf;
	*len = strlen(buf);
}

/* "/123" (decimal) or "//AAAAAA" (base64, for offsets past 9999999). */
static int long_section_name(const struct ol_coff *c, const char *field, const char **name,
			     size_t *len, const char **why)
{
	static const char base64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint64_t offset = 0;

	if (field[1] == '/') {
		for (size_t i = 2; i < 8; i++) {
			const char *digit = field[i] ? strchr(base64, field[i]) : NULL;

			if (!digit)
				return fail(why, "invalid COFF section name");
			offset = offset * 64 + (uint64_t)(digit - base64);
		}
	} else {
		size_t i;

		for (i = 1; i < 8 && field[i]; i++) {
			if (field[i] < '0' || field[i] > '9')
				return fail(why, "invalid COFF section name");
			offset = offset * 10 + (uint64_t)(field[i] - '0');
		}
		if (i == 1)
			return fail(why, "invalid COFF section name");
	}
	return string_at(c, offset, name, len, why);
}

int ol_coff_section(const struct ol_coff *c, uint32_t index, struct ol_coff_section *out,
		    const char **why)
{
	const uint8_t *h;

	memset(out, 0, sizeof(*out));
	if (index >= c->nsections)
		return fail(why, "no such COFF section");
	h = c->data + c->section_table + (size_t)index * SECTION_HEADER_SIZE;
	short_name(h, out->short_name, &out->name, &out->name_len);
	if (out->short_name[0] == '/' &&
	    long_section_name(c, out->short_name, &out->name, &out->name_len, why) < 0)
		return -1;
	out->size = ol_get32le(h + 16);
	out->offset = ol_get32le(h + 20);
	if (out->size && (out->offset > c->size || out->size > c->size - out->offset))
		return fail(why, "COFF section extends past the end of the file");
	return 0;
}

int ol_coff_symbol(const struct ol_coff *c, uint32_t index, struct ol_coff_symbol *out,
		   const char **why)
{
	size_t symbol_size = c->bigobj ? BIGOBJ_SYMBOL_SIZE : SYMBOL_SIZE;
	const uint8_t *s;

	memset(out, 0, sizeof(*out));
	if (index >= c->nsymbols)
		return fail(why, "no such COFF symbol");
	s = c->data + c->symbol_table + (size_t)index * symbol_size;
	if (ol_get32le(s) == 0) {
		if (string_at(c, ol_get32le(s + 4), &out->name, &out->name_len, why) < 0)
			return -1;
	} else {
		short_name(s, out->short_name, &out->name, &out->name_len);
	}
	out->value = ol_get32le(s + 8);
	if (c->bigobj) {
		out->section = (int32_t)ol_get32le(s + 12);
		out->storage_class = s[18];
		out->aux_count = s[19];
	} else {
		out->section = (int16_t)ol_get16le(s + 12);
		out->storage_class = s[16];
		out->aux_count = s[17];
	}
	return 0;
}
