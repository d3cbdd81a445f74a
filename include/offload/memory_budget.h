/*
 * memory_budget: how much memory the device link's concurrent work may
 * hold at once (--device-link-memory=, src/support/memory_budget.c).  A
 * step that takes much memory (an LTO of a group or of a partition, with
 * its assembler) asks for its estimate before it starts and gives it back
 * when it ends; it waits while the steps that run hold too much for it to
 * fit beside them.  One step always runs, however large, so a link never
 * waits on itself: the budget bounds what runs together, not what one step
 * needs.  Only leaf steps take from it (never one that opens a batch of
 * others), so no holder waits on a step that waits on it.
 */
#ifndef OFFLOAD_MEMORY_BUDGET_H
#define OFFLOAD_MEMORY_BUDGET_H

#include <stdint.h>

/* The budget in bytes; 0: none (every step starts at once). */
void ol_memory_budget_set(uint64_t bytes);
/* The budget is ol_memory_budget_default(), read when a step first asks
 * (a link without device work never reads /proc/meminfo). */
void ol_memory_budget_set_default(void);
/* The default: three quarters of the memory available now (MemAvailable
 * of /proc/meminfo), or 0 when that cannot be read. */
uint64_t ol_memory_budget_default(void);
/* Waits until `bytes` fit beside what runs (or nothing runs), takes them
 * and returns what was taken (what ol_memory_budget_give gets back). */
uint64_t ol_memory_budget_take(uint64_t bytes);
void ol_memory_budget_give(uint64_t bytes);
/* How many steps had to wait, and the most held at once, for --stats and -v. */
struct ol_memory_budget_stats {
	uint64_t budget, peak_held;
	unsigned long waits;
};
void ol_memory_budget_stats(struct ol_memory_budget_stats *out);

#endif
