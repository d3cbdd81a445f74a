/*
 * pool: the link's worker threads and make's jobserver (include/offload/pool.h).
 *
 * Open batches form a list, newest first; a batch lives on the stack of
 * the thread that opened it (ol_pool_run) and leaves the list when its
 * last item has been taken.  Started threads wait for an item, then, under
 * a jobserver, for a token: waiting for a token is in short polls, so that
 * a thread waiting while the others do all the work (a jobserver with none
 * to spare) gives up when no item is left.
 */
#include "offload/pool.h"
#include "offload/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- make's jobserver ------------------------------------------------------------ */

/* The last occurrence counts: make 4.4 appends "--jobserver-auth=-2,-2" to
 * turn the jobserver off for a sub-make. */
static const char *last_occurrence(const char *haystack, const char *needle)
{
	const char *last = NULL;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		last = p;
	return last;
}

void ol_jobserver_open(struct ol_jobserver *js, int asked)
{
	const char *flags = getenv("MAKEFLAGS");
	const char *auth = NULL;

	memset(js, 0, sizeof(*js));
	js->rfd = js->wfd = -1;
	if (flags) {
		auth = last_occurrence(flags, "--jobserver-auth=");
		if (!auth)
			auth = last_occurrence(flags, "--jobserver-fds=");
	}
	if (auth) {
		auth = strchr(auth, '=') + 1;
		if (strncmp(auth, "fifo:", 5) == 0) {
			char *path = ol_xstrndup(auth + 5, strcspn(auth + 5, " "));

			js->rfd = js->wfd = open(path, O_RDWR | O_CLOEXEC);
			js->owns_fd = js->rfd >= 0;
			free(path);
		} else {
			char *end;
			long r = strtol(auth, &end, 10);
			long w = *end == ',' ? strtol(end + 1, NULL, 10) : -1;

			if (r >= 0 && w >= 0 && fcntl((int)r, F_GETFD) >= 0 &&
			    fcntl((int)w, F_GETFD) >= 0) {
				js->rfd = (int)r;
				js->wfd = (int)w;
			}
		}
	}
	js->usable = js->rfd >= 0 && js->wfd >= 0;
	if (!js->usable && asked)
		ol_warn("--wrapper-jobs=jobserver: no usable make jobserver; running one job at a time");
}

void ol_jobserver_close(struct ol_jobserver *js)
{
	/* Inherited pipe fds belong to make. */
	if (js->owns_fd)
		close(js->rfd);
	memset(js, 0, sizeof(*js));
	js->rfd = js->wfd = -1;
}

/*
 * Without --wrapper-jobs, a link that make runs follows make's -j: make's
 * jobserver when it has one (make -j4), one job at a time under make -j1 or
 * plain make (no jobserver then), one per core under -j without a number.
 * A link no make runs (MAKEFLAGS unset) gets one job per core.
 */
enum ol_make_jobs ol_make_jobs(void)
{
	const char *flags = getenv("MAKEFLAGS");

	if (!flags)
		return OL_NOT_UNDER_MAKE;
	if (strstr(flags, "--jobserver-auth=") || strstr(flags, "--jobserver-fds="))
		return OL_MAKE_JOBSERVER;
	for (const char *p = flags; (p = strstr(p, "-j")); p += 2)
		if ((p == flags || p[-1] == ' ') && (p[2] == ' ' || !p[2]))
			return OL_MAKE_UNLIMITED;
	return OL_MAKE_SERIAL;
}

/* ---- the pool --------------------------------------------------------------------- */

struct batch {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t n, next, done;
	struct batch *older;        /* the list of batches with items left */
};

struct ol_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;        /* a batch opened, or the pool ends */
	pthread_cond_t finished;    /* an item of some batch finished */
	struct batch *newest;
	int ending;
	struct ol_jobserver *js;    /* NULL without a usable one */
	pthread_t *threads;
	size_t nthreads;
};

static void unlink_batch(struct ol_pool *pool, struct batch *b)
{
	for (struct batch **p = &pool->newest; *p; p = &(*p)->older)
		if (*p == b) {
			*p = b->older;
			return;
		}
}

/* Takes the next item of the newest batch that has one (lock held). */
static struct batch *take_item(struct ol_pool *pool, size_t *index)
{
	struct batch *b = pool->newest;

