/*
 * match: the words of a command line matched against the option table
 * exactly as llvm::opt::OptTable::ParseOneArg does: the first record (in
 * TableGen's order) whose prefix+name starts the word and whose kind accepts
 * it wins, so the longest name wins; an unmatched "-word" is an unknown
 * option, an unmatched "/word" or plain word a positional input.
 */
#include "driver_internal.h"
#include "offload/diag.h"

#include <stdlib.h>
#include <string.h>

/* The option an argument carries: aliases resolved, variants folded. */
static enum ol_opt_id canonical_id(const struct ol_opt *rec)
{
	const struct ol_opt *target = rec->alias != OPT_COUNT ? &ol_opts[rec->alias] : rec;

	return target->canon;
}

static void parsed_push(struct ol_parsed *p, enum ol_opt_id id, const char *raw, const char *value,
			const struct ol_opt *rec)
{
	if (p->nr == p->alloc) {
		size_t alloc = p->alloc;

		/* Two arrays of one capacity. */
		OL_GROW(p->args, p->nr + 1, alloc, 64);
		OL_GROW(p->recs, p->nr + 1, p->alloc, 64);
	}
	p->args[p->nr].id = id;
	p->args[p->nr].raw = raw;
	p->args[p->nr].value = value;
	p->recs[p->nr] = rec;
	p->nr++;
}

void ol_parsed_release(struct ol_parsed *p)
{
	free(p->args);
	free(p->recs);
	memset(p, 0, sizeof(*p));
}

/* The length of rec's spelling when the word alone is an argument of rec
 * (a flag with nothing after it, a joined or joined-or-separate value, a
 * separate option's name), else 0. */
static size_t takes_word(const struct ol_opt *rec, const char *word)
{
	size_t n = ol_opt_spelling_length(rec, word);

	if (n && word[n] && (rec->kind == OL_KIND_FLAG || rec->kind == OL_KIND_SEPARATE))
		return 0;
	return n;
}

/* Which records may claim a word: those of the releases in vmask, and with
 * wrapper_only just the wrapper-only ones.  Separate options are left out
 * of those: the only wrapper-only one, -mllvm, is in every release's table,
 * so no other release can claim it. */
static int may_claim(const struct ol_opt *rec, unsigned vmask, int wrapper_only)
{
	if (!(rec->versions & vmask))
		return 0;
	return !wrapper_only ||
	       ((rec->flags & OL_OPTF_WRAPPER_ONLY) && rec->kind != OL_KIND_SEPARATE);
}

/* The record ParseOneArg picks for the word: the first, in TableGen's order,
 * of those that may claim it and take it, *len its spelling's length; NULL
 * when none does.  The candidates come in options.def order, and the few
 * that take the word are compared (a line is matched without sorting the
 * table). */
static const struct ol_opt *first_taking(const char *word, unsigned vmask, int wrapper_only,
					 size_t *len)
{
	struct ol_opt_candidates cand = ol_opts_for_word(word);
	const struct ol_opt *best = NULL;

	for (size_t k = 0; k < cand.n; k++) {
		const struct ol_opt *rec = &ol_opts[cand.v[k]];
		size_t n;

		if (!may_claim(rec, vmask, wrapper_only) || !(n = takes_word(rec, word)))
			continue;
		if (!best || ol_opt_sorts_before(rec, best)) {
			best = rec;
			*len = n;
		}
	}
	return best;
}

/*
 * Matches words[*i] (advancing *i past what it consumed) like ParseOneArg.
 * Returns 0, or -1 when a separate option ends the line; then, with
 * `report`, "<opt>: missing argument" (upstream's text) is reported, and
 * without it the word is kept as an unknown option.
 */
static int match_one(const struct ol_words *w, size_t *i, unsigned vmask, unsigned consume_mask,
		     struct ol_parsed *out, int report)
{
	const char *word = w->v[*i];
	const struct ol_opt *rec;
	size_t len = 0;

	if ((word[0] != '-' && word[0] != '/') || strcmp(word, "-") == 0) {
		parsed_push(out, OPT_INPUT, word, NULL, NULL);
		++*i;
		return 0;
	}
	rec = first_taking(word, vmask, 0, &len);
	if (rec) {
		switch (rec->kind) {
		case OL_KIND_FLAG:
			parsed_push(out, canonical_id(rec), word, NULL, rec);
			++*i;
			return 0;
		case OL_KIND_JOINED:
			parsed_push(out, canonical_id(rec), word, word + len, rec);
			++*i;
			return 0;
		case OL_KIND_SEPARATE:
		case OL_KIND_JOINED_OR_SEPARATE:
			if (word[len]) {   /* joined-or-separate, joined */
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
	/* Unknown to this release, but another release's wrapper takes it for
	 * itself: consumed, never handed to the host linker (cmdline.h). */
	if (consume_mask) {
		rec = first_taking(word, consume_mask, 1, &len);
		if (rec) {
			parsed_push(out, canonical_id(rec), word, rec->kind == OL_KIND_FLAG ? NULL
										 : word + len, rec);
			++*i;
			return 0;
		}
	}
	/* llvm::opt: an unmatched word starting with '/' is a path. */
	parsed_push(out, word[0] == '/' ? OPT_INPUT : OPT_UNKNOWN, word, NULL, NULL);
	++*i;
	return 0;
}

/* The releases whose wrapper keeps `word` for itself: OL_VALL when every
 * release does (or none does), fewer when only some do.  Options forwarded
 * to the host linker say nothing: a record only 16 has (--as-needed) or only
 * 19 and 22 have (-r) is on every release's lines. */
unsigned ol_wrapper_option_releases(const char *word)
{
	struct ol_opt_candidates cand;
	unsigned known = 0;

	if (word[0] != '-' && word[0] != '/')
		return OL_VALL;
	cand = ol_opts_for_word(word);
	for (size_t k = 0; k < cand.n; k++) {
		const struct ol_opt *rec = &ol_opts[cand.v[k]];

		if ((rec->flags & OL_OPTF_WRAPPER_ONLY) && takes_word(rec, word))
			known |= rec->versions;
	}
	return known ? known : OL_VALL;
}

int ol_match_words(const struct ol_words *w, unsigned vmask, unsigned consume_mask,
		   struct ol_parsed *out, int report)
{
	size_t i = 0;

	while (i < w->nr) {
		/* llvm::opt skips empty arguments altogether. */
		if (!w->v[i][0]) {
			i++;
			continue;
		}
		if (match_one(w, &i, vmask, consume_mask, out, report))
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
void ol_words_of_args(const struct ol_cmdline *cl, struct ol_words *out)
{
	for (size_t i = 0; i < cl->nargs; i++) {
		const struct ol_arg *a = &cl->args[i];

		ol_words_push(out, a->raw);
		if (a->value && !value_is_joined(a))
			ol_words_push(out, a->value);
	}
}
