/*
 * cache: the device-link cache (docs/design.md, "The device-link cache").
 *
 * Each device-link job is keyed by a SHA-256 over everything that decides its
 * output: the bytes and strings of every image of the group in link order,
 * the triple, arch and offload kinds, the release being emulated, every
 * option that reaches the device link or LTO, the LLVM version of the backend
 * when there is bitcode, and the identity of each external tool the job runs
 * and of each other file it reads (the target family says which: struct
 * ol_target's identify).  A hit is the linked image, read back instead of
 * linking.
 *
 * Entries live in <dir>/<2 hex>/<64 hex>: a header with a checksum of the
 * payload, then the image.  They are written to <dir>/tmp and renamed into
 * place, so readers on any machine sharing the directory see whole entries or
 * none; a corrupt or truncated entry is dropped and relinked.  Hits refresh
 * the entry's time; the least recently used files go when the directory
 * outgrows its limit, which counts the cache's own files (the identity
 * table, the counters) and what each takes on the disk.  Failed writes only
 * warn, naming the cause (a full disk as such), once per cause and link.
 *
 * Configuration: --cache-dir=DIR / OFFLOAD_LINK_CACHE_DIR, else
 * $XDG_CACHE_HOME/offload-link, else ~/.cache/offload-link; --no-cache /
 * OFFLOAD_LINK_NO_CACHE=1 turn it off; --cache-max-size=SIZE /
 * OFFLOAD_LINK_CACHE_MAX_SIZE (default 5G, suffixes k M G T, 1024-based).
 * --remote-storage=URLS / OFFLOAD_LINK_REMOTE_STORAGE: Redis and HTTP stores
 * asked after the local directory and given every new entry (src/cache/
 * remote.c); only with a usable local directory.
 *
 * Threads: keys are computed and lookups done on the main thread before the
 * jobs start; stores happen on the main thread after them.
 */
#ifndef OFFLOAD_CACHE_H
#define OFFLOAD_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "offload/sha256.h"

struct ol_cmdline;
struct ol_group;
struct ol_link_context;

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
struct ol_cache *ol_cache_open(const struct ol_cmdline *cl);
/* This link's counters so far (NULL for no cache). */
const struct ol_cache_stats *ol_cache_counters(const struct ol_cache *c);
/* Adds this link's counters to the directory's, and evicts the oldest
 * entries when the directory has grown past its limit.  NULL is fine. */
void ol_cache_close(struct ol_cache *c);

/* The key of one group's device link. */
void ol_cache_group_key(struct ol_cache *c, const struct ol_group *g,
			const struct ol_link_context *ctx, char key[OL_CACHE_KEY_HEX]);
/* Looks in the local directory, then in the remotes; a remote's hit is
 * copied into the local directory.  Returns out->hit. */
int ol_cache_get(struct ol_cache *c, const char *key, struct ol_cache_lookup *out);
/* Stores an entry locally and in every writable remote; failures only warn. */
void ol_cache_put(struct ol_cache *c, const char *key, const uint8_t *data, size_t size);

/* Key material, for the target families' identify functions: each value is
 * length-prefixed so that no two sequences of values hash alike. */
void ol_key_str(struct ol_sha256 *h, const char *s);       /* NULL hashes apart from "" */
void ol_key_u64(struct ol_sha256 *h, uint64_t v);
void ol_key_bytes(struct ol_sha256 *h, const void *data, size_t size);
/* The identity of a program the job runs: what `<path> --version` prints,
 * remembered per (path, device, inode, size, mtime) in the cache's identity
 * table (<dir>/ids/table),
 * so that a changed tool is run again.  A missing program hashes as such. */
void ol_key_tool(struct ol_cache *c, struct ol_sha256 *h, const char *path);
/* A file the job reads besides the images (a library, a crt object): the
 * SHA-256 of its bytes, remembered per (path, device, inode, size, mtime). */
void ol_key_file(struct ol_cache *c, struct ol_sha256 *h, const char *path);

/* `offload-link cache stats|prune|clear [--json] [--cache-dir=DIR]`:
 * argv[0] is "cache".  Returns the exit status. */
int ol_cache_command(int argc, char **argv);

#endif
