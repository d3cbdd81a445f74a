/*
 * cmdline: clang-linker-wrapper's command line.  See offload/cmdline.h.
 *
 * The pieces, in the order a command line meets them:
 *   1. @file response files are expanded (GNU quoting, nesting limit).
 *   2. Every word is matched against the option table exactly as
 *      llvm::opt::OptTable::ParseOneArg does: records sorted like TableGen
 *      sorts them, the first record (in that order) whose prefix+name starts
 *      the word and whose kind accepts it wins, so the longest name wins.
 *   3. Wrapper options are decoded into struct ol_cmdline.
 *   4. The host linker's view (files, -l, state switches, -L, --sysroot) is
 *      built, knowing the GNU ld options upstream's table does not.
 * Rendering for the host linker re-matches the words with the table of the
 * release being emulated and renders each argument as Arg::render() does.
 */
#include "offload/cmdline.h"
#include "offload/arena.h"
#include "offload/diag.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------ */
/* The table                                                                 */

enum ol_opt_kind {
	OL_KIND_FLAG,
	OL_KIND_JOINED,
	OL_KIND_SEPARATE,
	OL_KIND_JOINED_OR_SEPARATE,
};

enum {
	OL_OPTF_WRAPPER_ONLY = 1 << 0,
	OL_OPTF_DEVICE_ONLY = 1 << 1,
	OL_OPTF_HIDDEN = 1 << 2,
	OL_OPTF_VARIANT = 1 << 3,
};

enum { OL_V16 = 1 << 0, OL_V19 = 1 << 1, OL_V22 = 1 << 2, OL_VALL = OL_V16 | OL_V19 | OL_V22 };

static const char *const ol_pfx_DD[] = { "--", NULL };
static const char *const ol_pfx_D[] = { "-", NULL };
static const char *const ol_pfx_DD_D[] = { "--", "-", NULL };
static const char *const ol_pfx_COFF[] = { "/", "-", "/?", "-?", NULL };

struct ol_opt {
	enum ol_opt_id id;
	const char *const *prefixes;
	const char *name;
	enum ol_opt_kind kind;
	unsigned flags;
	enum ol_opt_id alias;   /* OPT_COUNT when not an alias */
	enum ol_opt_id canon;
	const char *metavar;
	const char *help;
	unsigned versions;
};

#define NONE 0
#define WRAPPER_ONLY OL_OPTF_WRAPPER_ONLY
#define DEVICE_ONLY OL_OPTF_DEVICE_ONLY
#define HIDDEN OL_OPTF_HIDDEN
#define VARIANT OL_OPTF_VARIANT
#define V16 OL_V16
#define V19 OL_V19
#define V22 OL_V22
#define OPT_none OPT_COUNT
static const struct ol_opt ol_opts[] = {
#define OPTION(id_, prefixes_, name_, kind_, flags_, alias_, canon_, metavar_, help_, versions_) \
	{ OPT_##id_, ol_pfx_##prefixes_, name_, OL_KIND_##kind_, (flags_), OPT_##alias_,       \
	  OPT_##canon_, metavar_, help_, (versions_) },
#include "offload/options.def"
#undef OPTION
};
#undef OPT_none
#undef V22
#undef V19
#undef V16
#undef VARIANT
#undef HIDDEN
#undef DEVICE_ONLY
#undef WRAPPER_ONLY
#undef NONE

#define OL_NOPTS (sizeof(ol_opts) / sizeof(ol_opts[0]))
_Static_assert(OL_NOPTS == OPT_INPUT, "options.def and enum ol_opt_id disagree");

/* Longest option name that still shares its help line with the text. */
#define OL_HELP_NAME_WIDTH 23
#define OL_RSP_MAX_DEPTH 10

static unsigned flavor_mask(enum ol_flavor flavor)
{
	switch (flavor) {
	case OL_FLAVOR_16:
		return OL_V16;
	case OL_FLAVOR_19:
		return OL_V19;
	case OL_FLAVOR_22:
		return OL_V22;
	case OL_FLAVOR_AUTO:
		break;
	}
	return OL_VALL;
}

/* TableGen's StrCmpOptionName: case-insensitive, a name sorts after every
 * longer name it is a prefix of, exact case as the tie-break ("L" < "l"). */
static int option_name_cmp(const char *a, const char *b)
{
	const char *x = a, *y = b;

	for (;; x++, y++) {
		int ca = tolower((unsigned char)*x), cb = tolower((unsigned char)*y);

		if (ca != cb) {
			if (!ca)
				return 1;
			if (!cb)
				return -1;
			return ca < cb ? -1 : 1;
		}
		if (!ca)
			return strcmp(a, b);
	}
}

static unsigned short sorted_opts[OL_NOPTS];

/* Upstream's order; records with the same name keep options.def order, so
 * the newest release's record is the one AUTO matches first. */
static const unsigned short *sorted_table(void)
{
	static int ready;

	if (ready)
		return sorted_opts;
	for (size_t i = 0; i < OL_NOPTS; i++) {
		size_t j = i;

		while (j > 0 && option_name_cmp(ol_opts[sorted_opts[j - 1]].name, ol_opts[i].name) > 0) {
			sorted_opts[j] = sorted_opts[j - 1];
			j--;
		}
		sorted_opts[j] = (unsigned short)i;
	}
	ready = 1;
	return sorted_opts;
}

/*
 * The records, in sorted_table() order, that can match a word beginning with
 * a given character (one of their prefixes starts with it).  A link line is
 * mostly absolute paths, and only the few COFF-style options start with '/':
 * without this each path would be tried against the whole table.
 */
struct candidates {
	const unsigned short *v;
	size_t n;
};

static struct candidates candidates_for(unsigned char first)
{
	static unsigned short lists[4 * OL_NOPTS];   /* a record sits under each prefix's first char */
	static struct candidates by_char[256];
	static int ready;

	if (!ready) {
		const unsigned short *order = sorted_table();
		size_t used = 0;

		for (unsigned c = 1; c < 256; c++) {
			by_char[c].v = lists + used;
			for (size_t k = 0; k < OL_NOPTS; k++) {
				const struct ol_opt *rec = &ol_opts[order[k]];
				int hit = 0;

				for (const char *const *p = rec->prefixes; *p && !hit; p++)
					hit = (unsigned char)(*p)[0] == c;
				if (hit && used < sizeof(lists) / sizeof(lists[0])) {
					lists[used++] = order[k];
					by_char[c].n++;
				}
			}
		}
		ready = 1;
	}
	return by_char[first];
}

/* Length of prefix+name when `word` starts with one of rec's spellings. */
static size_t spelling_length(const struct ol_opt *rec, const char *word)
{
	for (const char *const *p = rec->prefixes; *p; p++) {
		size_t plen = strlen(*p), nlen;

		/* Most records fail on the name's first byte: test it before
		 * measuring and comparing the whole name. */
		if (strncmp(word, *p, plen) != 0 || word[plen] != rec->name[0])
			continue;
		nlen = strlen(rec->name);
		if (strncmp(word + plen, rec->name, nlen) == 0)
			return plen + nlen;
	}
	return 0;
}

/* The option an argument carries: aliases resolved, variants folded. */
static enum ol_opt_id canonical_id(const struct ol_opt *rec)
{
	const struct ol_opt *target = rec->alias != OPT_COUNT ? &ol_opts[rec->alias] : rec;

	return target->canon;
}

/* ------------------------------------------------------------------------ */
/* Word lists and response files                                             */

struct words {
	const char **v;
	size_t nr, alloc;
};

static void words_push(struct words *w, const char *s)
{
	if (w->nr == w->alloc) {
		w->alloc = w->alloc ? w->alloc * 2 : 64;
		w->v = ol_xrealloc(w->v, w->alloc * sizeof(*w->v));
	}
	w->v[w->nr++] = s;
}

static int is_rsp_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* llvm::cl::TokenizeGNUCommandLine: whitespace separates, '...' and "..."
 * quote, a backslash escapes the next character (inside quotes too), and an
 * empty token ("" alone) produces no word. */
static void tokenize_gnu(const char *src, size_t len, struct words *out)
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
				words_push(out, ol_arena_strndup(&ol_link_arena, tok.buf, tok.len));
			tok.len = 0;
			continue;
		}
		strbuf_addch(&tok, c);
	}
	if (tok.len)
		words_push(out, ol_arena_strndup(&ol_link_arena, tok.buf, tok.len));
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

