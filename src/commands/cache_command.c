/*
 * cache_command: `offload-link cache stats|prune|clear`, the device-link
 * cache seen from the shell.  The store does the work (ol_cache_maintain);
 * this prints.
 */
#include "commands_internal.h"
#include "offload/cache.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { OPT_JSON = 1, OPT_CACHE_DIR, OPT_CACHE_MAX_SIZE };

static const struct ol_command_option cache_options[] = {
	{ OPT_JSON, "json", NULL, "stats as one line of JSON", 0 },
	{ OPT_CACHE_DIR, "cache-dir", "<dir>",
	  "The cache in <dir> (default: as a link finds it: OFFLOAD_LINK_CACHE_DIR, "
	  "$XDG_CACHE_HOME/offload-link, ~/.cache/offload-link)", 0 },
	{ OPT_CACHE_MAX_SIZE, "cache-max-size", "<size>",
	  "prune: the limit to bring it below (default OFFLOAD_LINK_CACHE_MAX_SIZE, else 5G)", 0 },
	{ 0, NULL, NULL, NULL, 0 },
};

static const char *const cache_synopsis[] = {
	"stats [--json] [--cache-dir=<dir>]",
	"prune [--cache-max-size=<size>] [--cache-dir=<dir>]",
	"clear [--cache-dir=<dir>]",
	NULL,
};

static const struct ol_command_line cache_command_line = {
	"cache", cache_synopsis,
	"stats shows the cache's counters (hits, misses, stores, entries dropped as\n"
	"damaged or evicted, the remote tier's) and what it holds; prune removes the\n"
	"least recently used entries until the cache is below its limit; clear\n"
	"removes every entry.  Exit status: 0, 1 on failure, 2 on a usage error.",
	"the device-link cache", cache_options, 0,
};

struct cache_request {
	const char *verb;
	int json;
	struct ol_cache_options options;
};

static int take_cache_option(void *ctx, int id, const char *value)
{
	struct cache_request *r = ctx;

	switch (id) {
	case OL_COMMAND_INPUT:
		if (r->verb)
			return ol_command_usage("cache", "one of stats, prune or clear, not '%s' too",
						value);
		r->verb = value;
		break;
	case OPT_JSON:
		r->json = 1;
		break;
	case OPT_CACHE_DIR:
		r->options.dir = value;
		break;
	case OPT_CACHE_MAX_SIZE:
		r->options.max_size = value;
		break;
	}
	return 0;
}

/* "12.0 KiB", "3.4 MiB": a small cache's size should not read 0.0. */
static const char *human_size(uint64_t bytes, char *buf, size_t size)
{
	if (bytes < (1u << 20))
		snprintf(buf, size, "%.1f KiB", (double)bytes / 1024.0);
	else
		snprintf(buf, size, "%.1f MiB", (double)bytes / 1048576.0);
	return buf;
}

static void print_summary(const struct ol_cache_summary *s, int json)
{
	const struct ol_cache_totals *t = &s->totals;
	uint64_t lookups = t->hits + t->misses;
	char size[32], limit[32];
	double rate = lookups ? 100.0 * (double)t->hits / (double)lookups : 0.0;

	if (json) {
		printf("{\"directory\": \"%s\", \"hits\": %" PRIu64 ", \"misses\": %" PRIu64
		       ", \"hit_rate\": %.1f, \"stores\": %" PRIu64 ", \"dropped\": %" PRIu64
		       ", \"evicted\": %" PRIu64 ", \"entries\": %" PRIu64 ", \"size\": %" PRIu64
		       ", \"metadata_size\": %" PRIu64 ", \"max_size\": %" PRIu64
		       ", \"remote_hits\": %" PRIu64 ", \"remote_misses\": %" PRIu64
		       ", \"remote_stores\": %" PRIu64 ", \"remote_errors\": %" PRIu64 "}\n",
		       s->dir, t->hits, t->misses, rate, t->stores, t->dropped, t->evicted,
		       s->entries, s->bytes, s->metadata_bytes, s->max_size, t->remote_hits,
		       t->remote_misses, t->remote_stores, t->remote_errors);
		return;
	}
	printf("cache directory   %s\n", s->dir);
	printf("hits              %" PRIu64 "\n", t->hits);
	printf("misses            %" PRIu64 "\n", t->misses);
	printf("hit rate          %.1f %%\n", rate);
	printf("stores            %" PRIu64 "\n", t->stores);
	printf("dropped (corrupt) %" PRIu64 "\n", t->dropped);
	printf("evicted           %" PRIu64 "\n", t->evicted);
	printf("entries           %" PRIu64 "\n", s->entries);
	printf("size              %s of %s\n", human_size(s->bytes, size, sizeof(size)),
	       human_size(s->max_size, limit, sizeof(limit)));
	printf("of which metadata %s (identities, counters, directories)\n",
	       human_size(s->metadata_bytes, size, sizeof(size)));
	printf("remote hits       %" PRIu64 "\n", t->remote_hits);
	printf("remote misses     %" PRIu64 "\n", t->remote_misses);
	printf("remote stores     %" PRIu64 "\n", t->remote_stores);
	printf("remote errors     %" PRIu64 "\n", t->remote_errors);
}

int ol_cache_command(int argc, char **argv)
{
	static const struct { const char *verb; enum ol_cache_action action; } verbs[] = {
		{ "stats", OL_CACHE_STATS }, { "prune", OL_CACHE_PRUNE }, { "clear", OL_CACHE_CLEAR },
	};
	struct cache_request r;
	struct ol_cache_summary summary;
	size_t v;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = ol_command_line_read(&cache_command_line, argc, argv, take_cache_option, &r);
	if (rc)
		return rc == 1 ? 0 : rc;
	for (v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++)
		if (r.verb && strcmp(r.verb, verbs[v].verb) == 0)
			break;
	if (v == sizeof(verbs) / sizeof(verbs[0]))
		return r.verb ? ol_command_usage("cache", "unknown action '%s' (stats, prune or clear)",
						 r.verb)
			      : ol_command_usage("cache", "stats, prune or clear?");
	if (ol_cache_maintain(&r.options, verbs[v].action, &summary) < 0)
		return 1;
	print_summary(&summary, r.json);
	ol_cache_summary_release(&summary);
	return 0;
}
