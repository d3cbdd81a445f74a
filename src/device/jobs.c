/*
 * jobs: run every group's device link on a pool of threads.
 *
 * Each job captures its diagnostics (and command echoes) in its group's
 * buffer; buffers are flushed in group order after all jobs end, so the
 * output is the same whatever the number of jobs.  The default is one job
 * per core (under make, make's -j: make_jobs()); --wrapper-jobs=N caps it;
 * --wrapper-jobs=jobserver takes a token from GNU make's jobserver for every
 * job beyond the first (the one make gave this process).
 */
#include "offload/device_link.h"
#include "target_impl.h"
#include "offload/cache.h"
#include "offload/job_key.h"
#include "offload/tempfile.h"
#include "offload/diag.h"
#include "offload/stats.h"
#include "offload/inputs.h"
#include "offload/progress.h"
#include "offload/spawn.h"
#include "offload/timer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct jobserver {
	int rfd, wfd;
	int usable;
};

/* MAKEFLAGS carries --jobserver-auth=R,W (pipe) or --jobserver-auth=fifo:PATH. */
static const char *last_occurrence(const char *haystack, const char *needle)
{
	const char *last = NULL;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		last = p;
	return last;
}

static void jobserver_open(struct jobserver *js, int asked)
{
	const char *flags = getenv("MAKEFLAGS");
	const char *auth;

	memset(js, 0, sizeof(*js));
	js->rfd = js->wfd = -1;
	if (!flags)
		return;
	/* The last occurrence counts: make 4.4 appends "--jobserver-auth=-2,-2"
	 * to turn the jobserver off for a sub-make. */
	auth = last_occurrence(flags, "--jobserver-auth=");
	if (!auth)
		auth = last_occurrence(flags, "--jobserver-fds=");
	if (!auth)
		return;
	auth = strchr(auth, '=') + 1;
	if (strncmp(auth, "fifo:", 5) == 0) {
		size_t len = strcspn(auth + 5, " ");
		char *path = ol_xstrndup(auth + 5, len);
		js->rfd = js->wfd = open(path, O_RDWR | O_CLOEXEC);
		free(path);
	} else {
		char *end;
		long r = strtol(auth, &end, 10);
		long w = *end == ',' ? strtol(end + 1, NULL, 10) : -1;
		if (r >= 0 && w >= 0 && fcntl((int)r, F_GETFD) >= 0 && fcntl((int)w, F_GETFD) >= 0) {
			js->rfd = (int)r;
			js->wfd = (int)w;
		}
	}
	js->usable = js->rfd >= 0 && js->wfd >= 0;
	if (!js->usable && asked)
		ol_warn("--wrapper-jobs=jobserver: no usable make jobserver; running one job at a time");
}

static int jobserver_acquire(struct jobserver *js, char *token)
{
	for (;;) {
		ssize_t n = read(js->rfd, token, 1);
		if (n == 1)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		return -1;
	}
}

static void jobserver_release(struct jobserver *js, char token)
{
	while (write(js->wfd, &token, 1) < 0 && errno == EINTR)
		;
}

/*
 * Without --wrapper-jobs, a link that make runs follows make's -j: make's
 * jobserver when it has one (make -j4), one job at a time under make -j1 or
 * plain make (no jobserver then), one per core under -j without a number.
 * A link no make runs (MAKEFLAGS unset) gets one job per core.
 */
enum make_jobs { NOT_UNDER_MAKE, MAKE_JOBSERVER, MAKE_SERIAL, MAKE_UNLIMITED };

static enum make_jobs make_jobs(void)
{
	const char *flags = getenv("MAKEFLAGS");

	if (!flags)
		return NOT_UNDER_MAKE;
	if (strstr(flags, "--jobserver-auth=") || strstr(flags, "--jobserver-fds="))
		return MAKE_JOBSERVER;
	for (const char *p = flags; (p = strstr(p, "-j")); p += 2)
		if ((p == flags || p[-1] == ' ') && (p[2] == ' ' || !p[2]))
			return MAKE_UNLIMITED;
	return MAKE_SERIAL;
}