static int expand_word(struct words *out, const char *word, const struct rsp_frame *open_files,
		       int depth);

/* Replaces "@path" by the words of the file; a missing file leaves "@path" a
 * literal argument, as llvm::cl::ExpandResponseFiles (and libiberty) do. */
static int expand_response_file(struct words *out, const char *word,
				const struct rsp_frame *open_files, int depth)
{
	const char *path = word + 1;
	struct strbuf text = STRBUF_INIT;
	struct words inner = { NULL, 0, 0 };
	struct rsp_frame frame;
	struct stat st;
	const char *body;
	size_t len;
	int ret = 0;

	if (stat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR || !*path) {
			words_push(out, word);
			return 0;
		}
		return ol_error("cannot read response file '%s': %s", path, strerror(errno));
	}
	if (S_ISDIR(st.st_mode))
		return ol_error("cannot read response file '%s': %s", path, strerror(EISDIR));
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
	tokenize_gnu(body, len, &inner);
	strbuf_release(&text);

	frame.dev = st.st_dev;
	frame.ino = st.st_ino;
	frame.outer = open_files;
	for (size_t i = 0; i < inner.nr && ret == 0; i++)
		ret = expand_word(out, inner.v[i], &frame, depth + 1);
	free(inner.v);
	return ret;
}

static int expand_word(struct words *out, const char *word, const struct rsp_frame *open_files,
		       int depth)
{
	if (word[0] != '@') {
		words_push(out, word);
		return 0;
	}
	return expand_response_file(out, word, open_files, depth);
}

/* ------------------------------------------------------------------------ */
/* Matching                                                                  */

struct parsed {
	struct ol_arg *args;
	const struct ol_opt **recs;  /* matched record per arg; NULL for INPUT/UNKNOWN */
	size_t nr, alloc;
};

static void parsed_push(struct parsed *p, enum ol_opt_id id, const char *raw, const char *value,
			const struct ol_opt *rec)
{
	if (p->nr == p->alloc) {
		p->alloc = p->alloc ? p->alloc * 2 : 64;
		p->args = ol_xrealloc(p->args, p->alloc * sizeof(*p->args));
		p->recs = ol_xrealloc(p->recs, p->alloc * sizeof(*p->recs));
	}
	p->args[p->nr].id = id;
	p->args[p->nr].raw = raw;
	p->args[p->nr].value = value;
	p->recs[p->nr] = rec;
	p->nr++;
}

static void parsed_release(struct parsed *p)
{
	free(p->args);
	free(p->recs);
	memset(p, 0, sizeof(*p));
}

