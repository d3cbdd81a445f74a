/*
 * remark_records: decoding the remarks a device LTO hands over (the
 * encoding is described in offload/remark_records.h), and writing one as
 * LLVM's YAML remark record.  Pure functions over bytes: a blob read back
 * from a shared cache is checked field by field like any other input.
 */
#include "offload/remark_records.h"
#include "offload/strvec.h"
#include "format_internal.h"

#include <stdlib.h>
#include <string.h>

/* A cursor over the blob's NUL-terminated fields. */
struct fields {
	const uint8_t *data;
	size_t size, at;
};

static const char *next_field(struct fields *f, const char **why, uint64_t *bad)
{
	const uint8_t *nul;

	if (f->at >= f->size) {
		ol_format_fail(why, bad, f->at, "remark record cut short");
		return NULL;
	}
	nul = memchr(f->data + f->at, '\0', f->size - f->at);
	if (!nul) {
		ol_format_fail(why, bad, f->at, "remark field without its terminating NUL");
		return NULL;
	}
	const char *s = (const char *)f->data + f->at;
	f->at = (size_t)(nul - f->data) + 1;
	return s;
}

static int next_number(struct fields *f, unsigned *out, const char **why, uint64_t *bad)
{
	size_t start = f->at;
	const char *s = next_field(f, why, bad);
	unsigned long v = 0;

	if (!s)
		return -1;
	if (!*s)
		return ol_format_fail(why, bad, start, "remark number field is empty");
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || v > 0xffffffffUL / 10)
			return ol_format_fail(why, bad, start, "remark number field '%.20s' is not "
					      "a 32-bit decimal", s);
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v > 0xffffffffUL)
		return ol_format_fail(why, bad, start, "remark number %lu is too large", v);
	*out = (unsigned)v;
	return 0;
}

static int known_kind(const char *kind)
{
	static const char *const kinds[] = { "Passed", "Missed", "Analysis", "AnalysisFPCommute",
					     "AnalysisAliasing", "Failure" };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			return 1;
	return 0;
}

static char *joined_message(const struct ol_remark *r)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < r->nargs; i++)
		strbuf_addstr(&sb, r->args[i].value);
	return strbuf_detach(&sb);
}

static int decode_one(struct fields *f, struct ol_remark *r, const char **why, uint64_t *bad)
{
	size_t start = f->at;
	const char *shown;
	unsigned nargs;

	memset(r, 0, sizeof(*r));
	if (!(r->kind = next_field(f, why, bad)))
		return -1;
	if (!known_kind(r->kind))
		return ol_format_fail(why, bad, start, "unknown remark kind '%.32s'", r->kind);
	start = f->at;
	if (!(shown = next_field(f, why, bad)))
		return -1;
	if (strcmp(shown, "0") && strcmp(shown, "1"))
		return ol_format_fail(why, bad, start, "remark 'shown' field is not 0 or 1");
	r->shown = *shown == '1';
	if (!(r->pass = next_field(f, why, bad)) || !(r->name = next_field(f, why, bad)) ||
	    !(r->function = next_field(f, why, bad)) || !(r->demangled = next_field(f, why, bad)) ||
	    !(r->file = next_field(f, why, bad)) ||
	    next_number(f, &r->line, why, bad) || next_number(f, &r->column, why, bad))
		return -1;
	start = f->at;
	if (next_number(f, &nargs, why, bad))
		return -1;
	/* Each argument takes at least 5 bytes (five empty fields). */
	if (nargs > (f->size - f->at) / 5)
		return ol_format_fail(why, bad, start, "remark claims %u arguments, more than "
				      "the record's remaining %zu bytes hold", nargs, f->size - f->at);
	r->args = ol_xcalloc(nargs ? nargs : 1, sizeof(*r->args));
	r->nargs = nargs;
	for (size_t i = 0; i < nargs; i++) {
		struct ol_remark_arg *a = &r->args[i];
		if (!(a->key = next_field(f, why, bad)) || !(a->value = next_field(f, why, bad)) ||
		    !(a->file = next_field(f, why, bad)) || next_number(f, &a->line, why, bad) ||
		    next_number(f, &a->column, why, bad))
			return -1;
	}
	r->message = joined_message(r);
	return 0;
}

static int compare_strings(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* The order remarks are printed and written in; `shown` plays no part. */
static int compare_remarks(const void *pa, const void *pb)
{
	const struct ol_remark *a = pa, *b = pb;
	int c;

	if ((c = compare_strings(a->file, b->file)))
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->column != b->column)
		return a->column < b->column ? -1 : 1;
	if ((c = compare_strings(a->kind, b->kind)) || (c = compare_strings(a->pass, b->pass)) ||
	    (c = compare_strings(a->name, b->name)) || (c = compare_strings(a->message, b->message)))
		return c;
	return compare_strings(a->function, b->function);
}

