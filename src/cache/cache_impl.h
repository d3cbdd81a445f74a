/* Private to src/cache: the cache's state and the pieces its files share. */
#ifndef OFFLOAD_CACHE_IMPL_H
#define OFFLOAD_CACHE_IMPL_H

#include "offload/cache.h"

#define OL_CACHE_DEFAULT_MAX_SIZE (5ull << 30)   /* 5 GiB, ccache's default */

struct ol_cache_settings {
	int enabled;
	char *dir;            /* malloc'd */
	uint64_t max_size;
};

struct ol_cache {
	char *dir, *tmp;
	uint64_t max_size;
	struct ol_cache_stats stats;   /* this link's */
	uint64_t stored_bytes;         /* written by this link */
};

/* Options and environment (cl may be NULL: environment only). */
int ol_cache_settings(const struct ol_cmdline *cl, struct ol_cache_settings *s);
struct ol_cache *ol_cache_open_dir(const struct ol_cache_settings *s);
int ol_cache_parse_size(const char *text, uint64_t *out);
int ol_cache_write_whole(struct ol_cache *c, const char *path, const void *head, size_t head_size,
			 const void *data, size_t size);
/* identity.c: the digest of an image's bytes, remembered per input object. */
struct ol_device_image;
void ol_key_image_bytes(struct ol_cache *c, struct ol_sha256 *h, const struct ol_device_image *img);
/* stats.c: add this link's counters to <dir>/stats; evict when due. */
void ol_cache_update_stats(struct ol_cache *c);

#endif
