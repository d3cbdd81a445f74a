/*
 * response_file: the command line as a list of words, @file arguments
 * replaced by the words of the file as llvm::cl::ExpandResponseFiles does
 * (GNU quoting, nested files, a cycle or too deep a nesting is an error).
 */
#include "driver_internal.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/mapped_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Nested response files deeper than this are an error. */
#define OL_RSP_MAX_DEPTH 10

void ol_words_push(struct ol_words *w, const char *s)
{
	OL_GROW(w->v, w->nr + 1, w->alloc, 64);
	w->v[w->nr++] = s;
}

static int is_rsp_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* llvm::cl::TokenizeGNUCommandLine: whitespace separates, '...' and "..."
 * quote, a backslash escapes the next character (inside quotes too), and an
 * empty token ("" alone) produces no word. */
void ol_words_tokenize(const char *src, size_t len, struct ol_words *out)
{
	struct strbuf tok = STRBUF_INIT;

	for (size_t i = 0; i < len; i++) {
		char c;

		if (tok.len == 0) {
			while (i < len && is_rsp_space(src[i]))
				i++;
			if (i == len)
				break;
		}
		c = src[i];
		if (c == '\\' && i + 1 < len) {
			strbuf_addch(&tok, src[++i]);
			continue;
		}
		if (c == '\'' || c == '"') {
			for (i++; i < len && src[i] != c; i++) {
				if (src[i] == '\\' && i + 1 < len)
					i++;
				strbuf_addch(&tok, src[i]);
			}
			if (i == len)
				break;
			continue;
		}
		if (is_rsp_space(c)) {
			if (tok.len)
				ol_words_push(out, ol_arena_strndup(&ol_link_arena, tok.buf, tok.len));
			tok.len = 0;
			continue;
		}
		strbuf_addch(&tok, c);
	}
	if (tok.len)
		ol_words_push(out, ol_arena_strndup(&ol_link_arena, tok.buf, tok.len));
	strbuf_release(&tok);
}

static int read_whole_file(const char *path, struct strbuf *sb)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		strbuf_add(sb, chunk, n);
	if (ferror(f)) {
		int saved = errno;

		fclose(f);
		errno = saved ? saved : EIO;
		return -1;
	}
	fclose(f);
	return 0;
}

struct rsp_frame {
	dev_t dev;
	ino_t ino;
	const struct rsp_frame *outer;
};

static int expand_word(struct ol_words *out, const char *word, const struct rsp_frame *open_files,
		       int depth);

/* Replaces "@path" by the words of the file; a missing file leaves "@path" a
 * literal argument, as llvm::cl::ExpandResponseFiles (and libiberty) do. */
static int expand_response_file(struct ol_words *out, const char *word,
				const struct rsp_frame *open_files, int depth)
{
	const char *path = word + 1;
	struct strbuf text = STRBUF_INIT;
	struct ol_words inner = { NULL, 0, 0 };
	struct rsp_frame frame;
	struct stat st;
	const char *body;
	size_t len;
	int ret = 0;

	if (stat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR || !*path) {
			ol_words_push(out, word);
			return 0;
		}
		return ol_error("cannot read response file '%s': %s", path, strerror(errno));
	}
	if (S_ISDIR(st.st_mode))
		return ol_error("cannot read response file '%s': %s", path, strerror(EISDIR));
	if (!S_ISREG(st.st_mode)) {
		if (ol_not_regular_errno(st.st_mode) == ESPIPE)
			return ol_error_not_readable_to_end(path, "response file");
		/* A device such as /dev/zero might never end either. */
		return ol_error("cannot read response file '%s': not a regular file", path);
	}
	for (const struct rsp_frame *f = open_files; f; f = f->outer)
		if (f->dev == st.st_dev && f->ino == st.st_ino)
			return ol_error("recursive expansion of: '%s'", path);
	if (depth >= OL_RSP_MAX_DEPTH)
		return ol_error("response file '%s' is nested more than %d deep", path,
				OL_RSP_MAX_DEPTH);
	if (read_whole_file(path, &text) != 0)
		return ol_error("cannot read response file '%s': %s", path, strerror(errno));

	body = strbuf_str(&text);
	len = text.len;
	if (len >= 3 && memcmp(body, "\xef\xbb\xbf", 3) == 0) {
		body += 3;
		len -= 3;
	}
	ol_words_tokenize(body, len, &inner);
	strbuf_release(&text);

	frame.dev = st.st_dev;
	frame.ino = st.st_ino;
	frame.outer = open_files;
	for (size_t i = 0; i < inner.nr && ret == 0; i++)
		ret = expand_word(out, inner.v[i], &frame, depth + 1);
	free(inner.v);
	return ret;
}

static int expand_word(struct ol_words *out, const char *word, const struct rsp_frame *open_files,
		       int depth)
{
	if (word[0] != '@') {
		ol_words_push(out, word);
		return 0;
	}
	return expand_response_file(out, word, open_files, depth);
}

int ol_words_expand(struct ol_words *out, const char *word)
{
	return expand_word(out, word, NULL, 0);
}
