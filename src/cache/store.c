/*
 * store: the device-link cache as a content-addressed store
 * (include/offload/cache.h): entries by key in a local directory, then on
 * remote storage.  What a key means is the device link's business
 * (src/device/job_key.c); here a key is 64 hex digits.
 *
 * Layout of a cache directory:
 *   <dir>/<2 hex>/<64 hex>   entries (entry.c; the same bytes on remote storage)
 *   <dir>/ids/table          remembered identities (identity.c)
 *   <dir>/tmp/               files being written; renamed into place whole
 *   <dir>/stats              counters, updated under flock(2) (cache_stats.c)
 * Every file appears by rename(2) only, so concurrent links, on one machine
 * or many sharing the directory over a network file system, never read a
 * half-written file; a bad entry found anyway (a disk error, a truncated
 * copy) fails its checksum and is dropped.
 */
#include "offload/cache.h"
#include "cache_impl.h"
#include "offload/diag.h"
#include "offload/mapped_file.h"
#include "offload/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- opening ------------------------------------------------------------------ */

/* 0, or the errno of the mkdir that failed. */
static int make_dirs(const char *path)
{
	char *copy = ol_xstrdup(path);
	int err = 0;

	for (char *p = copy + 1; *p && !err; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) < 0 && errno != EEXIST)
			err = errno;
		*p = '/';
	}
	if (!err && mkdir(copy, 0777) < 0 && errno != EEXIST)
		err = errno;
	free(copy);
	return err;
}

/* 0, or why the directory cannot hold the cache. */
static int usable_dir(const char *path)
{
	int err = make_dirs(path);

	if (!err && access(path, W_OK) < 0)
		err = errno;
	return err;
}

/* Recursive: a store that fails may warn through code that looks the
 * cache up again. */
static void init_lock(struct ol_cache *c)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&c->lock, &attr);
	pthread_mutexattr_destroy(&attr);
}

struct ol_cache *ol_cache_open_dir(const struct ol_cache_settings *s)
{
	struct ol_cache *c;
	char *tmp, *ids;
	int err;

	if (!s->enabled || !s->dir)
		return NULL;
	tmp = ol_xasprintf("%s/tmp", s->dir);
	ids = ol_xasprintf("%s/ids", s->dir);
	err = usable_dir(s->dir);
	if (!err)
		err = usable_dir(tmp);
	if (!err)
		err = usable_dir(ids);
	if (err) {
		char cause[OL_IO_CAUSE_SIZE];

		ol_warn("device-link cache '%s' is not usable: %s; linking without it", s->dir,
			ol_io_cause(err, "the cache", cause, sizeof(cause)));
		free(tmp);
		free(ids);
		return NULL;
	}
	free(ids);
	c = ol_xcalloc(1, sizeof(*c));
	init_lock(c);
	c->dir = ol_xstrdup(s->dir);
	c->tmp = tmp;
	c->max_size = s->max_size;
	return c;
}

struct ol_cache *ol_cache_open(const struct ol_cache_options *o)
{
	struct ol_cache_settings s;
	struct ol_cache *c;

	if (ol_cache_settings(o, &s) < 0) {
		ol_cache_settings_release(&s);
		return NULL;
	}
	c = ol_cache_open_dir(&s);
	if (c) {
		ol_spawn_note("device-link cache: %s", c->dir);
		c->remotes = ol_remotes_configure(s.remote_storage, &c->stats);
	}
	ol_cache_settings_release(&s);
	return c;
}

/* ---- entries -------------------------------------------------------------------- */

static char *entry_path(const struct ol_cache *c, const char *key)
{
	return ol_xasprintf("%s/%.2s/%s", c->dir, key, key);
}

/* The entry's payload, moved to the front of its buffer. */
static void take_payload(uint8_t *entry, size_t size, struct ol_cache_lookup *out)
{
	out->size = size - OL_CACHE_ENTRY_HEADER;
	memmove(entry, entry + OL_CACHE_ENTRY_HEADER, out->size);
	out->data = entry;
	out->hit = 1;
}

