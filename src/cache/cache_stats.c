/*
 * stats: the cache directory's counters and its size limit; what
 * `offload-link cache stats|prune|clear` does (src/commands/cache_command.c
 * prints).
 *
 * <dir>/stats holds "name value" lines; each link adds its counters under an
 * exclusive flock(2), a few microseconds.  The same lock is held while the
 * directory is trimmed, which happens when the bytes stored since the last
 * trim pass a tenth of the limit: one walk over the directory, oldest-used
 * files removed first down to 90% of the limit.  A link never waits for more
 * than that walk, and only the one that crossed the line does it.  The limit
 * covers what the files take on the disk, the cache's own (the identity
 * table, these counters, the directories) included, and the identity table
 * is trimmed like an entry.
 */
#include "cache_impl.h"
#include "offload/diag.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const counter_names[] = { "hits", "misses", "stores", "dropped", "evicted",
					     "since_trim", "remote_hits", "remote_misses",
					     "remote_stores", "remote_errors" };

static uint64_t *counter(struct ol_cache_totals *k, size_t i)
{
	uint64_t *fields[] = { &k->hits, &k->misses, &k->stores, &k->dropped, &k->evicted,
			       &k->since_trim, &k->remote_hits, &k->remote_misses,
			       &k->remote_stores, &k->remote_errors };
	return fields[i];
}

static void read_counters(FILE *f, struct ol_cache_totals *k)
{
	char name[32];
	uint64_t value;

	memset(k, 0, sizeof(*k));
	rewind(f);
	while (fscanf(f, "%31s %" SCNu64, name, &value) == 2)
		for (size_t i = 0; i < sizeof(counter_names) / sizeof(counter_names[0]); i++)
			if (strcmp(name, counter_names[i]) == 0)
				*counter(k, i) = value;
}

/* Rewrites the counters in place (the lock is on this file, so it cannot be
 * replaced by a rename); 0, or the errno of the call that failed. */
