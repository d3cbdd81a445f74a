/*
 * option_table: the records of include/offload/options.def (upstream's
 * LinkerWrapperOpts.td of 16, 19 and 22) in the order llvm::opt tries them,
 * and the lookups the matcher and the help printer make on them.
 */
#include "driver_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The prefixes a record is spelled with. */
static const char *const ol_pfx_DD[] = { "--", NULL };
static const char *const ol_pfx_D[] = { "-", NULL };
static const char *const ol_pfx_DD_D[] = { "--", "-", NULL };
static const char *const ol_pfx_COFF[] = { "/", "-", "/?", "-?", NULL };

#define NONE 0
#define WRAPPER_ONLY OL_OPTF_WRAPPER_ONLY
#define DEVICE_ONLY OL_OPTF_DEVICE_ONLY
#define HIDDEN OL_OPTF_HIDDEN
#define VARIANT OL_OPTF_VARIANT
#define V16 OL_V16
#define V19 OL_V19
#define V22 OL_V22
#define OPT_none OPT_COUNT
const struct ol_opt ol_opts[] = {
#define OPTION(id_, prefixes_, name_, kind_, flags_, alias_, canon_, metavar_, help_, versions_, \
	       key_)                                                                             \
	{ OPT_##id_, ol_pfx_##prefixes_, name_, OL_KIND_##kind_, (flags_), OPT_##alias_,       \
	  OPT_##canon_, metavar_, help_, (versions_), OL_KEY_##key_ },
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

_Static_assert(sizeof(ol_opts) / sizeof(ol_opts[0]) == OL_NOPTS,
	       "options.def and enum ol_opt_id disagree");

enum ol_key_role ol_option_key_role(enum ol_opt_id id)
{
	return id < OL_NOPTS ? ol_opts[id].key : OL_KEY_UNKEYED;
}

unsigned ol_flavor_mask(enum ol_flavor flavor)
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

/* By name, then by place in options.def (qsort is not stable). */
static int compare_records(const void *a, const void *b)
{
	unsigned short x = *(const unsigned short *)a, y = *(const unsigned short *)b;
	int c = option_name_cmp(ol_opts[x].name, ol_opts[y].name);

	return c ? c : (x > y) - (x < y);
}

/* Upstream's order; records with the same name keep options.def order, so
 * the newest release's record is the one AUTO matches first.  Every link
 * sorts the table once: n log n, not the n^2 of an insertion sort. */
const unsigned short *ol_opts_sorted(void)
{
	static int ready;

	if (ready)
		return sorted_opts;
	for (size_t i = 0; i < OL_NOPTS; i++)
		sorted_opts[i] = (unsigned short)i;
	qsort(sorted_opts, OL_NOPTS, sizeof(sorted_opts[0]), compare_records);
	ready = 1;
	return sorted_opts;
}

/* The distinct first characters of rec's prefixes, in *firsts; how many. */
static size_t first_characters(const struct ol_opt *rec, unsigned char firsts[8])
{
	size_t n = 0;

	for (const char *const *p = rec->prefixes; *p && n < 8; p++) {
		unsigned char c = (unsigned char)(*p)[0];
		size_t k = 0;

		while (k < n && firsts[k] != c)
			k++;
		if (k == n && c)
			firsts[n++] = c;
	}
	return n;
}

/*
 * The records, in ol_opts_sorted() order, that can match a word beginning with
 * a given character (one of their prefixes starts with it).  A link line is
 * mostly absolute paths, and only the few COFF-style options start with '/':
 * without this each path would be tried against the whole table.  Built in
 * two passes over the table (count, then fill), once per process.
 */
struct ol_opt_candidates ol_opts_starting_with(unsigned char first)
{
	static unsigned short lists[8 * OL_NOPTS];
	static struct ol_opt_candidates by_char[256];
	static int ready;

	if (!ready) {
		const unsigned short *order = ol_opts_sorted();
		size_t count[256] = { 0 }, start[256], used = 0;
		unsigned char firsts[8];

		for (size_t k = 0; k < OL_NOPTS; k++)
			for (size_t f = first_characters(&ol_opts[order[k]], firsts); f-- > 0;)
				count[firsts[f]]++;
		for (unsigned c = 0; c < 256; c++) {
			start[c] = used;
			by_char[c].v = lists + used;
			used += count[c];
		}
		for (size_t k = 0; k < OL_NOPTS; k++) {
			size_t nf = first_characters(&ol_opts[order[k]], firsts);

			for (size_t f = 0; f < nf; f++)
				lists[start[firsts[f]] + by_char[firsts[f]].n++] = order[k];
		}
		ready = 1;
	}
	return by_char[first];
}

/* Length of prefix+name when `word` starts with one of rec's spellings.
 * Every word of a line is tried against its candidates, so this compares
 * bytes in place (no strlen, no strncmp per record) and most records fail
 * on the first byte of their name. */
size_t ol_opt_spelling_length(const struct ol_opt *rec, const char *word)
{
	const char *name = rec->name;

	for (const char *const *p = rec->prefixes; *p; p++) {
		const char *prefix = *p;
		size_t plen = 0, nlen = 1;

		while (prefix[plen] && prefix[plen] == word[plen])
			plen++;
		if (prefix[plen] || word[plen] != name[0])
			continue;
		if (!name[0])
			return plen;
		while (name[nlen] && name[nlen] == word[plen + nlen])
			nlen++;
		if (!name[nlen])
			return plen + nlen;
	}
	return 0;
}