static int get_local(struct ol_cache *c, const char *key, struct ol_cache_lookup *out)
{
	char *path = entry_path(c, key);
	uint8_t *buf = NULL;
	size_t n = 0;
	const char *bad;

	if (ol_read_whole_file(path, &buf, &n) < 0) {
		free(path);
		return 0;
	}
	bad = ol_cache_entry_damage(buf, n);
	if (bad) {
		/* Never use it: drop it, so the link that follows replaces it. */
		ol_spawn_note("device-link cache: dropping entry %s: %s", key, bad);
		unlink(path);
		c->stats.dropped++;
		free(buf);
		free(path);
		return 0;
	}
	take_payload(buf, n, out);
	/* The entry's time says when it was last used: eviction goes by it. */
	utimensat(AT_FDCWD, path, NULL, 0);
	free(path);
	return 1;
}

/* Writes a whole entry (header included) into the local directory. */
static int put_local(struct ol_cache *c, const char *key, const void *head, size_t head_size,
		     const void *data, size_t size)
{
	char *path, *dir;
	int err = 0;

	if (!ol_cache_writable(c))
		return -1;
	path = entry_path(c, key);
	dir = ol_xasprintf("%s/%.2s", c->dir, key);
	/* A second try when a trim removed the subdirectory, empty, between
	 * the mkdir and the rename. */
	for (int tries = 0; tries < 2; tries++) {
		err = mkdir(dir, 0777) < 0 && errno != EEXIST ? errno : 0;
		if (!err)
			err = ol_cache_write_whole(c, path, head, head_size, data, size);
		if (err != ENOENT)
			break;
	}
	if (err) {
		ol_cache_write_failed(c, path, err);
	} else {
		c->stats.stores++;
		c->stored_bytes += head_size + size;
	}
	free(dir);
	free(path);
	return err ? -1 : 0;
}

static int get_unlocked(struct ol_cache *c, const char *key, struct ol_cache_lookup *out)
{
	uint8_t *entry;
	size_t size;
	int remote;

	memset(out, 0, sizeof(*out));
	if (get_local(c, key, out)) {
		c->stats.hits++;
		return 1;
	}
	c->stats.misses++;
	if (!c->remotes)
		return 0;
	remote = ol_remotes_get(c->remotes, key, &entry, &size, &out->remote);
	out->remote_asked = remote >= 0;
	if (remote <= 0)
		return 0;
	/* The same bytes, checked: the next link finds them here. */
	put_local(c, key, entry, size, NULL, 0);
	take_payload(entry, size, out);
	return 1;
}

static void put_unlocked(struct ol_cache *c, const char *key, const uint8_t *data, size_t size)
{
	uint8_t header[OL_CACHE_ENTRY_HEADER];

	ol_cache_entry_header(header, data, size);
	put_local(c, key, header, sizeof(header), data, size);
	if (ol_remotes_writable(c->remotes)) {
		uint8_t *entry = ol_xmalloc(sizeof(header) + size);
		memcpy(entry, header, sizeof(header));
		memcpy(entry + sizeof(header), data, size);
		ol_remotes_put(c->remotes, key, entry, sizeof(header) + size);
		free(entry);
	}
}

const struct ol_cache_stats *ol_cache_counters(const struct ol_cache *c)
{
	return c ? &c->stats : NULL;
}

int ol_cache_get(struct ol_cache *c, const char *key, struct ol_cache_lookup *out)
{
	int hit;

	pthread_mutex_lock(&c->lock);
	hit = get_unlocked(c, key, out);
	pthread_mutex_unlock(&c->lock);
	return hit;
}

void ol_cache_put(struct ol_cache *c, const char *key, const uint8_t *data, size_t size)
{
	pthread_mutex_lock(&c->lock);
	put_unlocked(c, key, data, size);
	pthread_mutex_unlock(&c->lock);
}

void ol_cache_close(struct ol_cache *c)
{
	if (!c)
		return;
	ol_remotes_close(c->remotes);
	ol_cache_save_identities(c);
	ol_cache_release_identities(c);
	ol_cache_update_stats(c);
	free(c->dir);
	free(c->tmp);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
