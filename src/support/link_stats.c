/* stats: the --stats summary (include/offload/stats.h). */
#include "offload/stats.h"
#include "offload/memory_budget.h"
#include "offload/cache.h"
#include "offload/mapped_file.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MAX_STAGES 16

struct stage {
	const char *name;
	double wall_ms, cpu_ms;
};

/* One device image: its link, and what partitioned LTO did for it. */
struct image_record {
	char *image;
	double wall_ms;
	int partitioned;
	struct ol_stats_partitions parts;   /* ms and why_whole owned here */
};

static struct {
	int enabled, json;
	pthread_mutex_t lock;               /* images, from the link jobs' threads */
	struct image_record *images_linked;
	size_t nimages_linked;
	struct stage stages[MAX_STAGES];
	size_t nstages;
	double started_wall, started_cpu;
	size_t images, groups;
	struct ol_cache_stats cache;
	int have_cache;
} stats = { .lock = PTHREAD_MUTEX_INITIALIZER };

double ol_stats_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* User and system time of this process and of the tools it waited for. */
static double cpu_ms(void)
{
	struct rusage self, children;
	double ms = 0;

	if (getrusage(RUSAGE_SELF, &self) == 0)
		ms += (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec) * 1e3 +
		      (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e3;
	if (getrusage(RUSAGE_CHILDREN, &children) == 0)
		ms += (double)(children.ru_utime.tv_sec + children.ru_stime.tv_sec) * 1e3 +
		      (double)(children.ru_utime.tv_usec + children.ru_stime.tv_usec) / 1e3;
	return ms;
}

void ol_stats_configure(int enabled, int json)
{
	stats.enabled = enabled;
	stats.json = enabled && json;
}

int ol_stats_enabled(void)
{
	return stats.enabled;
}

static void end_stage(void)
{
	struct stage *s;

	if (!stats.nstages)
		return;
	s = &stats.stages[stats.nstages - 1];
	s->wall_ms = ol_stats_now_ms() - stats.started_wall;
	s->cpu_ms = cpu_ms() - stats.started_cpu;
}

void ol_stats_stage(const char *name)
{
	if (!stats.enabled)
		return;
	end_stage();
	if (stats.nstages == MAX_STAGES)
		return;
	stats.stages[stats.nstages++].name = name;
	stats.started_wall = ol_stats_now_ms();
	stats.started_cpu = cpu_ms();
}

void ol_stats_images(size_t images, size_t groups)
{
	stats.images = images;
	stats.groups = groups;
}

void ol_stats_cache(const struct ol_cache_stats *local)
{
	if (!local)
		return;
	stats.cache = *local;
	stats.have_cache = 1;
}

/* The image's record, made on first use; NULL when out of memory.  Called
 * with the lock held. */
static struct image_record *image_record(const char *image)
{
	struct image_record *grown;

	for (size_t i = 0; i < stats.nimages_linked; i++)
		if (strcmp(stats.images_linked[i].image, image) == 0)
			return &stats.images_linked[i];
	grown = realloc(stats.images_linked, (stats.nimages_linked + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	stats.images_linked = grown;
	memset(&grown[stats.nimages_linked], 0, sizeof(*grown));
	if (!(grown[stats.nimages_linked].image = strdup(image)))
		return NULL;
	return &grown[stats.nimages_linked++];
}

void ol_stats_device_image(const char *image, double wall_ms)
{
	struct image_record *r;

	if (!stats.enabled)
		return;
	pthread_mutex_lock(&stats.lock);
	if ((r = image_record(image)))
		r->wall_ms = wall_ms;
	pthread_mutex_unlock(&stats.lock);
}

void ol_stats_partitioned(const char *image, const struct ol_stats_partitions *parts)
{
	struct image_record *r;
	double *ms = parts->count ? malloc(parts->count * sizeof(*ms)) : NULL;

	if (!stats.enabled || (parts->count && !ms)) {
		free(ms);
		return;
	}
	if (ms)
		memcpy(ms, parts->ms, parts->count * sizeof(*ms));
	pthread_mutex_lock(&stats.lock);
	if ((r = image_record(image))) {
		free((void *)r->parts.ms);
		free((void *)r->parts.why_whole);
		r->partitioned = 1;
		r->parts = *parts;
		r->parts.ms = ms;
		r->parts.why_whole = parts->why_whole ? strdup(parts->why_whole) : NULL;
		ms = NULL;
	}
	pthread_mutex_unlock(&stats.lock);
	free(ms);
}

static int by_image(const void *a, const void *b)
{
	return strcmp(((const struct image_record *)a)->image,
		      ((const struct image_record *)b)->image);
}

/* A string for JSON: the few characters a reason may hold escaped. */
static void json_string(const char *s)
{
	fputc('"', stderr);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', stderr);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, stderr);
	}
	fputc('"', stderr);
}

static void report_images_json(void)
{
	fprintf(stderr, "\"device_images\": [");
	for (size_t i = 0; i < stats.nimages_linked; i++) {
		const struct image_record *r = &stats.images_linked[i];

		fprintf(stderr, "%s{\"image\": ", i ? ", " : "");
		json_string(r->image);
		fprintf(stderr, ", \"wall_ms\": %.3f", r->wall_ms);
		if (r->partitioned) {
			fprintf(stderr, ", \"partitioned\": {\"partitions\": %zu, \"from_cache\": %zu, "
					"\"not_cut\": %zu, \"split_ms\": %.3f, \"partitions_ms\": %.3f, "
					"\"partition_ms\": [",
				r->parts.count, r->parts.from_cache, r->parts.not_cut, r->parts.split_ms,
				r->parts.partitions_ms);
			for (size_t p = 0; p < r->parts.count; p++) {
				if (r->parts.ms[p] < 0)
					fprintf(stderr, "%snull", p ? ", " : "");
				else
					fprintf(stderr, "%s%.3f", p ? ", " : "", r->parts.ms[p]);
			}
			fprintf(stderr, "], \"why_whole\": ");
			if (r->parts.why_whole)
				json_string(r->parts.why_whole);
			else
				fprintf(stderr, "null");
			fprintf(stderr, "}");
		}
		fprintf(stderr, "}");
	}
	fprintf(stderr, "], ");
}

static void report_images_text(void)
{
	for (size_t i = 0; i < stats.nimages_linked; i++) {
		const struct image_record *r = &stats.images_linked[i];

		fprintf(stderr, "  device image %s: %.1f ms\n", r->image, r->wall_ms);
		if (!r->partitioned)
			continue;
		if (r->parts.why_whole && r->parts.count <= 1) {
			fprintf(stderr, "    partitioned LTO: %zu partition%s: %s\n", r->parts.count,
				r->parts.count == 1 ? "" : "s", r->parts.why_whole);
			if (!r->parts.count)
				continue;
		}
		fprintf(stderr, "    partitioned LTO: %zu partition%s, %zu from the cache",
			r->parts.count, r->parts.count == 1 ? "" : "s", r->parts.from_cache);
		if (r->parts.not_cut)
			fprintf(stderr, " (%zu not cut)", r->parts.not_cut);
		fprintf(stderr, "; split %.1f ms, partitions %.1f ms\n    partition ms:",
			r->parts.split_ms, r->parts.partitions_ms);
		for (size_t p = 0; p < r->parts.count; p++) {
			if (r->parts.ms[p] < 0)
				fprintf(stderr, " cached");
			else
				fprintf(stderr, " %.1f", r->parts.ms[p]);
		}
		fputc('\n', stderr);
	}
}

void ol_stats_report(void)
{
	struct rusage self, children;
	struct ol_memory_budget_stats budget;
	size_t files;
	uint64_t bytes;
	double wall = 0, cpu = 0;

	if (!stats.enabled)
		return;
	end_stage();
	stats.enabled = 0;
	ol_mapped_totals(&files, &bytes);
	ol_memory_budget_stats(&budget);
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &children);
	for (size_t i = 0; i < stats.nstages; i++) {
		wall += stats.stages[i].wall_ms;
		cpu += stats.stages[i].cpu_ms;
	}
	if (stats.nimages_linked)
		qsort(stats.images_linked, stats.nimages_linked, sizeof(*stats.images_linked), by_image);
	if (stats.json) {
		fprintf(stderr, "{\"stages\": [");
		for (size_t i = 0; i < stats.nstages; i++)
			fprintf(stderr, "%s{\"name\": \"%s\", \"wall_ms\": %.3f, \"cpu_ms\": %.3f}",
				i ? ", " : "", stats.stages[i].name, stats.stages[i].wall_ms,
				stats.stages[i].cpu_ms);
		fprintf(stderr, "], ");
		report_images_json();
		fprintf(stderr, "\"wall_ms\": %.3f, \"cpu_ms\": %.3f, \"files\": %zu, "
				"\"bytes_scanned\": %" PRIu64 ", \"images\": %zu, \"groups\": %zu, "
				"\"cache\": {\"enabled\": %s, \"hits\": %" PRIu64 ", \"misses\": %" PRIu64
				", \"stores\": %" PRIu64 ", \"dropped\": %" PRIu64
				", \"remote_hits\": %" PRIu64 ", \"remote_misses\": %" PRIu64
				", \"remote_stores\": %" PRIu64 ", \"remote_errors\": %" PRIu64
				", \"remote_bytes_fetched\": %" PRIu64 "}, "
				"\"peak_rss_kib\": %ld, \"peak_rss_tools_kib\": %ld, "
				"\"memory_budget\": {\"bytes\": %" PRIu64 ", \"peak_estimate\": %" PRIu64
				", \"waits\": %lu}}\n",
			wall, cpu, files, bytes, stats.images, stats.groups,
			stats.have_cache ? "true" : "false", stats.cache.hits, stats.cache.misses,
			stats.cache.stores, stats.cache.dropped, stats.cache.remote_hits,
			stats.cache.remote_misses, stats.cache.remote_stores, stats.cache.remote_errors,
			stats.cache.remote_fetched, self.ru_maxrss, children.ru_maxrss, budget.budget,
			budget.peak_held, budget.waits);
		return;
	}
	fprintf(stderr, "offload-link: stats\n  %-28s %10s %10s\n", "stage", "wall ms", "cpu ms");
	for (size_t i = 0; i < stats.nstages; i++)
		fprintf(stderr, "  %-28s %10.1f %10.1f\n", stats.stages[i].name,
			stats.stages[i].wall_ms, stats.stages[i].cpu_ms);
	fprintf(stderr, "  %-28s %10.1f %10.1f\n", "total", wall, cpu);
	fprintf(stderr, "  scanned: %zu files, %.1f MiB; device images: %zu in %zu groups\n", files,
		(double)bytes / 1048576.0, stats.images, stats.groups);
	report_images_text();
	if (stats.have_cache)
		fprintf(stderr, "  device-link cache: %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64
				" stored, %" PRIu64 " dropped\n",
			stats.cache.hits, stats.cache.misses, stats.cache.stores, stats.cache.dropped);
	else
		fprintf(stderr, "  device-link cache: off\n");
	if (stats.cache.remote_hits || stats.cache.remote_misses || stats.cache.remote_stores ||
	    stats.cache.remote_errors)
		fprintf(stderr, "  remote storage: %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64
				" stored, %" PRIu64 " given up, %.1f MiB fetched\n",
			stats.cache.remote_hits, stats.cache.remote_misses, stats.cache.remote_stores,
			stats.cache.remote_errors, (double)stats.cache.remote_fetched / 1048576.0);
	fprintf(stderr, "  peak RSS: %.1f MiB (largest tool: %.1f MiB)\n", (double)self.ru_maxrss / 1024.0,
		(double)children.ru_maxrss / 1024.0);
	if (budget.budget)
		fprintf(stderr, "  memory budget: %.0f MiB; at most %.0f MiB estimated at once, %lu "
				"step%s waited\n", (double)budget.budget / 1048576.0,
			(double)budget.peak_held / 1048576.0, budget.waits, budget.waits == 1 ? "" : "s");
	else
		fprintf(stderr, "  memory budget: none; at most %.0f MiB estimated at once\n",
			(double)budget.peak_held / 1048576.0);
}
