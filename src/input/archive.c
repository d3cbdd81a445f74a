/*
 * archive: a walker over ar archives held in a mapped view.
 *
 * Why our own walker rather than libelf's elf_begin/elf_next: libelf does not
 * read thin archives, and it wants a file descriptor or a writable image of
 * the whole archive.  The ar format is small, and one careful walker over the
 * read-only view handles all three dialects the same way, with every length
 * checked against the view:
 *
 *   GNU   "name/" short names; "//" long-name table with "/<offset>"
 *         references (entries end in "/\n"); "/" and "/SYM64/" symbol tables
 *   BSD   "#1/<len>" long names stored in front of the data (counted in the
 *         size); "__.SYMDEF*" symbol tables
 *   thin  "!<thin>\n": the symbol and name tables are inline, every other
 *         member is only a header naming a file relative to the archive's
 *         directory, mapped on its own
 *
 * Member data is 2-byte aligned: an odd size is followed by one pad byte.
 */
#include "scan_internal.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/mapped_file.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

enum {
	AR_MAGIC_SIZE = 8,
	AR_HEADER_SIZE = 60,
	AR_NAME = 0, AR_NAME_SIZE = 16,
	AR_SIZE = 48, AR_SIZE_SIZE = 10,
	AR_FMAG = 58,
};

struct ar_walk {
	const char *path;
	const uint8_t *data;
	size_t size;
	int thin;
	const char *long_names;     /* the GNU "//" member, once seen */
	size_t long_names_size;
	ol_ar_member_fn fn;
	void *ctx;
};

/* An error at a header offset of the archive itself. */
static int ar_error(const struct ar_walk *w, uint64_t offset, const char *what,
		    const char *member)
{
	struct ol_loc loc = { .file = w->path, .offset = offset, .has_offset = 1 };

	if (member)
		return ol_error_at(&loc, "%s (member '%s')", what, member);
	return ol_error_at(&loc, "%s", what);
}

/* A decimal field: digits, then only spaces.  Returns -1 if malformed. */
static int parse_decimal(const uint8_t *field, size_t width, uint64_t *out)
{
	uint64_t value = 0;
	size_t i = 0;

	if (width == 0 || field[0] < '0' || field[0] > '9')
		return -1;
	for (; i < width && field[i] >= '0' && field[i] <= '9'; i++)
		value = value * 10 + (uint64_t)(field[i] - '0');   /* <= 16 digits: no overflow */
	for (; i < width; i++)
		if (field[i] != ' ')
			return -1;
	*out = value;
	return 0;
}

/* Is the 16-byte name field exactly `name` followed by spaces? */
static int name_is(const uint8_t *field, const char *name)
{
	size_t len = strlen(name);

	if (memcmp(field, name, len))
		return 0;
	for (size_t i = len; i < AR_NAME_SIZE; i++)
		if (field[i] != ' ')
			return 0;
	return 1;
}

/* Resolves "/<offset>" against the long-name table; NULL if out of range. */
static const char *gnu_long_name(const struct ar_walk *w, uint64_t index)
{
	const char *start, *end;
	size_t len;

	if (!w->long_names || index >= w->long_names_size)
		return NULL;
	start = w->long_names + index;
	end = memchr(start, '\n', w->long_names_size - (size_t)index);
	if (!end)
		return NULL;
	len = (size_t)(end - start);
	if (len && start[len - 1] == '/')
		len--;
	if (!len)
		return NULL;
	return ol_arena_strndup(&ol_link_arena, start, len);
}

/* "name/   " (GNU) or "name    " (BSD short name). */
static const char *short_name(const uint8_t *field)
{
	size_t len = AR_NAME_SIZE;

	while (len && field[len - 1] == ' ')
		len--;
	if (len > 1 && field[len - 1] == '/')
		len--;
	return ol_arena_strndup(&ol_link_arena, (const char *)field, len);
}

static uint64_t get_be(const uint8_t *p, size_t width)
{
	uint64_t v = 0;

	for (size_t i = 0; i < width; i++)
		v = v << 8 | p[i];
	return v;
}

/* The GNU symbol table ("/" with 32-bit, "/SYM64/" with 64-bit big-endian
 * fields): a count, that many member header offsets, that many names.  We
 * do not use it (resolve reads the members' own symbols), but the host
 * linker does: a broken one fails its link with "file format not
 * recognized", or makes it pull the wrong member. */
static int check_symbol_table(const struct ar_walk *w, uint64_t offset, const uint8_t *table,
			      uint64_t size, size_t width)
{
	struct ol_loc loc = { .file = w->path, .offset = offset, .has_offset = 1 };
	const char *names;
	uint64_t count, names_size;

	if (size < width)
		return ol_error_at(&loc, "archive symbol table of %" PRIu64 " bytes has no count "
				   "(rebuild it with ranlib)", size);
	count = get_be(table, width);
	if (count > (size - width) / width)
		return ol_error_at(&loc, "archive symbol table: %" PRIu64 " symbols do not fit in "
				   "its %" PRIu64 " bytes (rebuild it with ranlib)", count, size);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t member = get_be(table + width + i * width, width);

		if (member < AR_MAGIC_SIZE || member > w->size - AR_HEADER_SIZE)
			return ol_error_at(&loc, "archive symbol table: symbol %" PRIu64 " names a "
					   "member at 0x%" PRIx64 ", outside the archive (rebuild it "
					   "with ranlib)", i, member);
	}
	names = (const char *)table + width + count * width;
	names_size = size - width - count * width;
	for (uint64_t i = 0; i < count; i++) {
		const char *end = memchr(names, '\0', (size_t)names_size);

		if (!end)
			return ol_error_at(&loc, "archive symbol table: the name of symbol %" PRIu64
					   " runs past its end (rebuild it with ranlib)", i);
		names_size -= (uint64_t)(end + 1 - names);
		names = end + 1;
	}
	return 0;
}