/*
 * Matches words[*i] (advancing *i past what it consumed) like ParseOneArg.
 * Returns 0, or -1 when a separate option ends the line; then, with
 * `report`, "<opt>: missing argument" (upstream's text) is reported, and
 * without it the word is kept as an unknown option.
 */
static int match_one(const struct words *w, size_t *i, unsigned vmask, struct parsed *out,
		     int report)
{
	const char *word = w->v[*i];
	struct candidates cand;

	if ((word[0] != '-' && word[0] != '/') || strcmp(word, "-") == 0) {
		parsed_push(out, OPT_INPUT, word, NULL, NULL);
		++*i;
		return 0;
	}
	cand = candidates_for((unsigned char)word[0]);
	for (size_t k = 0; k < cand.n; k++) {
		const struct ol_opt *rec = &ol_opts[cand.v[k]];
		size_t len;

		if (!(rec->versions & vmask))
			continue;
		len = spelling_length(rec, word);
		if (!len)
			continue;
		switch (rec->kind) {
		case OL_KIND_FLAG:
			if (word[len])
				continue;
			parsed_push(out, canonical_id(rec), word, NULL, rec);
			++*i;
			return 0;
		case OL_KIND_JOINED:
			parsed_push(out, canonical_id(rec), word, word + len, rec);
			++*i;
			return 0;
		case OL_KIND_SEPARATE:
		case OL_KIND_JOINED_OR_SEPARATE:
			if (word[len]) {
				if (rec->kind == OL_KIND_SEPARATE)
					continue;
				parsed_push(out, canonical_id(rec), word, word + len, rec);
				++*i;
				return 0;
			}
			if (*i + 1 >= w->nr) {
				if (report)
					return ol_error("%s: missing argument", word);
				parsed_push(out, OPT_UNKNOWN, word, NULL, NULL);
				++*i;
				return 0;
			}
			parsed_push(out, canonical_id(rec), word, w->v[*i + 1], rec);
			*i += 2;
			return 0;
		}
	}
	/* llvm::opt: an unmatched word starting with '/' is a path. */
	parsed_push(out, word[0] == '/' ? OPT_INPUT : OPT_UNKNOWN, word, NULL, NULL);
	++*i;
	return 0;
}

static int match_words(const struct words *w, unsigned vmask, struct parsed *out, int report)
{
	size_t i = 0;

	while (i < w->nr) {
		/* llvm::opt skips empty arguments altogether. */
		if (!w->v[i][0]) {
			i++;
			continue;
		}
		if (match_one(w, &i, vmask, out, report))
			return -1;
	}
	return 0;
}

/* A joined value points into its own word; a separate one is the next word,
 * which lies past the word's terminating NUL, so this test cannot confuse
 * them. */
static int value_is_joined(const struct ol_arg *a)
{
	size_t rlen, vlen;

	if (!a->value)
		return 0;
	rlen = strlen(a->raw);
	vlen = strlen(a->value);
	return vlen <= rlen && a->raw + (rlen - vlen) == a->value;
}

/* The words a parsed line came from (empty words are gone, as in llvm). */
static void words_of_args(const struct ol_cmdline *cl, struct words *out)
{
	for (size_t i = 0; i < cl->nargs; i++) {
		const struct ol_arg *a = &cl->args[i];

		words_push(out, a->raw);
		if (a->value && !value_is_joined(a))
			words_push(out, a->value);
	}
}

/* ------------------------------------------------------------------------ */
/* Help and version                                                          */

static int invoked_as_upstream(const char *argv0)
{
	const char *base;

	if (!argv0)
		return 0;
	base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	return strcmp(base, "clang-linker-wrapper") == 0;
}

static int shown_in_help(const struct ol_opt *rec, enum ol_flavor flavor, int show_hidden)
{
	if (flavor == OL_FLAVOR_AUTO ? (rec->flags & OL_OPTF_VARIANT) != 0
				     : !(rec->versions & flavor_mask(flavor)))
		return 0;
	return show_hidden || !(rec->flags & OL_OPTF_HIDDEN);
}

/* OptTable's getOptionHelpName. */
static void help_name(const struct ol_opt *rec, struct strbuf *sb)
{
	const char *meta = rec->metavar ? rec->metavar : "<value>";

	strbuf_addstr(sb, rec->prefixes[0]);
	strbuf_addstr(sb, rec->name);
	switch (rec->kind) {
	case OL_KIND_FLAG:
		break;
	case OL_KIND_SEPARATE:
	case OL_KIND_JOINED_OR_SEPARATE:
		strbuf_addch(sb, ' ');
		strbuf_addstr(sb, meta);
		break;
	case OL_KIND_JOINED:
		strbuf_addstr(sb, meta);
		break;
	}
}

/* OptTable::printHelp's layout: names padded to the widest one of at most
 * 23 characters, longer names on a line of their own. */