struct pool {
	struct ol_groups *groups;
	const struct ol_link_context *ctx;
	size_t *order;          /* indexes of the groups to link, costliest first */
	size_t count;           /* how many */
	atomic_size_t next;
	struct jobserver js;
	int use_jobserver;
};

static void run_one(struct ol_group *g, const struct ol_link_context *ctx)
{
	char what[160];

	double started = ol_stats_now_ms();

	snprintf(what, sizeof(what), "%s%s%s", g->triple, *g->arch ? " " : "", g->arch);
	ol_timer_begin_detail("Link device image", what);
	ol_diag_capture_begin(&g->diag);
	int rc = g->route == OL_ROUTE_JIT     ? ol_group_link_for_jit(g, ctx)
		 : g->route == OL_ROUTE_CLANG ? ol_group_link_through_clang(g, ctx, g->route_reason)
					      : g->target->link(g, ctx);
	if (rc < 0 || g->diag.errors)
		g->failed = 1;
	ol_diag_capture_end();
	ol_timer_end();
	ol_stats_device_image(what, ol_stats_now_ms() - started);
}

/*
 * A token for one more job, or -1 when no job is left to take.  Waiting is
 * in short polls, so that a thread waiting for a token while the other
 * threads do all the work (a jobserver with none to spare) ends with them.
 */
static int take_token(struct pool *pool, char *token)
{
	struct pollfd pfd = { pool->js.rfd, POLLIN, 0 };

	while (atomic_load(&pool->next) < pool->count) {
		int ready = poll(&pfd, 1, 50);

		if (ready < 0 && errno != EINTR)
			return -1;
		if (ready > 0)
			return jobserver_acquire(&pool->js, token);
	}
	return -1;
}

/* The main thread runs on the token make gave this process; every other
 * thread takes one from the jobserver for each job (when there is one). */
static void run_jobs(struct pool *pool, int implicit_token)
{
	for (;;) {
		char token = '+';
		int have_token = 0;
		size_t i;

		if (pool->use_jobserver && !implicit_token) {
			if (take_token(pool, &token) < 0)
				return;
			have_token = 1;
		}
		i = atomic_fetch_add(&pool->next, 1);
		if (i < pool->count) {
			ol_progress_job_started(i);
			run_one(&pool->groups->v[pool->order[i]], pool->ctx);
			ol_progress_job_finished(i);
		}
		if (have_token)
			jobserver_release(&pool->js, token);
		if (i >= pool->count)
			return;
	}
}

static void *worker(void *arg)
{
	run_jobs(arg, 0);
	return NULL;
}

/*
 * Jobs start costliest first, so that a long link does not start last and
 * leave the other threads idle at the end (longest-processing-time order).
 * The cost is a guess from the inputs: bitcode goes through LTO, the
 * heaviest step, and weighs ten times as much as a native image's bytes.
 * Results are kept in group order whatever the order of the runs.
 */
static uint64_t job_cost(const struct ol_group *g)
{
	uint64_t cost = 0;

	for (size_t k = 0; k < g->nimages; k++) {
		const struct ol_device_image *img = g->images[k];
		cost += (uint64_t)img->bin.image_size * (img->bin.image_kind == OL_IMG_BITCODE ? 10 : 1);
	}
	return cost;
}

