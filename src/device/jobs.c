/*
 * jobs: run every group's device link on a pool of threads.
 *
 * Each job captures its diagnostics (and command echoes) in its group's
 * buffer; buffers are flushed in group order after all jobs end, so the
 * output is the same whatever the number of jobs.  The jobs run on the
 * link's one pool (support/pool.c), which partitioned LTO's partitions
 * share.  The default is one thread per core (under make, make's -j:
 * ol_make_jobs()); --wrapper-jobs=N caps it; --wrapper-jobs=jobserver takes
 * a token from GNU make's jobserver for every job or partition beyond the
 * first (the one make gave this process).
 */
#include "offload/device_remarks.h"
#include "offload/device_link.h"
#include "target_impl.h"
#include "offload/cache.h"
#include "offload/job_key.h"
#include "offload/tempfile.h"
#include "offload/diag.h"
#include "offload/stats.h"
#include "offload/inputs.h"
#include "offload/pool.h"
#include "offload/progress.h"
#include "offload/spawn.h"
#include "offload/timer.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct job_batch {
	struct ol_groups *groups;
	const struct ol_link_context *ctx;
	size_t *order;          /* indexes of the groups to link, costliest first */
	size_t count;           /* how many */
};

static void run_one(struct ol_group *g, const struct ol_link_context *ctx)
{
	char what[160];

	double started = ol_stats_now_ms();

	ol_group_image_name(g, what, sizeof(what));
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

static void run_job(void *arg, size_t i)
{
	struct job_batch *batch = arg;

	ol_progress_job_started(i);
	run_one(&batch->groups->v[batch->order[i]], batch->ctx);
	ol_progress_job_finished(i);
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
 * (no remote asked), "remote miss" (the remotes asked missed too), or
 * "hit, remarks miss" (the image is there, the remarks asked for are not:
 * linked again). */
static void note_lookup(const struct ol_group *g, const char *key, const struct ol_cache_lookup *l,
			int remarks_missing)
{
	const char *outcome = remarks_missing ? "hit, remarks miss"
			      : l->hit ? (l->remote ? "remote hit" : "hit")
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
		/* An image whose remarks are wanted and not kept (never asked
		 * for with these patterns, or evicted) is linked again: the same
		 * bytes, and its remarks. */
		int remarks_missing = 0;
		if (found.hit && !ol_remarks_cache_get(ctx->cache, g, keys[i], &g->remark_records)) {
			free(found.data);
			found.data = NULL;
			found.hit = 0;
			remarks_missing = 1;
		}
		note_lookup(g, keys[i], &found, remarks_missing);
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
		if (!g->cached && !g->failed && g->linked.data) {
			ol_cache_put(ctx->cache, keys[i], g->linked.data, g->linked.size);
			ol_remarks_cache_put(ctx->cache, g, keys[i], &g->remark_records);
		}
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
static void begin_progress(const struct job_batch *batch)
{
	char **names = ol_xcalloc(batch->count, sizeof(*names));

	for (size_t i = 0; i < batch->count; i++)
		names[i] = job_name(&batch->groups->v[batch->order[i]]);
	ol_progress_begin((const char *const *)names, batch->count);
	for (size_t i = 0; i < batch->count; i++)
		free(names[i]);
	free(names);
}

static void *preload_backend(void *unused)
{
	(void)unused;
	ol_backend_get();
	return NULL;
}

/* Threads for the link's pool: --wrapper-jobs=N, else one per core (also
 * under a jobserver, whose tokens then decide how many run); one under
 * make -j1, or when --wrapper-jobs=jobserver finds no jobserver. */
static unsigned thread_count(const struct ol_cmdline *cl, enum ol_make_jobs under_make,
			     const struct ol_jobserver *js, int jobserver)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cl->wrapper_jobs > 0 && !jobserver ? (size_t)cl->wrapper_jobs
						       : (cores > 0 ? (size_t)cores : 1);

	if ((jobserver && !js->usable) || under_make == OL_MAKE_SERIAL)
		n = 1;
	return n > 1024 ? 1024 : (unsigned)n;
}

/* Whether a group's device LTO runs partitions as jobs of the pool: its
 * bitcode forms more than one, the rule ol_group_run_lto follows. */
static int any_partitions(const struct ol_groups *groups)
{
	for (size_t i = 0; i < groups->n; i++)
		if (ol_group_partition_count(&groups->v[i]) > 1)
			return 1;
	return 0;
}

int ol_device_link_all(struct ol_groups *groups, const struct ol_link_context *ctx)
{
	struct job_batch batch;
	struct ol_link_context job_ctx = *ctx;
	struct ol_jobserver js;
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

	batch.groups = groups;
	batch.ctx = &job_ctx;
	batch.order = costliest_first(groups, &batch.count);
	/* One pool for the groups and the partitions of partitioned LTO: the
	 * threads a group leaves over run another group's partitions. */
	enum ol_make_jobs under_make = ctx->cl->wrapper_jobs > 0 ? OL_NOT_UNDER_MAKE : ol_make_jobs();
	int jobserver = ctx->cl->wrapper_jobserver || under_make == OL_MAKE_JOBSERVER;
	memset(&js, 0, sizeof(js));
	if (jobserver)
		ol_jobserver_open(&js, ctx->cl->wrapper_jobserver);
	if (batch.count) {
		unsigned threads = thread_count(ctx->cl, under_make, &js, jobserver);

		/* Without partitions, no more threads than jobs. */
		if (!any_partitions(groups) && threads > batch.count)
			threads = (unsigned)batch.count;
		job_ctx.pool = ol_pool_start(threads, &js);
		begin_progress(&batch);
		ol_pool_run(job_ctx.pool, batch.count, run_job, &batch);
		ol_pool_end(job_ctx.pool);
		job_ctx.pool = NULL;
	}
	/* Before any job's messages are shown. */
	ol_progress_end();
	if (jobserver)
		ol_jobserver_close(&js);

	free(batch.order);
	if (preloading)
		pthread_join(preload, NULL);
	for (size_t i = 0; i < groups->n; i++) {
		failed |= groups->v[i].failed;
		ol_diag_flush(&groups->v[i].diag);
	}
	if (keys && !failed)
		store_in_cache(groups, ctx, keys);
	free(keys);
	/* Remarks are the LTO's: shown even when a later step of the link
	 * failed, as a compiler shows them; the files only for a link that
	 * succeeded. */
	if (ol_device_report_remarks(groups, !failed) < 0)
		failed = 1;
	return failed ? -1 : 0;
}
