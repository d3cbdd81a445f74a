/*
 * identity: the table of remembered identities, 32-byte values by 32-byte
 * ids (ol_cache_recall, ol_cache_remember), so that what a key is made of
 * costs a stat(2) in the common case.  What an id and its value stand for
 * is its user's business (src/device/job_key.c: tools by their --version,
 * files and images by their bytes, each id the SHA-256 of the thing's stat
 * identity); here they are bytes.
 *
 * All of them live in one table, <dir>/ids/table.  (They were a file each:
 * one small link remembers about 15 (the tool, the crt files, the host
 * line's libraries, this executable, the LLVM part, the objects), and each
 * 64-byte file took a 4 KiB block, so on a small disk they filled the cache
 * before any image was stored.)
 *
 * The table: a header (magic, u32 version, u64 count, u32 CRC-32 of the
 * records, u32 0), then `count` records sorted by id: id (32 bytes), value
 * (32 bytes, a SHA-256), last used (u64, seconds since the epoch); integers
 * little-endian.  A link reads it once, when it first needs an identity, and
 * when it ends rewrites it whole (temp file, rename, so readers see one table
 * or the other) if it computed identities or used records last marked used
 * more than a day ago.  The rewrite merges what is on disk then (another
 * link's additions) and keeps the most recently used records that fit in the
 * table's share of --cache-max-size.  A table that fails its CRC is ignored:
 * its identities are computed again, never trusted.
 */
#include "cache_impl.h"
#include "offload/diag.h"
#include "offload/mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#define TABLE_MAGIC "OLID"
#define TABLE_VERSION 1
#define TABLE_HEADER 24
#define RECORD_SIZE (2 * OL_SHA256_SIZE + 8)
/* How stale a record's "last used" may get before a link that uses it
 * rewrites the table: often enough to order records for pruning, rarely
 * enough that links that compute nothing new write nothing. */
#define USED_REFRESH_SECONDS (24 * 60 * 60)
/* The table's share of the cache: small next to the images, and a bound on
 * what every link reads. */
#define TABLE_SHARE 32
#define TABLE_MAX_BYTES (4u << 20)

struct id_record {
	uint8_t id[OL_SHA256_SIZE];
	uint8_t value[OL_SHA256_SIZE];
	uint64_t used;
};

struct ol_id_table {
	int loaded;
	struct id_record *v;      /* as read, sorted by id */
	size_t n;
	struct id_record *fresh;  /* computed, or used and due a new time, by this link */
	size_t nfresh, cap;
	uint64_t now;
};

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static char *table_path(const struct ol_cache *c)
{
	return ol_xasprintf("%s/ids/table", c->dir);
}

static int by_id(const void *a, const void *b)
{
	return memcmp(((const struct id_record *)a)->id, ((const struct id_record *)b)->id,
		      OL_SHA256_SIZE);
}

static int most_recent_first(const void *a, const void *b)
{
	const struct id_record *x = a, *y = b;

	if (x->used != y->used)
		return x->used > y->used ? -1 : 1;
	return by_id(a, b);
}

/* The records of the table file, sorted by id; none when it is missing or
 * damaged. */
