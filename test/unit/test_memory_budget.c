/*
 * Unit tests for the memory budget (src/support/memory_budget.c): steps
 * whose estimates fit run together, one that does not fit waits until
 * enough is given back, a step larger than the whole budget runs alone
 * rather than never, no budget lets everything run, and the statistics
 * count the waits and the most held at once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "offload/memory_budget.h"
#include "offload/size_text.h"

#include "check.h"

#define THREADS 8

static atomic_ulong now_held, most_held;
static atomic_int running, most_running;

struct step {
	uint64_t bytes;
};

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void *run_step(void *arg)
{
	const struct step *s = arg;
	uint64_t held = ol_memory_budget_take(s->bytes);
	unsigned long h = atomic_fetch_add(&now_held, held) + held;
	int r = atomic_fetch_add(&running, 1) + 1;

	for (unsigned long m = atomic_load(&most_held); h > m;)
		if (atomic_compare_exchange_weak(&most_held, &m, h))
			break;
	for (int m = atomic_load(&most_running); r > m;)
		if (atomic_compare_exchange_weak(&most_running, &m, r))
			break;
	sleep_ms(20);
	atomic_fetch_sub(&running, 1);
	atomic_fetch_sub(&now_held, held);
	ol_memory_budget_give(held);
	return NULL;
}

/* THREADS steps of `bytes` each under `budget`: the most held and running at once. */
static void run_steps(uint64_t budget, uint64_t bytes, unsigned long *held, int *together)
{
	pthread_t t[THREADS];
	struct step s = { bytes };

	ol_memory_budget_set(budget);
	atomic_store(&most_held, 0);
	atomic_store(&most_running, 0);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, run_step, &s);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	*held = atomic_load(&most_held);
	*together = atomic_load(&most_running);
}

static atomic_int second_started;

static void *second_step(void *arg)
{
	uint64_t held = ol_memory_budget_take(*(const uint64_t *)arg);

	atomic_store(&second_started, 1);
	ol_memory_budget_give(held);
	return NULL;
}

/* Deterministic: a step that does not fit beside a running one starts only
 * when that one gives its memory back, and counts as a wait. */
static void test_waits_for_room(void)
{
	struct ol_memory_budget_stats before, after;
	uint64_t sixty = 60, held;
	pthread_t t;

	current_test = "waits for room";
	ol_memory_budget_set(100);
	ol_memory_budget_stats(&before);
	held = ol_memory_budget_take(60);
	atomic_store(&second_started, 0);
	pthread_create(&t, NULL, second_step, &sixty);
	sleep_ms(100);
	CHECK(atomic_load(&second_started) == 0);
	ol_memory_budget_give(held);
	pthread_join(t, NULL);
	CHECK(atomic_load(&second_started) == 1);
	ol_memory_budget_stats(&after);
	CHECK(after.waits == before.waits + 1);
	CHECK(after.budget == 100);
}

int main(void)
{
	struct ol_memory_budget_stats stats;
	unsigned long held;
	int together;
	uint64_t size;

	current_test = "three fit";
	run_steps(300, 100, &held, &together);
	CHECK(held <= 300);
	CHECK(together >= 1 && together <= 3);
	ol_memory_budget_stats(&stats);
	CHECK(stats.budget == 300);
	CHECK(stats.peak_held <= 300);

	test_waits_for_room();

	current_test = "larger than the budget: one at a time, never stuck";
	run_steps(50, 100, &held, &together);
	CHECK(together == 1);
	CHECK(held == 100);

	current_test = "no budget";
	run_steps(0, 1000, &held, &together);
	CHECK(together >= 2);

	current_test = "default";
	CHECK(ol_memory_budget_default() > 0);

	current_test = "sizes";
	CHECK(ol_parse_size("16G", &size) == 0 && size == 16ull << 30);
	CHECK(ol_parse_size("500MiB", &size) == 0 && size == 500ull << 20);
	CHECK(ol_parse_size("0", &size) == 0 && size == 0);
	CHECK(ol_parse_size("lots", &size) == -1);
	CHECK(ol_parse_size("5X", &size) == -1);
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures != 0;
}