	if (!b)
		return NULL;
	*index = b->next++;
	if (b->next == b->n)
		unlink_batch(pool, b);
	return b;
}

static void item_done(struct ol_pool *pool, struct batch *b)
{
	pthread_mutex_lock(&pool->lock);
	b->done++;
	pthread_cond_broadcast(&pool->finished);
	pthread_mutex_unlock(&pool->lock);
}

/* A jobserver token while there is work left: 0 with *token, or -1. */
static int take_token(struct ol_pool *pool, char *token)
{
	struct pollfd pfd = { pool->js->rfd, POLLIN, 0 };

	for (;;) {
		int left, ready;

		pthread_mutex_lock(&pool->lock);
		left = pool->newest != NULL && !pool->ending;
		pthread_mutex_unlock(&pool->lock);
		if (!left)
			return -1;
		ready = poll(&pfd, 1, 50);
		if (ready < 0 && errno != EINTR)
			return -1;
		if (ready <= 0)
			continue;
		ssize_t got = read(pool->js->rfd, token, 1);
		if (got == 1)
			return 0;
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		return -1;
	}
}

static void give_token(struct ol_pool *pool, char token)
{
	while (write(pool->js->wfd, &token, 1) < 0 && errno == EINTR)
		;
}

static void *worker(void *arg)
{
	struct ol_pool *pool = arg;

	for (;;) {
		struct batch *b;
		size_t i;
		char token = '+';
		int have_token = 0;

		pthread_mutex_lock(&pool->lock);
		while (!pool->ending && !pool->newest)
			pthread_cond_wait(&pool->work, &pool->lock);
		if (pool->ending) {
			pthread_mutex_unlock(&pool->lock);
			return NULL;
		}
		pthread_mutex_unlock(&pool->lock);
		if (pool->js) {
			if (take_token(pool, &token) < 0)
				continue;
			have_token = 1;
		}
		pthread_mutex_lock(&pool->lock);
		b = take_item(pool, &i);
		pthread_mutex_unlock(&pool->lock);
		if (b) {
			b->fn(b->arg, i);
			item_done(pool, b);
		}
		if (have_token)
			give_token(pool, token);
	}
}

struct ol_pool *ol_pool_start(unsigned threads, struct ol_jobserver *js)
{
	struct ol_pool *pool;

	if (threads <= 1)
		return NULL;
	pool = ol_xcalloc(1, sizeof(*pool));
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work, NULL);
	pthread_cond_init(&pool->finished, NULL);
	pool->js = js && js->usable ? js : NULL;
	pool->threads = ol_xcalloc(threads - 1, sizeof(*pool->threads));
	for (unsigned t = 0; t + 1 < threads; t++)
		if (pthread_create(&pool->threads[pool->nthreads], NULL, worker, pool) == 0)
			pool->nthreads++;
	return pool;
}

void ol_pool_run(struct ol_pool *pool, size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
	struct batch b = { fn, arg, n, 0, 0, NULL };
	size_t i;

	if (!pool || pool->nthreads == 0 || n <= 1) {
		for (i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	pthread_mutex_lock(&pool->lock);
	b.older = pool->newest;
	pool->newest = &b;
	pthread_cond_broadcast(&pool->work);
	/* The caller runs its batch's items on its own token, and waits only
	 * for the ones other threads took. */
	while (b.next < b.n) {
		i = b.next++;
		if (b.next == b.n)
			unlink_batch(pool, &b);
		pthread_mutex_unlock(&pool->lock);
		fn(arg, i);
		pthread_mutex_lock(&pool->lock);
		b.done++;
	}
	while (b.done < b.n)
		pthread_cond_wait(&pool->finished, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
}

void ol_pool_end(struct ol_pool *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->ending = 1;
	pthread_cond_broadcast(&pool->work);
	pthread_mutex_unlock(&pool->lock);
	for (size_t t = 0; t < pool->nthreads; t++)
		pthread_join(pool->threads[t], NULL);
	pthread_cond_destroy(&pool->finished);
	pthread_cond_destroy(&pool->work);
	pthread_mutex_destroy(&pool->lock);
	free(pool->threads);
	free(pool);
}