/* The groups still to link (not from the cache), costliest first. */
static size_t *costliest_first(const struct ol_groups *groups, size_t *count)
{
	size_t *order = ol_xcalloc(groups->n ? groups->n : 1, sizeof(*order));
	uint64_t *cost = ol_xcalloc(groups->n ? groups->n : 1, sizeof(*cost));
	size_t n = 0;

	for (size_t i = 0; i < groups->n; i++) {
		size_t j = n++;

		if (groups->v[i].cached) {
			n--;
			continue;
		}
		cost[i] = job_cost(&groups->v[i]);
		/* Insertion sort, stable: equal costs keep group order. */
		while (j > 0 && cost[order[j - 1]] < cost[i]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	free(cost);
	*count = n;
	return order;
}

/*
 * The device-link cache: every group's key is computed and looked up here,
 * on the main thread, before any job starts or any jobserver token is taken;
 * a hit is written where the group's linked image would be, for the steps
 * that read it as a file (fatbinary).  Not under --dry-run (nothing is
 * linked) or --save-temps (whoever asks for the intermediate files wants
 * them made).
 */
static int cache_usable(const struct ol_link_context *ctx)
{
	return ctx->cache && !ctx->cl->dry_run && !ctx->cl->save_temps;
}

/* -v: one line per job, "hit", "remote hit" (from which remote), "miss"
 * (no remote asked) or "remote miss" (the remotes asked missed too). */
static void note_lookup(const struct ol_group *g, const char *key, const struct ol_cache_lookup *l)
{
	const char *outcome = l->hit ? (l->remote ? "remote hit" : "hit")
				     : (l->remote_asked ? "remote miss" : "miss");

	ol_spawn_note("device-link cache: %s for %s%s%s (%.16s)%s%s", outcome, g->triple,
		      *g->arch ? " " : "", g->arch, key, l->remote ? " from " : "",
		      l->remote ? l->remote : "");
}

static void look_up_cache(struct ol_groups *groups, const struct ol_link_context *ctx,
			  char (*keys)[OL_CACHE_KEY_HEX])
{
	for (size_t i = 0; i < groups->n; i++) {
		struct ol_group *g = &groups->v[i];
		struct ol_cache_lookup found;

		ol_group_job_key(ctx->cache, g, ctx, keys[i]);
		ol_cache_get(ctx->cache, keys[i], &found);
		note_lookup(g, keys[i], &found);
		if (!found.hit)
			continue;
		char *prefix = ol_group_output_prefix(g, ctx);
		const char *path = ol_temp_write(prefix, "img", found.data, found.size);
		free(prefix);
		if (!path) {
			free(found.data);
			continue;
		}
		g->linked.data = found.data;
		g->linked.size = found.size;
		g->linked_path = path;
		g->cached = 1;
	}
}

static void store_in_cache(const struct ol_groups *groups, const struct ol_link_context *ctx,
			   char (*keys)[OL_CACHE_KEY_HEX])
{
	for (size_t i = 0; i < groups->n; i++) {
		const struct ol_group *g = &groups->v[i];
		if (!g->cached && !g->failed && g->linked.data)
			ol_cache_put(ctx->cache, keys[i], g->linked.data, g->linked.size);
	}
}

/* The progress line's name of a job: its arch ("sm_80", "gfx90a"), or for
 * a target without one the triple's first part and the offload kinds
 * ("x86_64 (openmp)"). */
static char *job_name(const struct ol_group *g)
{
	static const enum ol_offload_kind kinds[] = { OL_OFK_OPENMP, OL_OFK_CUDA, OL_OFK_HIP,
						      OL_OFK_SYCL };
	struct strbuf name = STRBUF_INIT;
	const char *sep = " (";

	if (*g->arch && strcmp(g->arch, "generic") != 0)
		return ol_xstrdup(g->arch);
	strbuf_addf(&name, "%.*s", (int)strcspn(g->triple, "-"), g->triple);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (g->kinds & kinds[k]) {
			strbuf_addf(&name, "%s%s", sep, ol_offload_kind_name(kinds[k]));
			sep = "+";
		}
	}
	if (*sep == '+')
		strbuf_addch(&name, ')');
	return strbuf_detach(&name);
}

/* The progress line (progress.h) names the jobs in the order they start. */
static void begin_progress(const struct pool *pool)
{
	char **names = ol_xcalloc(pool->count, sizeof(*names));

	for (size_t i = 0; i < pool->count; i++)
		names[i] = job_name(&pool->groups->v[pool->order[i]]);
	ol_progress_begin((const char *const *)names, pool->count);
	for (size_t i = 0; i < pool->count; i++)
		free(names[i]);
	free(names);
}

static void *preload_backend(void *unused)
{
	(void)unused;
	ol_backend_get();
	return NULL;
}

static size_t job_count(const struct ol_cmdline *cl, size_t ngroups, int jobserver)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cl->wrapper_jobs > 0 ? (size_t)cl->wrapper_jobs : (cores > 0 ? (size_t)cores : 1);

	if (jobserver)
		n = cores > 0 ? (size_t)cores : 1;
	return n < ngroups ? n : ngroups;
}