static void print_help(const char *argv0, enum ol_flavor flavor, int show_hidden)
{
	const unsigned short *order = sorted_table();
	struct strbuf names[OL_NOPTS];
	const char *texts[OL_NOPTS];
	struct strbuf out = STRBUF_INIT;
	size_t n = 0, width = 0;
	int upstream = invoked_as_upstream(argv0);

	for (size_t k = 0; k < OL_NOPTS; k++) {
		const struct ol_opt *rec = &ol_opts[order[k]];
		const char *text = rec->help;

		if (!shown_in_help(rec, flavor, show_hidden))
			continue;
		/* --help-hidden also shows every alias, with its target's text. */
		if (!text && show_hidden && rec->alias != OPT_COUNT)
			text = ol_opts[rec->alias].help;
		if (!text || !*text)
			continue;
		names[n] = (struct strbuf)STRBUF_INIT;
		help_name(rec, &names[n]);
		texts[n] = text;
		if (names[n].len <= OL_HELP_NAME_WIDTH && names[n].len > width)
			width = names[n].len;
		n++;
	}

	strbuf_addstr(&out, "OVERVIEW: \n"
		      "A wrapper utility over the host linker. It scans the input files\n"
		      "for sections that require additional processing prior to linking.\n"
		      "The will then transparently pass all arguments and input to the\n"
		      "specified host linker to create the final binary.\n");
	strbuf_addstr(&out, "This is offload-link " OL_VERSION
		      ", compatible with clang-linker-wrapper 16, 19 and 22.\n\n\n");
	if (upstream)
		strbuf_addstr(&out, "USAGE: clang-linker-wrapper [options] -- "
			      "<options to passed to the linker>\n\n");
	else
		strbuf_addstr(&out, "USAGE: offload-link [options] -- "
			      "<options to pass to the linker>\n\n");
	strbuf_addstr(&out, "OPTIONS:\n");
	for (size_t k = 0; k < n; k++) {
		size_t pad;

		strbuf_addf(&out, "  %s", names[k].buf);
		if (names[k].len > width) {
			strbuf_addch(&out, '\n');
			pad = width + 2 + 1;
		} else {
			pad = width - names[k].len + 1;
		}
		for (const char *line = texts[k]; line;) {
			const char *nl = strchr(line, '\n');
			size_t llen = nl ? (size_t)(nl - line) : strlen(line);

			strbuf_addf(&out, "%*s%.*s\n", (int)pad, "", (int)llen, line);
			line = nl ? nl + 1 : NULL;
			pad = width + 2 + 1;
		}
		strbuf_release(&names[k]);
	}
	fwrite(strbuf_str(&out), 1, out.len, stdout);
	strbuf_release(&out);
}

static void print_version(const char *argv0)
{
	if (invoked_as_upstream(argv0))
		printf("clang-linker-wrapper version %s (offload-link; compatible with "
		       "clang-linker-wrapper 16, 19, 22)\n", OL_VERSION);
	else
		printf("offload-link version %s (compatible with clang-linker-wrapper 16, 19, 22)\n",
		       OL_VERSION);
}

/* ------------------------------------------------------------------------ */
/* Decoding the wrapper's own options                                        */

