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

/*
 * The records that can match a word, found by the word's first three bytes.
 * A link line is mostly paths, which no record's spelling (prefix + name)
 * starts like, and the options among them would otherwise each be tried
 * against most of the table (nearly every record is spelled with "-" or
 * "--").  A spelling of at least SPELLING_HEAD bytes goes into the bucket of
 * its first ones; a shorter one ("-o", "-L", "--") could start any word and
 * goes into every bucket and the list of short words.  Built once per
 * process, in options.def order; unsorted, because a word is matched by
 * comparing the few records that take it (ol_opt_sorts_before), so a plain
 * link sorts nothing.
 */
#define SPELLING_HEAD 3
#define HEAD_BUCKETS 128

static unsigned head_bucket(const char *spelling_or_word)
{
	const unsigned char *s = (const unsigned char *)spelling_or_word;

	return ((s[0] * 31u + s[1]) * 31u + s[2]) % HEAD_BUCKETS;
}

/* Calls add(k, bucket) for each of record k's spellings: bucket is
 * HEAD_BUCKETS for a short one. */
static void each_spelling(void (*add)(unsigned short k, unsigned bucket))
{
	for (size_t k = 0; k < OL_NOPTS; k++) {
		const struct ol_opt *rec = &ol_opts[k];

		for (const char *const *p = rec->prefixes; *p; p++) {
			char head[SPELLING_HEAD + 1];
			size_t n = 0;

			for (const char *c = *p; *c && n < SPELLING_HEAD; c++)
				head[n++] = *c;
			for (const char *c = rec->name; *c && n < SPELLING_HEAD; c++)
				head[n++] = *c;
			head[n] = 0;
			add((unsigned short)k, n < SPELLING_HEAD ? HEAD_BUCKETS : head_bucket(head));
		}
	}
}

static size_t bucket_count[HEAD_BUCKETS + 1], bucket_start[HEAD_BUCKETS + 1];
static struct ol_opt_candidates buckets[HEAD_BUCKETS + 1];
static unsigned short bucket_records[(HEAD_BUCKETS + 1) * 4 * OL_NOPTS];

static void count_spelling(unsigned short k, unsigned bucket)
{
	(void)k;
	if (bucket < HEAD_BUCKETS) {
		bucket_count[bucket]++;
		return;
	}
	for (unsigned b = 0; b <= HEAD_BUCKETS; b++)
		bucket_count[b]++;
}

/* A record spelled two ways in one bucket is listed once. */
static void list_record(unsigned bucket, unsigned short k)
{
	unsigned short *list = bucket_records + bucket_start[bucket];

	if (buckets[bucket].n && list[buckets[bucket].n - 1] == k)
		return;
	list[buckets[bucket].n++] = k;
}

static void fill_spelling(unsigned short k, unsigned bucket)
{
	if (bucket < HEAD_BUCKETS) {
		list_record(bucket, k);
		return;
	}
	for (unsigned b = 0; b <= HEAD_BUCKETS; b++)
		list_record(b, k);
}

struct ol_opt_candidates ol_opts_for_word(const char *word)
{
	static int ready;

	if (!ready) {
		size_t used = 0;

		each_spelling(count_spelling);
		for (unsigned b = 0; b <= HEAD_BUCKETS; b++) {
			bucket_start[b] = used;
			buckets[b].v = bucket_records + used;
			used += bucket_count[b];
		}
		each_spelling(fill_spelling);
		ready = 1;
	}
	if (!word[0] || !word[1] || !word[2])
		return buckets[HEAD_BUCKETS];
	return buckets[head_bucket(word)];
}

int ol_opt_sorts_before(const struct ol_opt *a, const struct ol_opt *b)
{
	unsigned short x = (unsigned short)(a - ol_opts), y = (unsigned short)(b - ol_opts);

	return compare_records(&x, &y) < 0;
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
