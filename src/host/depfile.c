/*
 * depfile: dependency files without offload-link's temp files
 * (include/offload/depfile.h).
 *
 * The format is make's: "target: \" then one prerequisite per line ending in
 * " \", then an empty rule "prereq:" per prerequisite (lld and GNU ld write
 * it so); spaces inside names are escaped with a backslash.  Rather than
 * parse rules, the text is rewritten word by word: a word naming a dropped
 * file goes with the colon of its empty rule, and line continuations are
 * redone so that no rule ends in a dangling backslash.
 */
#include "offload/depfile.h"
#include "offload/cmdline.h"
#include "offload/diag.h"
#include "offload/mapped_file.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Make's escapes undone: "\ " is a space, "$$" a dollar, "\#" a hash. */
static char *unescape(const char *word, size_t len)
{
	char *out = ol_xmalloc(len + 1), *o = out;

	for (size_t i = 0; i < len; i++) {
		if ((word[i] == '\\' && i + 1 < len && (word[i + 1] == ' ' || word[i + 1] == '#')) ||
		    (word[i] == '$' && i + 1 < len && word[i + 1] == '$'))
			i++;
		*o++ = word[i];
	}
	*o = '\0';
	return out;
}

static int dropped(const char *word, size_t len, const char *const *drop, size_t n)
{
	char *name = unescape(word, len);
	int hit = 0;

	for (size_t i = 0; i < n && !hit; i++)
		hit = strcmp(name, drop[i]) == 0;
	free(name);
	return hit;
}

/* GNU ld (2.40) writes one name a line and does not escape its blanks: a
 * line that is a dropped name as it is ("  name \\" or "name:") goes whole,
 * before the lines are split into words. */
static char *without_whole_lines(const char *in, size_t size, const char *const *drop, size_t n,
				 size_t *out_size)
{
	struct strbuf out = STRBUF_INIT;
	size_t pos = 0;

	while (pos < size) {
		size_t end = pos, b, e;
		int hit = 0;

		while (end < size && in[end] != '\n')
			end++;
		b = pos;
		e = end;
		while (b < e && (in[b] == ' ' || in[b] == '\t'))
			b++;
		if (e - b >= 2 && in[e - 1] == '\\' && in[e - 2] == ' ')
			e -= 2;
		else if (e > b && in[e - 1] == ':')
			e--;
		if (e > b && memchr(in + b, ' ', e - b))
			for (size_t i = 0; i < n && !hit; i++)
				hit = strlen(drop[i]) == e - b && memcmp(drop[i], in + b, e - b) == 0;
		if (!hit)
			strbuf_add(&out, in + pos, end - pos + (end < size));
		pos = end + (end < size);
	}
	*out_size = out.len;
	return strbuf_detach(&out);
}

/* One logical line (continuations joined) at a time. */
static char *without_words(const char *in, size_t size, const char *const *drop, size_t n,
			   size_t *out_size)
{
	struct strbuf out = STRBUF_INIT;
	size_t pos = 0;

	while (pos < size) {
		struct strvec words = STRVEC_INIT;
		int empty_rule_of_dropped = 0;
		size_t start = pos;

		/* Collect the words of one logical line. */
		while (pos < size && in[pos] != '\n') {
			size_t w;

			while (pos < size && (in[pos] == ' ' || in[pos] == '\t'))
				pos++;
			if (pos + 1 < size && in[pos] == '\\' && in[pos + 1] == '\n') {
				pos += 2;   /* a continuation: the line goes on */
				continue;
			}
			if (pos >= size || in[pos] == '\n')
				break;
			w = pos;
			while (pos < size && in[pos] != '\n' && in[pos] != ' ' && in[pos] != '\t') {
				if (in[pos] == '\\' && pos + 1 < size && in[pos + 1] != '\n')
					pos++;
				pos++;
			}
			strvec_pushf(&words, "%.*s", (int)(pos - w), in + w);
		}
		if (pos < size)
			pos++;   /* the newline */
		if (words.nr == 0) {
			if (pos - start >= 1 && out.len && out.buf[out.len - 1] == '\n' &&
			    (out.len < 2 || out.buf[out.len - 2] != '\n'))
				strbuf_addstr(&out, "\n");
			strvec_release(&words);
			continue;
		}
		/* "name:" alone is the empty rule of a prerequisite. */
		if (words.nr == 1) {
			size_t len = strlen(words.v[0]);
			empty_rule_of_dropped = len > 1 && words.v[0][len - 1] == ':' &&
						dropped(words.v[0], len - 1, drop, n);
		}
		if (!empty_rule_of_dropped) {
			size_t kept = 0;
			for (size_t i = 0; i < words.nr; i++) {
				size_t len = strlen(words.v[i]);
				int target = i == 0 || (len && words.v[i][len - 1] == ':');
				if (!target && dropped(words.v[i], len, drop, n))
					continue;
				strbuf_addf(&out, "%s%s", kept == 0 ? "" : kept == 1 ? " \\\n  " : " \\\n  ",
					    words.v[i]);
				kept++;
			}
			strbuf_addstr(&out, "\n");
		}
		strvec_release(&words);
	}
	*out_size = out.len;
	return strbuf_detach(&out);
}

char *ol_depfile_without(const char *in, size_t size, const char *const *drop, size_t n,
			 size_t *out_size)
{
	size_t whole_size;
	char *whole = without_whole_lines(in, size, drop, n, &whole_size);
	char *out = without_words(whole, whole_size, drop, n, out_size);

	free(whole);
	return out;
}

const char *ol_depfile_path(const struct ol_cmdline *cl)
{
	const char *path = NULL;

	for (size_t i = 0; i < cl->nargs; i++) {
		const char *raw = cl->args[i].raw;
		if (!raw)
			continue;
		if (ol_starts_with(raw, "--dependency-file="))
			path = raw + strlen("--dependency-file=");
		else if (strcmp(raw, "--dependency-file") == 0 && i + 1 < cl->nargs)
			path = cl->args[i + 1].raw;
	}
	return path;
}

int ol_depfile_scrub(const char *path, const char *const *drop, size_t n)
{
	uint8_t *data;
	size_t size, out_size;
	char *out;
	int rc;

	if (ol_read_whole_file(path, &data, &size) < 0)
		return errno == ENOENT ? 0 : ol_error("cannot read the dependency file '%s': %s", path,
						      strerror(errno));
	out = ol_depfile_without((const char *)data, size, drop, n, &out_size);
	rc = out_size == size && memcmp(out, data, size) == 0 ? 0
							      : ol_write_file_atomic(path, out, out_size);
	free(out);
	free(data);
	return rc;
}
