/*
 * stats: the cache directory's counters, its size limit, and the
 * `offload-link cache stats|prune|clear` command.
 *
 * <dir>/stats holds "name value" lines; each link adds its counters under an
 * exclusive flock(2), a few microseconds.  The same lock is held while the
 * directory is trimmed, which happens when the bytes stored since the last
 * trim pass a tenth of the limit: one walk over the entries, oldest-used
 * removed first down to 90% of the limit.  A link never waits for more than
 * that walk, and only the one that crossed the line does it.
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

struct counters {
	uint64_t hits, misses, stores, dropped, evicted, since_trim;
	uint64_t remote_hits, remote_misses, remote_stores, remote_errors;
};

static const char *const counter_names[] = { "hits", "misses", "stores", "dropped", "evicted",
					     "since_trim", "remote_hits", "remote_misses",
					     "remote_stores", "remote_errors" };

static uint64_t *counter(struct counters *k, size_t i)
{
	uint64_t *fields[] = { &k->hits, &k->misses, &k->stores, &k->dropped, &k->evicted,
			       &k->since_trim, &k->remote_hits, &k->remote_misses,
			       &k->remote_stores, &k->remote_errors };
	return fields[i];
}

static void read_counters(FILE *f, struct counters *k)
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

static void write_counters(FILE *f, const struct counters *k)
{
	rewind(f);
	if (ftruncate(fileno(f), 0) < 0)
		return;
	for (size_t i = 0; i < sizeof(counter_names) / sizeof(counter_names[0]); i++)
		fprintf(f, "%s %" PRIu64 "\n", counter_names[i], *counter((struct counters *)k, i));
	fflush(f);
}

/* The stats file, opened and locked; NULL when it cannot be. */
static FILE *lock_stats(const char *dir)
{
	char *path = ol_xasprintf("%s/stats", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	FILE *f;

	free(path);
	if (fd < 0)
		return NULL;
	if (flock(fd, LOCK_EX) < 0 || !(f = fdopen(fd, "r+"))) {
		close(fd);
		return NULL;
	}
	return f;
}

static void unlock_stats(FILE *f)
{
	fclose(f);   /* closing the descriptor releases the lock */
}

/* ---- the entries ------------------------------------------------------------- */

struct entry {
	char *path;
	uint64_t size;
	struct timespec used;
};

struct entries {
	struct entry *v;
	size_t n;
	uint64_t bytes;
};

static int is_hex(const char *s, size_t len)
{
	if (strlen(s) != len)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* Every entry of the directory (the 256 two-hex subdirectories). */
static void list_entries(const char *dir, struct entries *out)
{
	DIR *top = opendir(dir);
	struct dirent *d;

	memset(out, 0, sizeof(*out));
	if (!top)
		return;
	while ((d = readdir(top))) {
		char *sub;
		DIR *inner;
		struct dirent *e;

		if (!is_hex(d->d_name, 2))
			continue;
		sub = ol_xasprintf("%s/%s", dir, d->d_name);
		inner = opendir(sub);
		while (inner && (e = readdir(inner))) {
			struct stat st;
			char *path;

			if (!is_hex(e->d_name, OL_CACHE_KEY_HEX - 1))
				continue;
			path = ol_xasprintf("%s/%s", sub, e->d_name);
			if (stat(path, &st) < 0) {
				free(path);
				continue;
			}
			out->v = ol_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
			out->v[out->n].path = path;
			out->v[out->n].size = (uint64_t)st.st_size;
			out->v[out->n].used = st.st_mtim;
			out->n++;
			out->bytes += (uint64_t)st.st_size;
		}
		if (inner)
			closedir(inner);
		free(sub);
	}
	closedir(top);
}

static void release_entries(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].path);
	free(e->v);
}

