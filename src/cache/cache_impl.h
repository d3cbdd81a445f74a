/*
 * Private to src/cache: the cache's state and the pieces its files share.
 *   store.c     open, get, put, close (the entries, local then remote)
 *   settings.c  where and how large, from the options and the environment
 *   files.c     writing a file whole; what a failed write does
 *   entry.c     an entry's bytes (header, checksum)
 *   identity.c  the identity table (ids/table)
 *   cache_stats.c the counters, trimming to the limit, ol_cache_maintain
 *   remote*.c   the remote tier (remote.c) and its protocols (a plugin)
 */
#ifndef OFFLOAD_CACHE_IMPL_H
#define OFFLOAD_CACHE_IMPL_H

#include <pthread.h>
#include "offload/cache.h"

#define OL_CACHE_DEFAULT_MAX_SIZE (5ull << 30)   /* 5 GiB, ccache's default */

struct ol_cache_settings {
	int enabled;
	char *dir;            /* malloc'd */
	uint64_t max_size;
	char *remote_storage; /* malloc'd, or NULL: none (remote.c) */
};

struct ol_cache {
	char *dir, *tmp;
	uint64_t max_size;
	struct ol_cache_stats stats;   /* this link's */
	uint64_t stored_bytes;         /* written by this link */
	struct ol_remotes *remotes;    /* NULL: none */
	struct ol_id_table *ids;       /* identity.c; NULL until a key needs one */
	int warned_errno;              /* the cause of the last write failure warned about */
	int full;                      /* its device is full: no more writes this link */
	/* Lookups, stores and the identity table from the jobs' threads
	 * (partitioned LTO keys and stores each partition in its job). */
	pthread_mutex_t lock;
};

/* Options over environment over defaults (o may be NULL: no options). */
int ol_cache_settings(const struct ol_cache_options *o, struct ol_cache_settings *s);
void ol_cache_settings_release(struct ol_cache_settings *s);
struct ol_cache *ol_cache_open_dir(const struct ol_cache_settings *s);
/* Returns 0, or the errno of the first call that failed. */
int ol_cache_write_whole(struct ol_cache *c, const char *path, const void *head, size_t head_size,
			 const void *data, size_t size);
/* Writing into the directory failed with `err`: a warning naming the cause,
 * once per cause per link; after a full device (ENOSPC, EDQUOT) the link
 * writes nothing more there (ol_cache_writable). */
void ol_cache_write_failed(struct ol_cache *c, const char *path, int err);
int ol_cache_writable(const struct ol_cache *c);
/* The remembered identities (<dir>/ids/table): written back at the end of a
 * link that found new ones, within ol_cache_identity_budget(max_size) bytes. */
void ol_cache_save_identities(struct ol_cache *c);
void ol_cache_release_identities(struct ol_cache *c);
uint64_t ol_cache_identity_budget(uint64_t max_size);
/* Entries, the same bytes in the local directory and on remotes: a header
 * with the payload's size and SHA-256, then the payload. */
#define OL_CACHE_ENTRY_HEADER 48
void ol_cache_entry_header(uint8_t header[OL_CACHE_ENTRY_HEADER], const uint8_t *payload,
			   size_t size);
/* NULL when the entry is whole and its checksum holds, else what is wrong. */
const char *ol_cache_entry_damage(const uint8_t *entry, size_t size);

/* remote.c: the remote tier.  NULL when the configuration names no usable
 * remote.  Counters go to `stats` (the link's). */
struct ol_remotes *ol_remotes_configure(const char *config, struct ol_cache_stats *stats);
/* 1: a good entry (malloc'd, header included) from the remote *from names;
 * 0: the remotes that answered missed; -1: none answered. */
int ol_remotes_get(struct ol_remotes *rs, const char *key, uint8_t **entry, size_t *size,
		   const char **from);
/* Is there a remote a store would go to? */
int ol_remotes_writable(const struct ol_remotes *rs);
void ol_remotes_put(struct ol_remotes *rs, const char *key, const uint8_t *entry, size_t size);
void ol_remotes_close(struct ol_remotes *rs);

/* cache_stats.c: add this link's counters to <dir>/stats; evict when due. */
void ol_cache_update_stats(struct ol_cache *c);

#endif
