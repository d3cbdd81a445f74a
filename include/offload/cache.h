/*
 * cache: the device-link cache, a content-addressed store
 * (docs/design/cache-and-remote-stores.md).  A key is 64 hex digits; what
 * it is made of is the device link's business (offload/job_key.h).  A hit
 * is the linked image, read back instead of linking.
 *
 * Entries live in <dir>/<2 hex>/<64 hex>: a header with a checksum of the
 * payload, then the image.  They are written to <dir>/tmp and renamed into
 * place, so readers on any machine sharing the directory see whole entries or
 * none; a corrupt or truncated entry is dropped and relinked.  Hits refresh
 * the entry's time; the oldest entries go when the directory outgrows its
 * limit, which counts everything the cache keeps on the disk.
 *
 * Beside the entries, a table of identities: 32-byte values remembered by
 * 32-byte ids (ol_cache_recall), what a key is made of in the common case.
 *
 * Configuration: --cache-dir=DIR / OFFLOAD_LINK_CACHE_DIR, else
 * $XDG_CACHE_HOME/offload-link, else ~/.cache/offload-link; --no-cache /
 * OFFLOAD_LINK_NO_CACHE=1 turn it off; --cache-max-size=SIZE /
 * OFFLOAD_LINK_CACHE_MAX_SIZE (default 5G, suffixes k M G T, 1024-based).
 * --remote-storage=URLS / OFFLOAD_LINK_REMOTE_STORAGE: Redis and HTTP stores
 * asked after the local directory and given every new entry (src/cache/
 * remote.c); only with a usable local directory.
 *
 * Threads: lookups, stores and the identity table may be used from any
 * thread (one lock); a group's lookup happens on the main thread before the
 * jobs start, a partition's inside its job (device/partition_products.c).
 */
#ifndef OFFLOAD_CACHE_H
#define OFFLOAD_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "offload/sha256.h"

/* What the link's command line says about the cache; NULL or 0: not given
 * (the environment and the defaults decide). */
struct ol_cache_options {
	int off;                     /* --no-cache */
	const char *dir;             /* --cache-dir= */
	const char *max_size;        /* --cache-max-size= */
	const char *remote_storage;  /* --remote-storage= (the last; "" turns the remotes off) */
};

#define OL_CACHE_KEY_HEX (2 * OL_SHA256_SIZE + 1)

struct ol_cache_stats {
	uint64_t hits, misses, stores, dropped;  /* dropped: corrupt entries removed */
	/* The remote tier: lookups after a local miss, stores after a link,
	 * remotes given up on after a failure, bytes of the entries fetched. */
	uint64_t remote_hits, remote_misses, remote_stores, remote_errors, remote_fetched;
};

/* What a lookup found. */
struct ol_cache_lookup {
	uint8_t *data;              /* the linked image (malloc'd), on a hit */
	size_t size;
	int hit;                    /* 1 on a hit */
	const char *remote;         /* a remote's hit: its URL, for messages */
	int remote_asked;           /* after a local miss, a remote answered */
};

/* The cache this link uses, or NULL when it is off or its directory cannot
 * be used (a warning says why; the link goes on without it). */
struct ol_cache *ol_cache_open(const struct ol_cache_options *o);
/* This link's counters so far (NULL for no cache). */
const struct ol_cache_stats *ol_cache_counters(const struct ol_cache *c);
/* Adds this link's counters to the directory's, and evicts the oldest
 * entries when the directory has grown past its limit.  NULL is fine. */
void ol_cache_close(struct ol_cache *c);

/* Looks in the local directory, then in the remotes; a remote's hit is
 * copied into the local directory.  Returns out->hit. */
int ol_cache_get(struct ol_cache *c, const char *key, struct ol_cache_lookup *out);
/* Stores an entry locally and in every writable remote; failures only warn. */
void ol_cache_put(struct ol_cache *c, const char *key, const uint8_t *data, size_t size);

/* The identity table: 1 and the value remembered for `id`, else 0 (also
 * for no cache). */
int ol_cache_recall(struct ol_cache *c, const uint8_t id[OL_SHA256_SIZE],
		    uint8_t value[OL_SHA256_SIZE]);
/* Remembers `value` for `id`; the table is written when the cache closes. */
void ol_cache_remember(struct ol_cache *c, const uint8_t id[OL_SHA256_SIZE],
		       const uint8_t value[OL_SHA256_SIZE]);

/* What `offload-link cache` does: report, bring the directory below its
 * limit, or empty it. */
enum ol_cache_action { OL_CACHE_STATS, OL_CACHE_PRUNE, OL_CACHE_CLEAR };

/* The directory's counters (<dir>/stats), every link's added up. */
struct ol_cache_totals {
	uint64_t hits, misses, stores, dropped, evicted;
	uint64_t since_trim;         /* bytes stored since the last trim */
	uint64_t remote_hits, remote_misses, remote_stores, remote_errors;
};

struct ol_cache_summary {
	char *dir;                   /* malloc'd (ol_cache_summary_release) */
	uint64_t max_size;
	struct ol_cache_totals totals;
	uint64_t entries, bytes;     /* bytes: on the disk, metadata included */
	uint64_t metadata_bytes;     /* the identity table, the counters, the directories */
};

/* Does `action` to the cache the options and the environment name, then
 * fills *out with what is there.  Returns 0, or -1 after an error. */
int ol_cache_maintain(const struct ol_cache_options *o, enum ol_cache_action action,
		      struct ol_cache_summary *out);
void ol_cache_summary_release(struct ol_cache_summary *s);

#endif
