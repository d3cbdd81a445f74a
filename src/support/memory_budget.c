/* memory_budget: see include/offload/memory_budget.h. */
#include "offload/memory_budget.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static uint64_t budget, held, peak_held;
static int budget_from_machine;   /* the default, read at the first step */
static unsigned running;
static unsigned long waits;

void ol_memory_budget_set(uint64_t bytes)
{
	pthread_mutex_lock(&lock);
	budget = bytes;
	budget_from_machine = 0;
	pthread_cond_broadcast(&freed);
	pthread_mutex_unlock(&lock);
}

void ol_memory_budget_set_default(void)
{
	pthread_mutex_lock(&lock);
	budget_from_machine = 1;
	pthread_mutex_unlock(&lock);
}

/* Under the lock: the machine's default, once, when a step first asks. */
static void settle(void)
{
	if (budget_from_machine) {
		budget = ol_memory_budget_default();
		budget_from_machine = 0;
	}
}

uint64_t ol_memory_budget_default(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return (uint64_t)kib * 1024 / 4 * 3;
}

uint64_t ol_memory_budget_take(uint64_t bytes)
{
	int waited = 0;

	pthread_mutex_lock(&lock);
	settle();
	/* Something runs and this does not fit beside it: wait for a step to end. */
	while (budget && running && held + bytes > budget) {
		waited = 1;
		pthread_cond_wait(&freed, &lock);
	}
	waits += (unsigned long)waited;
	running++;
	held += bytes;
	if (held > peak_held)
		peak_held = held;
	pthread_mutex_unlock(&lock);
	return bytes;
}

void ol_memory_budget_give(uint64_t bytes)
{
	pthread_mutex_lock(&lock);
	held -= bytes <= held ? bytes : held;
	if (running)
		running--;
	pthread_cond_broadcast(&freed);
	pthread_mutex_unlock(&lock);
}

void ol_memory_budget_stats(struct ol_memory_budget_stats *out)
{
	pthread_mutex_lock(&lock);
	settle();
	out->budget = budget;
	out->peak_held = peak_held;
	out->waits = waits;
	pthread_mutex_unlock(&lock);
}
