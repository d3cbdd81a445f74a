/*
 * stats: --stats and --stats=json, a summary of the link on stderr when it
 * ends: wall and CPU time per stage (CPU includes the tools the stage ran),
 * files and bytes scanned, device images and groups, the device-link
 * cache's hits and misses (local and remote), each device image's link time and, under
 * partitioned LTO, its partitions (how many, how many from the cache, each one's time, or
 * why there was nothing to partition), and the peak resident memory of the process and of
 * the largest tool it ran.  Costs a getrusage() per stage.
 */
#ifndef OFFLOAD_STATS_H
#define OFFLOAD_STATS_H

#include <stddef.h>
#include <stdint.h>

struct ol_cache_stats;

/* Whether --stats is on, and in which form (the decoded line's stats). */
void ol_stats_configure(int enabled, int json);
int ol_stats_enabled(void);
/* A new stage begins (the previous one ends). */
void ol_stats_stage(const char *name);
/* Facts gathered on the way. */
void ol_stats_images(size_t images, size_t groups);
void ol_stats_cache(const struct ol_cache_stats *local);
/* What partitioned LTO did for one device image. */
struct ol_stats_partitions {
	size_t count, from_cache;
	size_t not_cut;               /* of those from the cache: by their plan keys */
	double split_ms;              /* linking the inputs and splitting them */
	double partitions_ms;         /* from the first partition's start to the last's end */
	const double *ms;             /* count entries: each one's wall time, -1 from the cache */
	const char *why_whole;        /* why it is one partition or none; NULL when split */
};
/* From any thread; the image is "<triple>[ <arch>]" and each call copies. */
void ol_stats_device_image(const char *image, double wall_ms);
void ol_stats_partitioned(const char *image, const struct ol_stats_partitions *parts);
/* Milliseconds on the monotonic clock, for the callers' own spans. */
double ol_stats_now_ms(void);
/* Ends the last stage and prints the summary (when enabled). */
void ol_stats_report(void);

#endif