int ol_device_link_all(struct ol_groups *groups, const struct ol_link_context *ctx)
{
	struct pool pool;
	pthread_t *threads;
	size_t njobs, started = 0;
	char (*keys)[OL_CACHE_KEY_HEX] = NULL;
	int failed = 0;

	if (groups->n == 0)
		return 0;
	/* The groups come prepared (ol_group_prepare): their images' symbol
	 * tables, which live in the link arena that only the main thread may
	 * touch, were read then. */
	/* Loading the backend is cheap to do once here and keeps jobs simple. */
	for (size_t i = 0; i < groups->n; i++)
		for (size_t k = 0; k < groups->v[i].nimages; k++)
			if (groups->v[i].images[k]->bin.image_kind == OL_IMG_BITCODE && !ol_backend_get())
				return -1;

	if (cache_usable(ctx)) {
		keys = ol_xcalloc(groups->n, sizeof(*keys));
		look_up_cache(groups, ctx, keys);
	}

	/* The wrap stage needs the backend; loading libLLVM takes ~10 ms, so do it
	 * on another thread while the device linker processes run. */
	pthread_t preload;
	int preloading = !ol_backend_loaded() &&
			 pthread_create(&preload, NULL, preload_backend, NULL) == 0;

	memset(&pool, 0, sizeof(pool));
	pool.groups = groups;
	pool.ctx = ctx;
	pool.order = costliest_first(groups, &pool.count);
	atomic_init(&pool.next, 0);
	enum make_jobs under_make = ctx->cl->wrapper_jobs > 0 ? NOT_UNDER_MAKE : make_jobs();
	int jobserver = ctx->cl->wrapper_jobserver || under_make == MAKE_JOBSERVER;
	if (jobserver) {
		jobserver_open(&pool.js, ctx->cl->wrapper_jobserver);
		pool.use_jobserver = pool.js.usable;
	}
	njobs = job_count(ctx->cl, pool.count, jobserver);
	if ((jobserver && !pool.use_jobserver) || under_make == MAKE_SERIAL)
		njobs = 1;
	/* Threads the groups leave over go to their partitions (partitioned
	 * LTO): one group on four cores runs four partitions at a time.  Not
	 * under a jobserver, whose tokens count the jobs. */
	if (pool.count) {
		size_t spare = jobserver || under_make == MAKE_SERIAL
				       ? 1 : job_count(ctx->cl, SIZE_MAX, 0) / pool.count;

		for (size_t i = 0; i < pool.count; i++)
			groups->v[pool.order[i]].job_threads = spare > 1 ? (unsigned)spare : 1;
	}

	if (pool.count)
		begin_progress(&pool);
	if (pool.count == 0) {
		/* Every image came from the cache. */
	} else if (njobs <= 1) {
		run_jobs(&pool, 1);
	} else {
		threads = ol_xcalloc(njobs - 1, sizeof(*threads));
		for (size_t i = 0; i + 1 < njobs; i++) {
			if (pthread_create(&threads[i], NULL, worker, &pool) != 0)
				break;
			started++;
		}
		run_jobs(&pool, 1);
		for (size_t i = 0; i < started; i++)
			pthread_join(threads[i], NULL);
		free(threads);
	}
	/* Before any job's messages are shown. */
	ol_progress_end();
	/* A fifo jobserver was opened here; inherited pipe fds belong to make. */
	if (pool.use_jobserver && pool.js.rfd == pool.js.wfd)
		close(pool.js.rfd);

	free(pool.order);
	if (preloading)
		pthread_join(preload, NULL);
	for (size_t i = 0; i < groups->n; i++) {
		failed |= groups->v[i].failed;
		ol_diag_flush(&groups->v[i].diag);
	}
	if (keys && !failed)
		store_in_cache(groups, ctx, keys);
	free(keys);
	return failed ? -1 : 0;
}