static void remark_release(struct ol_remark *r)
{
	free(r->args);
	free(r->message);
}

int ol_remarks_decode(const uint8_t *data, size_t size, struct ol_remarks *out,
		      const char **why, uint64_t *bad)
{
	struct fields f = { data, size, OL_REMARKS_MAGIC_LEN };
	size_t cap = 0, kept = 0;

	out->v = NULL;
	out->n = 0;
	if (size == 0)
		return 0;
	if (size < OL_REMARKS_MAGIC_LEN || memcmp(data, OL_REMARKS_MAGIC, OL_REMARKS_MAGIC_LEN))
		return ol_format_fail(why, bad, 0, "not offload-link remark records (bad magic)");
	while (f.at < size) {
		OL_GROW(out->v, out->n + 1, cap, 16);
		if (decode_one(&f, &out->v[out->n], why, bad) < 0) {
			remark_release(&out->v[out->n]);
			ol_remarks_release(out);
			return -1;
		}
		out->n++;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), compare_remarks);
	/* Repeats are one remark, shown when any of them is. */
	for (size_t i = 0; i < out->n; i++) {
		if (kept && !compare_remarks(&out->v[kept - 1], &out->v[i])) {
			out->v[kept - 1].shown |= out->v[i].shown;
			remark_release(&out->v[i]);
			continue;
		}
		out->v[kept++] = out->v[i];
	}
	out->n = kept;
	return 0;
}

void ol_remarks_release(struct ol_remarks *r)
{
	for (size_t i = 0; i < r->n; i++)
		remark_release(&r->v[i]);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

void ol_remarks_append(uint8_t **blob, size_t *size, const uint8_t *more, size_t more_size)
{
	size_t skip = *size && more_size >= OL_REMARKS_MAGIC_LEN ? OL_REMARKS_MAGIC_LEN : 0;

	if (more_size <= skip)
		return;
	*blob = ol_xrealloc(*blob, *size + more_size - skip);
	memcpy(*blob + *size, more + skip, more_size - skip);
	*size += more_size - skip;
}

const char *ol_remark_option(const struct ol_remark *r)
{
	if (!strcmp(r->kind, "Passed"))
		return "-Rpass";
	if (!strcmp(r->kind, "Missed") || !strcmp(r->kind, "Failure"))
		return "-Rpass-missed";
	return "-Rpass-analysis";
}

/* A YAML double-quoted scalar: quotes, backslashes and control
 * characters escaped, so that a message's line breaks survive. */
static void add_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c == '\n')
			strbuf_addstr(sb, "\\n");
		else if (c == '\t')
			strbuf_addstr(sb, "\\t");
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addch(sb, (char)c);
	}
	strbuf_addch(sb, '"');
}

static void add_location(struct strbuf *sb, const char *file, unsigned line, unsigned column)
{
	strbuf_addstr(sb, "{ File: ");
	add_quoted(sb, file);
	strbuf_addf(sb, ", Line: %u, Column: %u }\n", line, column);
}

/* "Key:            <value>\n", the value column where LLVM's writer puts it. */
static void add_field(struct strbuf *sb, const char *indent, const char *key, const char *value)
{
	strbuf_addf(sb, "%s%s:%*s", indent, key, (int)(16 - strlen(key)), "");
	add_quoted(sb, value);
	strbuf_addch(sb, '\n');
}

static void add_debug_loc(struct strbuf *sb, const char *indent, const char *file, unsigned line,
			  unsigned column)
{
	if (!*file)
		return;
	strbuf_addf(sb, "%sDebugLoc:        ", indent);
	add_location(sb, file, line, column);
}

char *ol_remark_yaml(const struct ol_remark *r)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "--- !%s\n", r->kind);
	add_field(&sb, "", "Pass", r->pass);
	add_field(&sb, "", "Name", r->name);
	add_debug_loc(&sb, "", r->file, r->line, r->column);
	add_field(&sb, "", "Function", r->function);
	if (r->nargs)
		strbuf_addstr(&sb, "Args:\n");
	for (size_t i = 0; i < r->nargs; i++) {
		const struct ol_remark_arg *a = &r->args[i];
		strbuf_addstr(&sb, "  - ");
		if (*a->key && strspn(a->key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				      "0123456789_") == strlen(a->key))
			strbuf_addstr(&sb, a->key);
		else
			add_quoted(&sb, a->key);
		strbuf_addstr(&sb, ": ");
		add_quoted(&sb, a->value);
		strbuf_addch(&sb, '\n');
		add_debug_loc(&sb, "    ", a->file, a->line, a->column);
	}
	strbuf_addstr(&sb, "...\n");
	return strbuf_detach(&sb);
}
