/*
 * Unit tests for the link's worker pool (src/support/pool.c): every item of
 * every batch runs once, batches opened inside items (a group's partitions)
 * finish, a jobserver's tokens bound how many items run at once and all
 * come back, and a pool of one thread runs everything in order on the
 * caller.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "offload/pool.h"

#include "check.h"

#define OUTER 12
#define INNER 25

struct nested {
	struct ol_pool *pool;
	atomic_int ran[OUTER][INNER];
	atomic_int outer_ran[OUTER];
};

struct inner_arg {
	struct nested *n;
	size_t outer;
};

static void inner_item(void *arg, size_t i)
{
	struct inner_arg *a = arg;

	atomic_fetch_add(&a->n->ran[a->outer][i], 1);
}

static void outer_item(void *arg, size_t i)
{
	struct nested *n = arg;
	struct inner_arg a = { n, i };

	atomic_fetch_add(&n->outer_ran[i], 1);
	ol_pool_run(n->pool, INNER, inner_item, &a);
	/* The batch is over when ol_pool_run returns. */
	for (size_t k = 0; k < INNER; k++)
		if (atomic_load(&n->ran[i][k]) != 1) {
			fprintf(stderr, "nested: item %zu.%zu ran %d times when its batch ended\n",
				i, k, atomic_load(&n->ran[i][k]));
			failures++;
		}
}

static void test_nested(unsigned threads)
{
	static struct nested n;

	current_test = "nested";
	memset(&n, 0, sizeof(n));
	n.pool = ol_pool_start(threads, NULL);
	CHECK((threads <= 1) == (n.pool == NULL));
	ol_pool_run(n.pool, OUTER, outer_item, &n);
	ol_pool_end(n.pool);
	for (size_t i = 0; i < OUTER; i++)
		CHECK(atomic_load(&n.outer_ran[i]) == 1);
}

struct bounded {
	atomic_int running, most;
};

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void bounded_item(void *arg, size_t i)
{
	struct bounded *b = arg;
	int now = atomic_fetch_add(&b->running, 1) + 1;
	int most = atomic_load(&b->most);

	(void)i;
	while (now > most && !atomic_compare_exchange_weak(&b->most, &most, now))
		;
	sleep_ms(3);
	atomic_fetch_sub(&b->running, 1);
}

/* Two tokens in the pipe and the caller's own: at most 3 items at once,
 * and both tokens back in the pipe at the end. */
static void test_jobserver(void)
{
	struct ol_jobserver js;
	struct bounded b;
	struct ol_pool *pool;
	int fds[2];
	char tokens[8];

	current_test = "jobserver";
	memset(&b, 0, sizeof(b));
	if (pipe(fds) < 0) {
		perror("pipe");
		failures++;
		return;
	}
	CHECK(write(fds[1], "++", 2) == 2);
	memset(&js, 0, sizeof(js));
	js.rfd = fds[0];
	js.wfd = fds[1];
	js.usable = 1;
	pool = ol_pool_start(6, &js);
	ol_pool_run(pool, 40, bounded_item, &b);
	ol_pool_end(pool);
	CHECK(atomic_load(&b.most) >= 1 && atomic_load(&b.most) <= 3);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	CHECK(read(fds[0], tokens, sizeof(tokens)) == 2);
	close(fds[0]);
	close(fds[1]);
}

struct serial {
	size_t seen[8];
	size_t n;
};

static void serial_item(void *arg, size_t i)
{
	struct serial *s = arg;

	s->seen[s->n++] = i;
}

static void test_one_thread(void)
{
	struct serial s;

	current_test = "one thread";
	memset(&s, 0, sizeof(s));
	CHECK(ol_pool_start(1, NULL) == NULL);
	ol_pool_run(NULL, 5, serial_item, &s);
	CHECK(s.n == 5);
	for (size_t i = 0; i < s.n; i++)
		CHECK(s.seen[i] == i);
	ol_pool_end(NULL);
}

/* MAKEFLAGS decides how make runs the link. */
static void test_make_jobs(void)
{
	current_test = "make jobs";
	unsetenv("MAKEFLAGS");
	CHECK(ol_make_jobs() == OL_NOT_UNDER_MAKE);
	setenv("MAKEFLAGS", "w -- ", 1);
	CHECK(ol_make_jobs() == OL_MAKE_SERIAL);
	setenv("MAKEFLAGS", "w -j -- ", 1);
	CHECK(ol_make_jobs() == OL_MAKE_UNLIMITED);
	setenv("MAKEFLAGS", "w -j4 --jobserver-auth=3,4 -- ", 1);
	CHECK(ol_make_jobs() == OL_MAKE_JOBSERVER);
	unsetenv("MAKEFLAGS");
}

int main(void)
{
	test_nested(1);
	test_nested(2);
	test_nested(8);
	test_jobserver();
	test_one_thread();
	test_make_jobs();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures != 0;
}