/* A thin member's file: its name, relative to the archive's directory. */
static int thin_member(const struct ar_walk *w, const char *name, uint64_t header_offset)
{
	const char *slash = strrchr(w->path, '/');
	struct ol_ar_member member = { .name = name, .header_offset = header_offset };
	struct ol_mapped_file *mf;
	const char *file = name;

	if (name[0] != '/' && slash)
		file = ol_arena_printf(&ol_link_arena, "%.*s/%s",
				       (int)(slash - w->path), w->path, name);
	mf = ol_map_file(file);
	if (!mf) {
		struct ol_loc loc = { .file = w->path, .member = name };

		return ol_error_at(&loc, "cannot open thin archive member '%s': %s",
				   file, strerror(errno));
	}
	member.data = mf->data;
	member.size = mf->size;
	w->fn(w->ctx, &member);
	return 0;
}

int ol_archive_walk(const char *path, const uint8_t *data, size_t size,
		    ol_ar_member_fn fn, void *ctx)
{
	struct ar_walk w = { .path = path, .data = data, .size = size, .fn = fn, .ctx = ctx };
	uint64_t offset = AR_MAGIC_SIZE, symtab_offset = 0, symtab_size = 0;
	size_t symtab_width = 0;
	int status = 0;

	if (size < AR_MAGIC_SIZE)
		return ar_error(&w, 0, "truncated archive header", NULL);
	w.thin = !memcmp(data, "!<thin>\n", AR_MAGIC_SIZE);

	while (offset < size) {
		const uint8_t *header = data + offset;
		uint64_t body = offset + AR_HEADER_SIZE, member_size;
		const char *name = NULL;
		int is_table = 0, inline_data;
		struct ol_ar_member member;

		if (size - offset < AR_HEADER_SIZE)
			return ar_error(&w, offset, "truncated archive member header", NULL);
		if (header[AR_FMAG] != '`' || header[AR_FMAG + 1] != '\n')
			return ar_error(&w, offset, "malformed archive member header", NULL);
		if (parse_decimal(header + AR_SIZE, AR_SIZE_SIZE, &member_size) < 0)
			return ar_error(&w, offset, "malformed archive member size", NULL);

		if (name_is(header, "/") || name_is(header, "/SYM64/")) {
			is_table = 1;
			if (member_size > size - body)
				return ar_error(&w, offset, "truncated archive symbol table", NULL);
			/* Checked once the members are: a cut archive is
			 * reported where it is cut.  Only the first: a COFF
			 * import library's second "/" has a layout of its own. */
			if (!symtab_width) {
				symtab_offset = offset;
				symtab_size = member_size;
				symtab_width = header[1] == 'S' ? 8 : 4;
			}
		} else if (name_is(header, "//")) {
			is_table = 1;
			if (member_size > size - body)
				return ar_error(&w, offset, "truncated archive long-name table", NULL);
			w.long_names = (const char *)data + body;
			w.long_names_size = (size_t)member_size;
		} else if (header[0] == '/' && header[1] >= '0' && header[1] <= '9') {
			uint64_t index;

			if (parse_decimal(header + 1, AR_NAME_SIZE - 1, &index) < 0 ||
			    !(name = gnu_long_name(&w, index)))
				return ar_error(&w, offset, "invalid long member name reference", NULL);
		} else if (!memcmp(header, "#1/", 3)) {
			uint64_t name_len;
			size_t len;

			if (parse_decimal(header + 3, AR_NAME_SIZE - 3, &name_len) < 0 ||
			    name_len > member_size || name_len > size - body)
				return ar_error(&w, offset, "malformed BSD long member name", NULL);
			/* BSD pads the name with NULs. */
			len = strnlen((const char *)data + body, (size_t)name_len);
			name = ol_arena_strndup(&ol_link_arena, (const char *)data + body, len);
			body += name_len;
			member_size -= name_len;
		} else {
			name = short_name(header);
		}
		if (name && !strncmp(name, "__.SYMDEF", 9))
			is_table = 1;

		/* A thin archive carries only its tables inline. */
		inline_data = !w.thin || is_table;
		if (inline_data && member_size > size - body)
			return ar_error(&w, offset, "truncated archive member", name);

		if (!is_table) {
			if (!inline_data) {
				if (thin_member(&w, name, offset) < 0)
					status = -1;
			} else {
				member.name = name;
				member.header_offset = offset;
				member.data = data + body;
				member.size = (size_t)member_size;
				fn(ctx, &member);
			}
		}
		if (inline_data) {
			offset = body + member_size;
			offset += offset & 1;
		} else {
			offset = body;
		}
	}
	if (symtab_width && check_symbol_table(&w, symtab_offset, data + symtab_offset + AR_HEADER_SIZE,
					       symtab_size, symtab_width) < 0)
		return -1;
	return status;
}