static int write_counters(FILE *f, const struct ol_cache_totals *k)
{
	char text[512];
	size_t len = 0, done = 0;

	for (size_t i = 0; i < sizeof(counter_names) / sizeof(counter_names[0]); i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s %" PRIu64 "\n",
					counter_names[i], *counter((struct ol_cache_totals *)k, i));
	/* Written over the old text first, then cut to length: a full device
	 * leaves the old counters rather than none. */
	while (done < len) {
		ssize_t w = pwrite(fileno(f), text + done, len - done, (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		done += (size_t)w;
	}
	return ftruncate(fileno(f), (off_t)len) < 0 ? errno : 0;
}

/* The stats file, opened and locked; NULL and *err when it cannot be. */
static FILE *lock_stats(const char *dir, int *err)
{
	char *path = ol_xasprintf("%s/stats", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	FILE *f = NULL;

	*err = fd < 0 ? errno : 0;
	free(path);
	if (fd < 0)
		return NULL;
	if (flock(fd, LOCK_EX) < 0 || !(f = fdopen(fd, "r+"))) {
		*err = errno;
		close(fd);
		return NULL;
	}
	return f;
}

static void unlock_stats(FILE *f)
{
	fclose(f);   /* closing the descriptor releases the lock */
}

/* ---- what the directory holds ------------------------------------------------- */

/* A file trimming may remove: an entry, or metadata that can be computed
 * again (the identity table, and the one-file-per-identity memos of older
 * versions in ids/). */
struct item {
	char *path;
	uint64_t size;
	struct timespec used;
	int is_entry;
};

struct listing {
	struct item *v;
	size_t n;
	uint64_t bytes;            /* everything below: items, directories, stats */
	size_t entries;            /* how many items are entries */
	uint64_t metadata_bytes;   /* all but the entries */
};

/* What a file or directory takes on its device: a 64-byte file takes a
 * block (4 KiB), and that is what fills a small disk. */
static uint64_t disk_usage(const struct stat *st)
{
	uint64_t allocated = (uint64_t)st->st_blocks * 512;

	/* A file system that reports no blocks for a file with data (some
	 * network and FUSE ones) is taken at its word for directories only. */
	return allocated || S_ISDIR(st->st_mode) ? allocated : (uint64_t)st->st_size;
}

static int is_hex(const char *s, size_t len)
{
	if (strlen(s) != len)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static void add_item(struct listing *out, char *path, const struct stat *st, int is_entry)
{
	uint64_t size = disk_usage(st);

	out->v = ol_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
	out->v[out->n].path = path;
	out->v[out->n].size = size;
	out->v[out->n].used = st->st_mtim;
	out->v[out->n].is_entry = is_entry;
	out->n++;
	out->bytes += size;
	if (is_entry)
		out->entries++;
	else
		out->metadata_bytes += size;
}

/* What a file or directory of the layout takes, when it is there. */
static void add_fixed(struct listing *out, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0) {
		out->bytes += disk_usage(&st);
		out->metadata_bytes += disk_usage(&st);
	}
}

/* The regular files of `sub` as items (for entries, those named by a key). */
static void list_files(struct listing *out, const char *sub, int is_entry)
{
	DIR *dir = opendir(sub);
	struct dirent *e;

	while (dir && (e = readdir(dir))) {
		struct stat st;
		char *path;

		if (e->d_name[0] == '.' || (is_entry && !is_hex(e->d_name, OL_CACHE_KEY_HEX - 1)))
			continue;
		path = ol_xasprintf("%s/%s", sub, e->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		add_item(out, path, &st, is_entry);
	}
	if (dir)
		closedir(dir);
}

/* Every entry (in the 256 two-hex subdirectories) and the metadata: the
 * limit covers the whole directory, so that the cache's own files can never
 * fill it.  Files being written in tmp/ are not counted: they are renamed
 * into place (and counted) or removed. */
static void list_cache(const char *dir, struct listing *out)
{
	DIR *top = opendir(dir);
	struct dirent *d;
	char *path;

	memset(out, 0, sizeof(*out));
	if (!top)
		return;
	while ((d = readdir(top))) {
		if (!is_hex(d->d_name, 2))
			continue;
		path = ol_xasprintf("%s/%s", dir, d->d_name);
		add_fixed(out, path);
		list_files(out, path, 1);
		free(path);
	}
	closedir(top);
	add_fixed(out, dir);
	for (const char *const *name = (const char *const[]){ "stats", "tmp", "ids", NULL }; *name;
	     name++) {
		path = ol_xasprintf("%s/%s", dir, *name);
		add_fixed(out, path);
		free(path);
	}
	path = ol_xasprintf("%s/ids", dir);
	list_files(out, path, 0);
	free(path);
}

static void release_listing(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
}

static int older_first(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The two-hex subdirectories left empty: where a directory takes a block
 * (not on tmpfs), 256 of them would otherwise hold a megabyte forever.  A
 * link storing into one meanwhile finds it gone and makes it again
 * (put_local in cache.c). */
static void remove_empty_subdirs(const char *dir)
{
	DIR *top = opendir(dir);
	struct dirent *d;

	while (top && (d = readdir(top))) {
		if (is_hex(d->d_name, 2)) {
			char *sub = ol_xasprintf("%s/%s", dir, d->d_name);
			rmdir(sub);   /* fails, as it should, when not empty */
			free(sub);
		}
	}
	if (top)
		closedir(top);
}

/* Removes the least recently used files, entries and metadata alike, until
 * the directory takes at most `target` bytes; returns how many entries went. */
static uint64_t trim(const char *dir, uint64_t target)
{
	struct listing l;
	uint64_t removed = 0;

	list_cache(dir, &l);
	qsort(l.v, l.n, sizeof(*l.v), older_first);
	for (size_t i = 0; i < l.n && l.bytes > target; i++) {
		if (unlink(l.v[i].path) == 0) {
			l.bytes -= l.v[i].size;
			removed += l.v[i].is_entry;
		}
	}
	release_listing(&l);
	remove_empty_subdirs(dir);
	return removed;
}

void ol_cache_update_stats(struct ol_cache *c)
{
	struct ol_cache_totals k;
	char *path = ol_xasprintf("%s/stats", c->dir);
	int err;
	FILE *f = lock_stats(c->dir, &err);

	if (!f) {
		ol_cache_write_failed(c, path, err);
		free(path);
		return;
	}
	read_counters(f, &k);
	k.hits += c->stats.hits;
	k.misses += c->stats.misses;
	k.stores += c->stats.stores;
	k.dropped += c->stats.dropped;
	k.remote_hits += c->stats.remote_hits;
	k.remote_misses += c->stats.remote_misses;
	k.remote_stores += c->stats.remote_stores;
	k.remote_errors += c->stats.remote_errors;
	k.since_trim += c->stored_bytes;
	if (k.since_trim > c->max_size / 10) {
		k.evicted += trim(c->dir, c->max_size / 10 * 9);
		k.since_trim = 0;
	}
	err = write_counters(f, &k);
	if (err)
		ol_cache_write_failed(c, path, err);
	unlock_stats(f);
	free(path);
}

/* ---- offload-link cache ... ---------------------------------------------------- */

int ol_cache_maintain(const struct ol_cache_options *o, enum ol_cache_action action,
		      struct ol_cache_summary *out)
{
	struct ol_cache_settings s;
	struct ol_cache_totals k;
	struct listing e;
	char cause[OL_IO_CAUSE_SIZE];
	int err;
	FILE *f;

	memset(out, 0, sizeof(*out));
	if (ol_cache_settings(o, &s) < 0) {
		ol_cache_settings_release(&s);
		return -1;
	}
	if (!s.dir) {
		ol_cache_settings_release(&s);
		return ol_error("no cache directory: set OFFLOAD_LINK_CACHE_DIR, XDG_CACHE_HOME "
				"or HOME");
	}
	f = lock_stats(s.dir, &err);
	if (!f && action != OL_CACHE_STATS) {
		ol_error("cannot use the cache directory '%s': %s", s.dir,
			 ol_io_cause(err, "the cache", cause, sizeof(cause)));
		ol_cache_settings_release(&s);
		return -1;
	}
	memset(&k, 0, sizeof(k));
	if (f)
		read_counters(f, &k);
	if (action != OL_CACHE_STATS) {
		k.evicted += trim(s.dir, action == OL_CACHE_PRUNE ? s.max_size : 0);
		k.since_trim = 0;
		if ((err = write_counters(f, &k)) != 0)
			ol_warn("cannot update '%s/stats': %s", s.dir,
				ol_io_cause(err, "the cache", cause, sizeof(cause)));
	}
	list_cache(s.dir, &e);
	out->dir = s.dir;
	s.dir = NULL;
	out->max_size = s.max_size;
	out->totals = k;
	out->entries = e.entries;
	out->bytes = e.bytes;
	out->metadata_bytes = e.metadata_bytes;
	release_listing(&e);
	if (f)
		unlock_stats(f);
	ol_cache_settings_release(&s);
	return 0;
}

void ol_cache_summary_release(struct ol_cache_summary *s)
{
	free(s->dir);
	s->dir = NULL;
}