static int older_first(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Removes least recently used entries until the directory holds at most
 * `target` bytes; returns how many went. */
static uint64_t trim(const char *dir, uint64_t target)
{
	struct entries e;
	uint64_t removed = 0;

	list_entries(dir, &e);
	qsort(e.v, e.n, sizeof(*e.v), older_first);
	for (size_t i = 0; i < e.n && e.bytes > target; i++) {
		if (unlink(e.v[i].path) == 0) {
			e.bytes -= e.v[i].size;
			removed++;
		}
	}
	release_entries(&e);
	return removed;
}

void ol_cache_update_stats(struct ol_cache *c)
{
	struct counters k;
	FILE *f = lock_stats(c->dir);

	if (!f)
		return;
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
	write_counters(f, &k);
	unlock_stats(f);
}

/* ---- offload-link cache ... ---------------------------------------------------- */

static int usage(void)
{
	fprintf(stderr, "usage: offload-link cache stats [--json] [--cache-dir=DIR]\n"
			"       offload-link cache prune [--cache-max-size=SIZE] [--cache-dir=DIR]\n"
			"       offload-link cache clear [--cache-dir=DIR]\n");
	return 2;
}

static void print_stats(const struct ol_cache_settings *s, const struct counters *k,
			const struct entries *e, int json)
{
	uint64_t lookups = k->hits + k->misses;
	double rate = lookups ? 100.0 * (double)k->hits / (double)lookups : 0.0;

	if (json) {
		printf("{\"directory\": \"%s\", \"hits\": %" PRIu64 ", \"misses\": %" PRIu64
		       ", \"hit_rate\": %.1f, \"stores\": %" PRIu64 ", \"dropped\": %" PRIu64
		       ", \"evicted\": %" PRIu64 ", \"entries\": %zu, \"size\": %" PRIu64
		       ", \"max_size\": %" PRIu64 ", \"remote_hits\": %" PRIu64
		       ", \"remote_misses\": %" PRIu64 ", \"remote_stores\": %" PRIu64
		       ", \"remote_errors\": %" PRIu64 "}\n",
		       s->dir, k->hits, k->misses, rate, k->stores, k->dropped, k->evicted, e->n,
		       e->bytes, s->max_size, k->remote_hits, k->remote_misses, k->remote_stores,
		       k->remote_errors);
		return;
	}
	printf("cache directory   %s\n", s->dir);
	printf("hits              %" PRIu64 "\n", k->hits);
	printf("misses            %" PRIu64 "\n", k->misses);
	printf("hit rate          %.1f %%\n", rate);
	printf("stores            %" PRIu64 "\n", k->stores);
	printf("dropped (corrupt) %" PRIu64 "\n", k->dropped);
	printf("evicted           %" PRIu64 "\n", k->evicted);
	printf("entries           %zu\n", e->n);
	printf("size              %.1f MiB of %.1f MiB\n", (double)e->bytes / 1048576.0,
	       (double)s->max_size / 1048576.0);
	printf("remote hits       %" PRIu64 "\n", k->remote_hits);
	printf("remote misses     %" PRIu64 "\n", k->remote_misses);
	printf("remote stores     %" PRIu64 "\n", k->remote_stores);
	printf("remote errors     %" PRIu64 "\n", k->remote_errors);
}

int ol_cache_command(int argc, char **argv)
{
	struct ol_cache_settings s;
	struct counters k;
	struct entries e;
	const char *verb = argc > 1 ? argv[1] : NULL;
	int json = 0, rc = 0;
	FILE *f;

	if (ol_cache_settings(NULL, &s) < 0)
		return 1;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else if (strncmp(argv[i], "--cache-dir=", 12) == 0) {
			ol_cache_settings_release(&s);
			s.dir = ol_xstrdup(argv[i] + 12);
		} else if (strncmp(argv[i], "--cache-max-size=", 17) == 0) {
			if (ol_cache_parse_size(argv[i] + 17, &s.max_size) < 0) {
				ol_error("%s: expected a size such as 5G or 500M", argv[i]);
				ol_cache_settings_release(&s);
				return 1;
			}
		} else {
			ol_cache_settings_release(&s);
			return usage();
		}
	}
	if (!verb || (strcmp(verb, "stats") && strcmp(verb, "prune") && strcmp(verb, "clear"))) {
		ol_cache_settings_release(&s);
		return usage();
	}
	if (!s.dir) {
		ol_error("no cache directory: set OFFLOAD_LINK_CACHE_DIR, XDG_CACHE_HOME or HOME");
		ol_cache_settings_release(&s);
		return 1;
	}
	f = lock_stats(s.dir);
	if (!f && strcmp(verb, "stats") != 0) {
		ol_error("cannot use the cache directory '%s': %s", s.dir, strerror(errno));
		ol_cache_settings_release(&s);
		return 1;
	}
	memset(&k, 0, sizeof(k));
	if (f)
		read_counters(f, &k);
	if (strcmp(verb, "prune") == 0) {
		k.evicted += trim(s.dir, s.max_size);
		k.since_trim = 0;
	} else if (strcmp(verb, "clear") == 0) {
		k.evicted += trim(s.dir, 0);
		k.since_trim = 0;
	}
	if (f && strcmp(verb, "stats") != 0)
		write_counters(f, &k);
	list_entries(s.dir, &e);
	print_stats(&s, &k, &e, json);
	release_entries(&e);
	if (f)
		unlock_stats(f);
	ol_cache_settings_release(&s);
	return rc;
}
