/*
 * stats: --stats and --stats=json, a summary of the link on stderr when it
 * ends: wall and CPU time per stage (CPU includes the tools the stage ran),
 * files and bytes scanned, device images and groups, the device-link
 * cache's hits and misses (local and remote), and the peak resident memory of the process and
 * of the largest tool it ran.  Costs a getrusage() per stage.
 */
#ifndef OFFLOAD_STATS_H
#define OFFLOAD_STATS_H

#include <stddef.h>
#include <stdint.h>

struct ol_cmdline;
struct ol_cache_stats;

/* From the parsed line: is --stats on, and in which form. */
void ol_stats_configure(const struct ol_cmdline *cl);
int ol_stats_enabled(void);
/* A new stage begins (the previous one ends). */
void ol_stats_stage(const char *name);
/* Facts gathered on the way. */
void ol_stats_images(size_t images, size_t groups);
void ol_stats_cache(const struct ol_cache_stats *local);
/* Ends the last stage and prints the summary (when enabled). */
void ol_stats_report(void);

#endif