static void read_table(const struct ol_cache *c, struct id_record **out, size_t *nout)
{
	char *path = table_path(c);
	uint8_t *buf = NULL;
	size_t size = 0, n;
	struct id_record *v;

	*out = NULL;
	*nout = 0;
	if (ol_read_whole_file(path, &buf, &size) < 0) {
		free(path);
		return;
	}
	free(path);
	n = size >= TABLE_HEADER ? (size - TABLE_HEADER) / RECORD_SIZE : 0;
	if (size < TABLE_HEADER || memcmp(buf, TABLE_MAGIC, 4) != 0 || buf[4] != TABLE_VERSION ||
	    get_u64(buf + 8) != n || TABLE_HEADER + n * RECORD_SIZE != size ||
	    get_u64(buf + 16) != crc32_z(0, buf + TABLE_HEADER, size - TABLE_HEADER)) {
		free(buf);
		return;
	}
	v = ol_xmalloc((n ? n : 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = buf + TABLE_HEADER + i * RECORD_SIZE;

		memcpy(v[i].id, r, OL_SHA256_SIZE);
		memcpy(v[i].value, r + OL_SHA256_SIZE, OL_SHA256_SIZE);
		v[i].used = get_u64(r + 2 * OL_SHA256_SIZE);
		/* Lookups search it: a table out of order is a damaged one. */
		if (i > 0 && by_id(&v[i - 1], &v[i]) >= 0) {
			free(v);
			free(buf);
			return;
		}
	}
	free(buf);
	*out = v;
	*nout = n;
}

static struct ol_id_table *table(struct ol_cache *c)
{
	if (!c->ids)
		c->ids = ol_xcalloc(1, sizeof(*c->ids));
	if (!c->ids->loaded) {
		c->ids->loaded = 1;
		c->ids->now = (uint64_t)time(NULL);
		read_table(c, &c->ids->v, &c->ids->n);
		/* Its time says when it was last used, as an entry's: trimming
		 * goes by it. */
		if (c->ids->n) {
			char *path = table_path(c);
			utimensat(AT_FDCWD, path, NULL, 0);
			free(path);
		}
	}
	return c->ids;
}

static void add_fresh(struct ol_id_table *t, const uint8_t id[OL_SHA256_SIZE],
		      const uint8_t value[OL_SHA256_SIZE])
{
	struct id_record *r;

	OL_GROW(t->fresh, t->nfresh + 1, t->cap, 16);
	r = &t->fresh[t->nfresh++];
	memcpy(r->id, id, OL_SHA256_SIZE);
	memcpy(r->value, value, OL_SHA256_SIZE);
	r->used = t->now;
}

static int recall_unlocked(struct ol_cache *c, const uint8_t id[OL_SHA256_SIZE],
			   uint8_t value[OL_SHA256_SIZE])
{
	struct id_record probe, *found;
	struct ol_id_table *t = table(c);

	memcpy(probe.id, id, OL_SHA256_SIZE);
	found = t->n ? bsearch(&probe, t->v, t->n, sizeof(*t->v), by_id) : NULL;
	if (found) {
		memcpy(value, found->value, OL_SHA256_SIZE);
		if (found->used + USED_REFRESH_SECONDS < t->now) {
			found->used = t->now;   /* not due again in this link */
			add_fresh(t, id, value);
		}
		return 1;
	}
	for (size_t i = 0; i < t->nfresh; i++) {
		if (memcmp(t->fresh[i].id, id, OL_SHA256_SIZE) == 0) {
			memcpy(value, t->fresh[i].value, OL_SHA256_SIZE);
			return 1;
		}
	}
	return 0;
}

int ol_cache_recall(struct ol_cache *c, const uint8_t id[OL_SHA256_SIZE],
		    uint8_t value[OL_SHA256_SIZE])
{
	int found;

	if (!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	found = recall_unlocked(c, id, value);
	pthread_mutex_unlock(&c->lock);
	return found;
}

void ol_cache_remember(struct ol_cache *c, const uint8_t id[OL_SHA256_SIZE],
		       const uint8_t value[OL_SHA256_SIZE])
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	add_fresh(table(c), id, value);
	pthread_mutex_unlock(&c->lock);
}

uint64_t ol_cache_identity_budget(uint64_t max_size)
{
	uint64_t share = max_size / TABLE_SHARE;

	return share < TABLE_MAX_BYTES ? share : TABLE_MAX_BYTES;
}

void ol_cache_save_identities(struct ol_cache *c)
{
	struct ol_id_table *t = c->ids;
	struct id_record *disk, *all;
	size_t ndisk, n = 0, keep;
	uint64_t budget = ol_cache_identity_budget(c->max_size);
	uint8_t header[TABLE_HEADER] = { 0 }, *records;
	char *path;
	int err;

	if (!t || !t->nfresh || !ol_cache_writable(c) || budget < TABLE_HEADER + RECORD_SIZE)
		return;
	/* What is there now: another link may have added records since. */
	read_table(c, &disk, &ndisk);
	all = ol_xmalloc((ndisk + t->nfresh) * sizeof(*all));
	qsort(t->fresh, t->nfresh, sizeof(*t->fresh), by_id);
	for (size_t i = 0, j = 0; i < ndisk || j < t->nfresh;) {
		int cmp = i == ndisk ? 1 : j == t->nfresh ? -1 : by_id(&disk[i], &t->fresh[j]);

		if (cmp < 0) {
			all[n++] = disk[i++];
		} else {
			/* This link's record of an id wins over the older one. */
			if (cmp == 0)
				i++;
			if (n == 0 || by_id(&all[n - 1], &t->fresh[j]) != 0)
				all[n++] = t->fresh[j];
			j++;
		}
	}
	free(disk);
	keep = (size_t)((budget - TABLE_HEADER) / RECORD_SIZE);
	if (n > keep) {
		qsort(all, n, sizeof(*all), most_recent_first);
		n = keep;
		qsort(all, n, sizeof(*all), by_id);
	}
	records = ol_xmalloc(n * RECORD_SIZE + 1);
	for (size_t i = 0; i < n; i++) {
		uint8_t *r = records + i * RECORD_SIZE;

		memcpy(r, all[i].id, OL_SHA256_SIZE);
		memcpy(r + OL_SHA256_SIZE, all[i].value, OL_SHA256_SIZE);
		put_u64(r + 2 * OL_SHA256_SIZE, all[i].used);
	}
	free(all);
	memcpy(header, TABLE_MAGIC, 4);
	header[4] = TABLE_VERSION;
	put_u64(header + 8, n);
	put_u64(header + 16, crc32_z(0, records, n * RECORD_SIZE));
	path = table_path(c);
	err = ol_cache_write_whole(c, path, header, sizeof(header), records, n * RECORD_SIZE);
	if (err)
		ol_cache_write_failed(c, path, err);
	else
		c->stored_bytes += TABLE_HEADER + n * RECORD_SIZE;
	free(path);
	free(records);
}

void ol_cache_release_identities(struct ol_cache *c)
{
	if (!c->ids)
		return;
	free(c->ids->v);
	free(c->ids->fresh);
	free(c->ids);
	c->ids = NULL;
}
