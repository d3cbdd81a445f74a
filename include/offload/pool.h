/*
 * pool: the one pool of worker threads of a link (src/support/pool.c), for
 * the device links of the groups and the partitions of partitioned LTO
 * alike, and GNU make's jobserver, which it takes a token from for every
 * item a thread runs beyond the one make gave this process.
 *
 * Work comes in batches: ol_pool_run(pool, n, fn, arg) calls fn(arg, i) for
 * each i in [0, n) and returns when all have run.  The calling thread runs
 * the batch's items too, and a batch may be opened from inside an item of
 * another (a group's partitions, from the group's job): idle threads take
 * items of the newest batch first, so that a started group finishes before
 * another starts.  Each batch's caller can run all its items alone, so a
 * nested batch never waits on a thread that waits on it.
 */
#ifndef OFFLOAD_POOL_H
#define OFFLOAD_POOL_H

#include <stddef.h>

/* GNU make's jobserver, from MAKEFLAGS (--jobserver-auth=R,W, fifo:PATH, or
 * the older --jobserver-fds=). */
struct ol_jobserver {
	int rfd, wfd;
	int usable;
	int owns_fd;                 /* a fifo we opened (closed by _close) */
};

/* How make runs this link, when it does (MAKEFLAGS). */
enum ol_make_jobs { OL_NOT_UNDER_MAKE, OL_MAKE_JOBSERVER, OL_MAKE_SERIAL, OL_MAKE_UNLIMITED };
enum ol_make_jobs ol_make_jobs(void);

/* Opens make's jobserver; `asked` (--wrapper-jobs=jobserver) warns when
 * there is none usable. */
void ol_jobserver_open(struct ol_jobserver *js, int asked);
void ol_jobserver_close(struct ol_jobserver *js);

struct ol_pool;

/* A pool of `threads` threads, the caller's included (so threads - 1 are
 * started); js, when usable, is asked for a token before each item a
 * started thread runs.  NULL when threads <= 1: ol_pool_run then runs
 * every item on the calling thread. */
struct ol_pool *ol_pool_start(unsigned threads, struct ol_jobserver *js);
void ol_pool_run(struct ol_pool *pool, size_t n, void (*fn)(void *arg, size_t i), void *arg);
/* Ends the threads (no batch may be open) and frees the pool; NULL is fine. */
void ol_pool_end(struct ol_pool *pool);

#endif