/* Digits only, as StringRef::getAsInteger(10, unsigned) wants them. */
static int parse_unsigned(const char *s, unsigned *out)
{
	unsigned long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > UINT_MAX)
			return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (!*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

static int decode_offload_abi(const struct parsed *p, enum ol_flavor *flavor)
{
	const struct ol_arg *last = NULL;

	for (size_t i = 0; i < p->nr; i++)
		if (p->args[i].id == OPT_offload_abi)
			last = &p->args[i];
	*flavor = OL_FLAVOR_AUTO;
	if (!last || strcmp(last->value, "auto") == 0)
		return 0;
	if (strcmp(last->value, "16") == 0)
		*flavor = OL_FLAVOR_16;
	else if (strcmp(last->value, "19") == 0)
		*flavor = OL_FLAVOR_19;
	else if (strcmp(last->value, "22") == 0)
		*flavor = OL_FLAVOR_22;
	else
		return ol_error("%s: expected 16, 19, 22 or auto, got '%s'", last->raw, last->value);
	return 0;
}

/* Options whose last occurrence counts are checked once, after the loop,
 * like upstream's getLastArg: an earlier bad value is never looked at. */
struct last_seen {
	const struct ol_arg *opt_level, *compression_level, *jobs, *granularity;
	const struct ol_opt *jobs_rec;
};

static int check_last_values(struct ol_cmdline *cl, const struct last_seen *last)
{
	int failed = 0;
	unsigned u;

	if (last->opt_level) {
		const char *v = last->opt_level->value;

		if (v[0] == 'O' && v[1] >= '0' && v[1] <= '3' && !v[2])
			cl->opt_level = v[1] - '0';
		else
			failed |= ol_error("%s: invalid optimization level '%s', expected O0, O1, "
					   "O2 or O3", last->opt_level->raw, v);
	}
	if (last->compression_level &&
	    parse_int(last->compression_level->value, &cl->compression_level))
		failed |= ol_error("%s: expected an integer, got '%s'", last->compression_level->raw,
				   last->compression_level->value);
	if (last->jobs) {
		const char *v = last->jobs->value;
		int jobserver_ok = last->jobs_rec->versions & OL_V22;

		if (jobserver_ok && strcasecmp(v, "jobserver") == 0)
			cl->wrapper_jobserver = 1;
		else if (parse_unsigned(v, &u) == 0 && u > 0 && u <= INT_MAX)
			cl->wrapper_jobs = (int)u;
		else if (jobserver_ok)
			failed |= ol_error("%s: expected a positive integer or 'jobserver', got '%s'",
					   last->jobs->raw, v);
		else
			failed |= ol_error("%s: expected a positive integer, got '%s'",
					   last->jobs->raw, v);
	}
	if (last->granularity) {
		if (parse_unsigned(last->granularity->value, &u) == 0 && u <= INT_MAX)
			cl->time_trace_granularity = (int)u;
		else
			failed |= ol_error("%s: expected a non-negative integer, got '%s'",
					   last->granularity->raw, last->granularity->value);
	}
	return failed ? -1 : 0;
}

/* Triple::isOSWindows(): the OS component is "windows" or "win32". */
static int triple_is_windows(const char *triple)
{
	return strstr(triple, "-windows") || strstr(triple, "-win32");
}

static int decode_wrapper_options(struct ol_cmdline *cl, const struct parsed *p)
{
	struct last_seen last = { NULL, NULL, NULL, NULL, NULL };
	const char *output = NULL, *coff_output = NULL;

	for (size_t i = 0; i < p->nr; i++) {
		const struct ol_arg *a = &p->args[i];
		const struct ol_opt *rec = p->recs[i];

		switch (a->id) {
		case OPT_linker_path:
			cl->linker_path = a->value;
			break;
		case OPT_host_triple:
			cl->host_triple = a->value;
			break;
		case OPT_o:
			output = a->value;
			break;
		case OPT_out:
			coff_output = a->value;
			break;
		case OPT_cuda_path:
			cl->cuda_path = a->value;
			break;
		case OPT_dry_run:
			cl->dry_run = 1;
			break;
		case OPT_wrapper_verbose:
			cl->verbose = 1;
			break;
		case OPT_save_temps:
			cl->save_temps = 1;
			break;
		case OPT_print_wrapped_module:
			cl->print_wrapped_module = 1;
			break;
		case OPT_relocatable:
			cl->relocatable = 1;
			break;
		case OPT_embed_bitcode:
			cl->embed_bitcode = 1;
			break;
		case OPT_device_debug:
			cl->device_debug = 1;
			break;
		case OPT_clang_backend:
			cl->clang_backend = 1;
			break;
		case OPT_compress:
			cl->compress = 1;
			break;
		case OPT_emit_fatbin_only:
			cl->emit_fatbin_only = 1;
			break;
		case OPT_whole_program:
			cl->whole_program = 1;
			break;
		case OPT_separator:
			cl->saw_separator = 1;
			break;
		case OPT_opt_level:
			last.opt_level = a;
			break;
		case OPT_compression_level:
			last.compression_level = a;
			break;
		case OPT_wrapper_jobs:
			last.jobs = a;
			last.jobs_rec = rec;
			break;
		case OPT_wrapper_time_trace:
			cl->time_trace = a->value;
			break;
		case OPT_wrapper_time_trace_granularity:
			last.granularity = a;
			break;
		case OPT_device_linker:
			strvec_push(&cl->device_linker, a->value);
			break;
		case OPT_device_compiler:
			strvec_push(&cl->device_compiler, a->value);
			break;
		case OPT_mllvm:
			strvec_push(&cl->mllvm, a->value);
			break;
		case OPT_offload_opt:
			/* 16/19 matched "--offload-opt=-" and give back the dash. */
			if (rec->id == OPT_offload_opt)
				strvec_push(&cl->offload_opt, a->value);
			else
				strvec_pushf(&cl->offload_opt, "-%s", a->value);
			break;
		case OPT_ptxas_arg:
			strvec_push(&cl->ptxas_args, a->value);
			break;
		case OPT_should_extract:
			strvec_push(&cl->should_extract, a->value);
			break;
		case OPT_bitcode_library:
			strvec_push(&cl->bitcode_library, a->value);
			break;
		case OPT_builtin_bitcode:
			strvec_push(&cl->builtin_bitcode, a->value);
			break;
		case OPT_override_image:
			strvec_push(&cl->override_image, a->value);
			break;
		case OPT_pass_remarks:
		case OPT_pass_remarks_missed:
		case OPT_pass_remarks_analysis:
			strvec_push(&cl->pass_remarks, a->raw);
			break;
		default:
			break;
		}
	}
	/* Upstream's ExecutableName (19, 22): the last -o, else the last
	 * /out:, else what the host's linker would write. */
	if (output)
		cl->output = output;
	else if (coff_output)
		cl->output = coff_output;
	else if (triple_is_windows(cl->host_triple))
		cl->output = "a.exe";
	return check_last_values(cl, &last);
}

/* ------------------------------------------------------------------------ */
/* The host linker's view                                                    */

/* "-name" or "--name" exactly, for one of names. */
static int is_ld_long_option(const char *word, const char *const *names)
{
	const char *body;

	if (word[0] != '-')
		return 0;
	body = word[1] == '-' ? word + 2 : word + 1;
	for (const char *const *n = names; *n; n++)
		if (strcmp(body, *n) == 0)
			return 1;
	return 0;
}

static const char *const ld_bstatic[] = { "Bstatic", "static", "dn", "non_shared", NULL };
static const char *const ld_bdynamic[] = { "Bdynamic", "dy", "call_shared", NULL };
static const char *const ld_start_group[] = { "start-group", NULL };
static const char *const ld_end_group[] = { "end-group", NULL };
static const char *const ld_as_needed[] = { "as-needed", NULL };
static const char *const ld_no_as_needed[] = { "no-as-needed", NULL };
static const char *const ld_whole_archive[] = { "whole-archive", NULL };
static const char *const ld_no_whole_archive[] = { "no-whole-archive", NULL };
static const char *const ld_sysroot[] = { "sysroot", NULL };

/* GNU ld (bfd) and lld options whose value may be the next word.  Their
 * one-letter forms only with one dash; the joined forms ("-zrelro",
 * "--hash-style=gnu", "-O1") never take the next word and are not here. */
static const char ld_short_with_value[] = "aAbceFfGhImOPRTuyYz";
static const char *const ld_long_with_value[] = {
	"architecture", "assert", "audit", "auxiliary", "call-graph-ordering-file", "defsym",
	"depaudit", "dependency-file", "dynamic-linker", "dynamic-list", "entry",
	"error-handling-script", "exclude-libs", "export-dynamic-symbol",
	"export-dynamic-symbol-list", "filter", "fini", "format", "gpsize", "hash-style", "heap",
	"image-base", "init", "just-symbols", "Map", "mri-script", "oformat", "orphan-handling",
	"out-implib", "plugin", "plugin-opt", "remap-inputs", "remap-inputs-file", "reproduce",
	"require-defined", "retain-symbols-file", "rpath-link", "script", "section-ordering-file",
	"section-start", "soname", "sort-section", "spare-dynamic-tags", "stack", "subsystem",
	"symbol-ordering-file", "Tbss", "Tdata", "Tldata-segment", "trace-symbol",
	"Trodata-segment", "Ttext", "Ttext-segment", "task-link", "undefined", "undefined-glob",
	"unresolved-symbols", "version-exports-section", "version-script", "wrap", NULL,
};

static int ld_option_takes_next_word(const char *word)
{
	if (word[0] == '-' && word[1] && !word[2] && strchr(ld_short_with_value, word[1]))
		return 1;
	return is_ld_long_option(word, ld_long_with_value);
}

struct host_view {
	struct ol_cmdline *cl;
	size_t items_alloc, paths_alloc;
	int saw_library;
};

static void add_item(struct host_view *hv, enum ol_link_item_kind kind, const char *value,
		     size_t arg_index)
{
	struct ol_cmdline *cl = hv->cl;

	if (cl->nlink_items == hv->items_alloc) {
		hv->items_alloc = hv->items_alloc ? hv->items_alloc * 2 : 32;
		cl->link_items = ol_xrealloc(cl->link_items,
					     hv->items_alloc * sizeof(*cl->link_items));
	}
	cl->link_items[cl->nlink_items].kind = kind;
	cl->link_items[cl->nlink_items].value = value;
	cl->link_items[cl->nlink_items].arg_index = arg_index;
	cl->nlink_items++;
	if (kind == OL_LINK_LIBRARY)
		hv->saw_library = 1;
	else if (kind == OL_LINK_BSTATIC && !hv->saw_library)
		cl->static_link = 1;
}

static void add_lib_path(struct host_view *hv, const char *dir)
{
	struct ol_cmdline *cl = hv->cl;

	if (cl->nlib_paths == hv->paths_alloc) {
		hv->paths_alloc = hv->paths_alloc ? hv->paths_alloc * 2 : 16;
		cl->lib_paths = ol_xrealloc(cl->lib_paths, hv->paths_alloc * sizeof(*cl->lib_paths));
	}
	cl->lib_paths[cl->nlib_paths++] = dir;
}

/* An unknown option the host linker understands as a state switch. */
static int ld_state_switch(const char *word, enum ol_link_item_kind *kind)
{
	static const struct {
		const char *const *names;
		enum ol_link_item_kind kind;
	} switches[] = {
		{ ld_bstatic, OL_LINK_BSTATIC },
		{ ld_bdynamic, OL_LINK_BDYNAMIC },
		{ ld_start_group, OL_LINK_START_GROUP },
		{ ld_end_group, OL_LINK_END_GROUP },
		{ ld_as_needed, OL_LINK_AS_NEEDED },
		{ ld_no_as_needed, OL_LINK_NO_AS_NEEDED },
		{ ld_whole_archive, OL_LINK_WHOLE_ARCHIVE },
		{ ld_no_whole_archive, OL_LINK_NO_WHOLE_ARCHIVE },
	};

	if (strcmp(word, "-(") == 0) {
		*kind = OL_LINK_START_GROUP;
		return 1;
	}
	if (strcmp(word, "-)") == 0) {
		*kind = OL_LINK_END_GROUP;
		return 1;
	}
	for (size_t k = 0; k < sizeof(switches) / sizeof(switches[0]); k++) {
		if (is_ld_long_option(word, switches[k].names)) {
			*kind = switches[k].kind;
			return 1;
		}
	}
	return 0;
}

/*
 * Walks the forwarded arguments in order, as the host linker will read them.
 * An unknown ld option that takes a value swallows the next forwarded word
 * ("-z now", "-m elf_x86_64", "-dynamic-linker /lib64/ld-linux-x86-64.so.2"),
 * so that word is never taken for an input file.
 */
static void build_host_view(struct ol_cmdline *cl)
{
	struct host_view hv = { cl, 0, 0, 0 };
	int swallow_next = 0, next_is_sysroot = 0;

	for (size_t i = 0; i < cl->nargs; i++) {
		const struct ol_arg *a = &cl->args[i];
		enum ol_link_item_kind kind;

		if (a->id != OPT_INPUT && a->id != OPT_UNKNOWN &&
		    (ol_opts[a->id].flags & OL_OPTF_WRAPPER_ONLY))
			continue;  /* the host linker never sees it */
		if (swallow_next) {
			swallow_next = 0;
			if (next_is_sysroot)
				cl->sysroot = a->raw;
			next_is_sysroot = 0;
			continue;
		}
		switch (a->id) {
		case OPT_INPUT:
			if (strcmp(a->raw, "-") != 0)
				add_item(&hv, OL_LINK_FILE, a->raw, i);
			break;
		case OPT_library:
			add_item(&hv, OL_LINK_LIBRARY, a->value, i);
			break;
		case OPT_library_path:
		case OPT_libpath:
			add_lib_path(&hv, a->value);
			break;
		case OPT_whole_archive:
			add_item(&hv, OL_LINK_WHOLE_ARCHIVE, NULL, i);
			break;
		case OPT_no_whole_archive:
			add_item(&hv, OL_LINK_NO_WHOLE_ARCHIVE, NULL, i);
			break;
		case OPT_as_needed:
			add_item(&hv, OL_LINK_AS_NEEDED, NULL, i);
			break;
		case OPT_no_as_needed:
			add_item(&hv, OL_LINK_NO_AS_NEEDED, NULL, i);
			break;
		case OPT_sysroot:
			/* 16's record is "--sysroot" without '=': a bare
			 * "--sysroot" takes the next word, as ld does, and
			 * "--sysroot=/x" has the value "=/x". */
			if (strcmp(a->raw, "--sysroot") == 0)
				swallow_next = next_is_sysroot = 1;
			else if (a->value == a->raw + strlen("--sysroot") && a->value[0] == '=')
				cl->sysroot = a->value + 1;
			else
				cl->sysroot = a->value;
			break;
		case OPT_UNKNOWN:
			if (ld_state_switch(a->raw, &kind)) {
				add_item(&hv, kind, NULL, i);
			} else if (is_ld_long_option(a->raw, ld_sysroot)) {
				swallow_next = next_is_sysroot = 1;
			} else if (strncmp(a->raw, "-sysroot=", 9) == 0) {
				cl->sysroot = a->raw + 9;  /* ld's one-dash spelling */
			} else if (ld_option_takes_next_word(a->raw)) {
				swallow_next = 1;
			}
			break;
		default:
			break;
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */

int ol_cmdline_parse(int argc, char **argv, struct ol_cmdline *cl)
{
	struct words words = { NULL, 0, 0 };
	struct parsed parsed = { NULL, NULL, 0, 0 };
	enum ol_flavor flavor;
	int help = 0, help_hidden = 0, version = 0;
	int ret = -1;

	memset(cl, 0, sizeof(*cl));
	cl->argv0 = argc > 0 && argv[0] ? argv[0] : "offload-link";
	cl->host_triple = OL_DEFAULT_TRIPLE;
	cl->output = "a.out";
	cl->opt_level = 2;
	cl->compression_level = -1;
	cl->time_trace_granularity = 500;
	cl->flavor = OL_FLAVOR_AUTO;

	for (int i = 1; i < argc; i++)
		if (argv[i] && expand_word(&words, argv[i], NULL, 0))
			goto out;

	/* --offload-abi decides which release's table applies, so match once
	 * with every record to find it, then again with that release's. */
	if (match_words(&words, OL_VALL, &parsed, 1))
		goto out;
	if (decode_offload_abi(&parsed, &flavor))
		goto out;
	if (flavor != OL_FLAVOR_AUTO) {
		parsed_release(&parsed);
		if (match_words(&words, flavor_mask(flavor), &parsed, 1))
			goto out;
	}
	cl->flavor = flavor;

	for (size_t i = 0; i < parsed.nr; i++) {
		help |= parsed.args[i].id == OPT_help;
		help_hidden |= parsed.args[i].id == OPT_help_hidden;
		version |= parsed.args[i].id == OPT_v;
	}
	if (help || help_hidden) {
		print_help(cl->argv0, flavor, help_hidden);
		exit(0);
	}
	if (version) {
		print_version(cl->argv0);
		exit(0);
	}

	ret = decode_wrapper_options(cl, &parsed);
	cl->args = parsed.args;
	cl->nargs = parsed.nr;
	parsed.args = NULL;
	build_host_view(cl);
out:
	parsed_release(&parsed);
	free(words.v);
	if (ret)
		ol_cmdline_release(cl);
	return ret;
}

static void push_joined(struct strvec *out, const char *a, size_t alen, const char *b)
{
	strvec_pushf(out, "%.*s%s", (int)alen, a, b ? b : "");
}

/* Arg::render() for one argument; wrapper objects follow each -o and /out:. */
static void render_arg(const struct ol_arg *a, const struct ol_opt *rec,
		       const char *const *wrapper_objs, struct strvec *out)
{
	const struct ol_opt *target;
	const char *spelling;
	size_t spell_len;

	if (!rec) {
		strvec_push(out, a->raw);
		return;
	}
	if (rec->flags & OL_OPTF_WRAPPER_ONLY)
		return;
	if (rec->alias != OPT_COUNT) {
		/* An alias is rendered as its target, in the target's first
		 * spelling: "--library=x" -> "-L x", "-r" -> "--relocatable". */
		target = &ol_opts[rec->alias];
		spelling = target->prefixes[0];
		spell_len = strlen(spelling);
	} else {
		target = rec;
		spelling = a->raw;
		spell_len = spelling_length(rec, a->raw);
	}
	switch (target->kind) {
	case OL_KIND_FLAG:
		if (rec->alias != OPT_COUNT)
			strvec_pushf(out, "%s%s", spelling, target->name);
		else
			push_joined(out, spelling, spell_len, NULL);
		break;
	case OL_KIND_JOINED:
		if (rec->alias != OPT_COUNT)
			strvec_pushf(out, "%s%s%s", spelling, target->name, a->value);
		else
			push_joined(out, spelling, spell_len, a->value);
		break;
	case OL_KIND_SEPARATE:
	case OL_KIND_JOINED_OR_SEPARATE:
		if (rec->alias != OPT_COUNT)
			strvec_pushf(out, "%s%s", spelling, target->name);
		else
			push_joined(out, spelling, spell_len, NULL);
		strvec_push(out, a->value);
		break;
	}
	if ((target->canon == OPT_o || target->canon == OPT_out) && wrapper_objs)
		strvec_pushv(out, wrapper_objs);
}

void ol_cmdline_render_host(const struct ol_cmdline *cl, const char *const *wrapper_objs,
			    struct strvec *out)
{
	struct words words = { NULL, 0, 0 };
	struct parsed parsed = { NULL, NULL, 0, 0 };

	/* Match the words again with the table of the release being emulated:
	 * cl->flavor may have been decided from the inputs after parsing, and
	 * a word one release knows is an unknown option to another. */
	words_of_args(cl, &words);
	match_words(&words, flavor_mask(cl->flavor), &parsed, 0);
	for (size_t i = 0; i < parsed.nr; i++)
		render_arg(&parsed.args[i], parsed.recs[i], wrapper_objs, out);
	parsed_release(&parsed);
	free(words.v);
}

/* Whether the first component of a triple names an architecture that
 * llvm::Triple knows (Triple::parseArch), which is how 22 tells
 * "<triple>=<value>" from "-option=value". */
static int triple_has_known_arch(const char *triple, size_t len)
{
	static const char *const arches[] = {
		"i386", "i486", "i586", "i686", "i786", "i886", "i986", "amd64", "x86_64",
		"x86_64h", "powerpc", "powerpcspe", "ppc", "ppc32", "powerpcle", "ppcle", "ppc32le",
		"powerpc64", "ppu", "ppc64", "powerpc64le", "ppc64le", "xscale", "xscaleeb",
		"aarch64", "aarch64_be", "aarch64_32", "arc", "arm64", "arm64_32", "arm64e",
		"arm64ec", "arm", "armeb", "thumb", "thumbeb", "avr", "m68k", "msp430", "mips",
		"mipseb", "mipsallegrex", "mipsisa32r6", "mipsr6", "mipsel", "mipsallegrexel",
		"mipsisa32r6el", "mipsr6el", "mips64", "mips64eb", "mipsn32", "mipsisa64r6",
		"mips64r6", "mipsn32r6", "mips64el", "mipsn32el", "mipsisa64r6el", "mips64r6el",
		"mipsn32r6el", "r600", "amdgcn", "riscv32", "riscv64", "riscv32be", "riscv64be",
		"hexagon", "s390x", "systemz", "sparc", "sparcel", "sparcv9", "sparc64", "tce",
		"tcele", "xcore", "nvptx", "nvptx64", "le32", "le64", "amdil", "amdil64", "hsail",
		"hsail64", "spir", "spir64", "lanai", "renderscript32", "renderscript64", "shave",
		"ve", "wasm32", "wasm64", "csky", "loongarch32", "loongarch64", "dxil", "xtensa",
		"bpf", "bpfel", "bpfeb", NULL,
	};
	/* Families whose names carry a version: "spirv64v1.2", "dxilv1.6". */
	static const char *const versioned_families[] = { "spirv", "kalimba", "dxilv1.", NULL };
	/* ARM sub-architectures ("armv7a", "thumbv8m.main"): a digit follows. */
	static const char *const arm_families[] = { "armv", "armebv", "thumbv", "thumbebv", NULL };
	const char *dash = memchr(triple, '-', len);
	size_t alen = dash ? (size_t)(dash - triple) : len;

	for (const char *const *p = arches; *p; p++)
		if (strlen(*p) == alen && strncmp(triple, *p, alen) == 0)
			return 1;
	for (const char *const *p = versioned_families; *p; p++)
		if (alen >= strlen(*p) && strncmp(triple, *p, strlen(*p)) == 0)
			return 1;
	for (const char *const *p = arm_families; *p; p++) {
		size_t plen = strlen(*p);

		if (alen > plen && strncmp(triple, *p, plen) == 0 &&
		    isdigit((unsigned char)triple[plen]))
			return 1;
	}
	return 0;
}

/*
 * getLinkerArgs' rule for --device-linker= / --device-compiler= values
 * (spec 4.2).  The value splits at its first '=' into T and V:
 *   16, 19: no V -> the whole value; T equal to the group triple -> V;
 *           any other T -> dropped (so "--device-linker=k=v" is lost).
 *   22:     T not a triple (unknown arch) -> the whole value; else as 16/19.
 * AUTO uses 22's rule.
 */
void ol_cmdline_device_args(const struct ol_cmdline *cl, const struct strvec *raw,
			    const char *triple, enum ol_flavor flavor, struct strvec *out)
{
	(void)cl;
	for (size_t i = 0; i < raw->nr; i++) {
		const char *arg = raw->v[i];
		const char *eq = strchr(arg, '=');
		size_t tlen = eq ? (size_t)(eq - arg) : strlen(arg);
		const char *value = eq ? eq + 1 : "";

		if (flavor != OL_FLAVOR_16 && flavor != OL_FLAVOR_19 &&
		    !triple_has_known_arch(arg, tlen)) {
			strvec_push(out, arg);
			continue;
		}
		if (!*value)
			strvec_pushf(out, "%.*s", (int)tlen, arg);
		else if (triple && strlen(triple) == tlen && strncmp(arg, triple, tlen) == 0)
			strvec_push(out, value);
	}
}

void ol_cmdline_release(struct ol_cmdline *cl)
{
	free(cl->args);
	free(cl->link_items);
	free(cl->lib_paths);
	strvec_release(&cl->device_linker);
	strvec_release(&cl->device_compiler);
	strvec_release(&cl->mllvm);
	strvec_release(&cl->offload_opt);
	strvec_release(&cl->ptxas_args);
	strvec_release(&cl->should_extract);
	strvec_release(&cl->bitcode_library);
	strvec_release(&cl->builtin_bitcode);
	strvec_release(&cl->override_image);
	strvec_release(&cl->pass_remarks);
	memset(cl, 0, sizeof(*cl));
}
