/*
 * partitioned_lto: --device-lto=partitioned (docs/design/partitioned-lto.md).  In place of one LTO of a group's bitcode:
 *
 *   1. the input modules are cut into partitions of N consecutive modules
 *      (a partition never mixes two archives, or an archive and objects);
 *   2. the backend links and internalizes them as full LTO does and splits
 *      the result (backend split()): each partition holds its modules'
 *      definitions and a private copy of what they reach;
 *   3. (partition_products.c) each partition's product is looked up in the device-link cache by
 *      its key (its bitcode with local names numbered) as soon as split()
 *      has made it, and only a miss gets its bitcode written, optimized
 *      alone (lto()) and, for a family whose device linker takes objects,
 *      compiled and assembled alone; before that, by its plan key (what
 *      decides its bitcode, without cutting it), whose cache entry names
 *      the products a partition of that plan made: a hit is not cut;
 *   4. the device linker links the partitions' objects, or (AMDGPU) the
 *      optimized partitions are linked into one module for one codegen.
 *
 * After an edit only the partitions holding changed code miss.  The
 * partitions are a batch of the link's pool (support/pool.c): they run on
 * their group's job's thread and on whichever threads the other groups
 * leave over; each partition's messages are captured apart and joined in
 * partition order, so the output is the same whatever ran where.
 */
#include "partition_run.h"
#include "offload/amdgpu_note.h"
#include "offload/device_remarks.h"
#include "offload/inputs.h"
#include "offload/job_key.h"
#include "offload/spawn.h"
#include "offload/stats.h"
#include "offload/strvec.h"
#include "offload/temp_names.h"
#include "offload/tempfile.h"
#include "offload/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What decides which modules share a partition: the archive a module came
 * from, or none for objects given on the line. */
static const char *module_source(const struct ol_device_image *img)
{
	return img->owner && img->owner->member ? img->owner->path : "";
}

/* The partition of each of req's modules (the group's bitcode images in
 * order): `units` consecutive modules of one source each, into `partition`
 * unless it is NULL.  Returns the number of partitions. */
static size_t assign_partitions(const struct ol_group *g, unsigned units, unsigned *partition)
{
	const char *source = NULL;
	size_t n = 0, in_current = 0, parts = 0;

	for (size_t i = 0; i < g->nimages; i++) {
		const struct ol_device_image *img = g->images[i];

		if (!ol_image_is_bitcode(img))
			continue;
		if (!source || strcmp(source, module_source(img)) != 0 || in_current == units) {
			parts++;
			in_current = 0;
			source = module_source(img);
		}
		if (partition)
			partition[n++] = (unsigned)(parts - 1);
		in_current++;
	}
	return parts;
}

size_t ol_group_partition_count(const struct ol_group *g)
{
	return g->lto_partition_units ? assign_partitions(g, g->lto_partition_units, NULL) : 0;
}

static int write_products(struct partition_run *run, struct ol_buffer *products, size_t n,
			  struct strvec *files)
{
	const char *ext = run->lto->assemble ? run->lto->assembled_ext : "o";

	for (size_t p = 0; p < n; p++) {
		char *prefix;
		const char *path;

		if (!products[p].size)
			continue;
		if (run->paths[p]) {
			strvec_push(files, run->paths[p]);
			continue;
		}
		prefix = ol_partition_prefix(run, p);
		path = ol_temp_write(prefix, ext, products[p].data, products[p].size);
		ol_temp_name_describe(path, "[partition %zu of the device LTO for %s%s%s]", p,
				      run->g->triple, *run->g->arch ? " " : "", run->g->arch);
		free(prefix);
		if (!path)
			return -1;
		strvec_push(files, path);
	}
	return 0;
}

/* Why the partitions' objects cannot be linked as they are (malloc'd), or
 * NULL: a kernel whose resources LLVM would guess from its partition alone
 * (a call to another partition's function, or a dynamic stack: a call
 * through a pointer or to an unknown function, recursion), or notes that do
 * not merge.  Else *merged gets the one metadata note, *kernels their count. */
static char *objects_apart(const uint8_t **objs, const size_t *sizes,
			   struct ol_amdgpu_note *notes, size_t n, struct strbuf *merged,
			   long *kernels)
{
	const uint8_t **descs = ol_xcalloc(n ? n : 1, sizeof(*descs));
	size_t *desc_sizes = ol_xcalloc(n ? n : 1, sizeof(*desc_sizes)), nd = 0, user;
	const char *why, *name;
	char *whynot = NULL;

	for (size_t i = 0; i < n && !whynot; i++) {
		const uint8_t *kname;
		size_t klen;
		int rc = ol_amdgpu_find_note(objs[i], sizes[i], &notes[i], &why);

		if (rc < 0) {
			whynot = ol_xasprintf("a partition's object: %s", why);
		} else if (rc == 1) {
			long dyn = ol_amdgpu_dynamic_stack_kernel(notes[i].desc, notes[i].desc_size,
								  &kname, &klen);

			if (dyn < 0)
				whynot = ol_xstrdup("a partition's metadata note is malformed");
			else if (dyn)
				whynot = ol_xasprintf("kernel '%.*s' may use a dynamic stack (a call "
						      "through a pointer, recursion), whose registers "
						      "come from every partition's functions",
						      kname ? (int)klen : 1, kname ? (const char *)kname : "?");
			descs[nd] = notes[i].desc;
			desc_sizes[nd++] = notes[i].desc_size;
		} else {
			notes[i].desc = NULL;
		}
	}
	if (!whynot && ol_amdgpu_calls_across(objs, sizes, n, &name, &user))
		whynot = ol_xasprintf("a function of one partition calls or takes the address of "
				      "'%s', defined by another", name);
	if (!whynot && (*kernels = ol_amdgpu_metadata_merge(descs, desc_sizes, nd, merged,
							      &why)) < 0)
		whynot = ol_xasprintf("the metadata notes do not merge: %s", why);
	free(descs);
	free(desc_sizes);
	return whynot;
}

/* codegen_partitions: the partitions' objects, each without its metadata
 * note, and one object with their notes merged; or, where they cannot be
 * linked apart, one codegen of the optimized partitions (-v says why). */
static int link_partition_objects(struct partition_run *run, struct strvec *files)
{
	const struct ol_group *g = run->g;
	const uint8_t **objs = ol_xcalloc(run->nparts ? run->nparts : 1, sizeof(*objs));
	size_t *sizes = ol_xcalloc(run->nparts ? run->nparts : 1, sizeof(*sizes));
	size_t *index = ol_xcalloc(run->nparts ? run->nparts : 1, sizeof(*index));
	struct ol_amdgpu_note *notes = ol_xcalloc(run->nparts ? run->nparts : 1, sizeof(*notes));
	struct strbuf merged = STRBUF_INIT, object = STRBUF_INIT, times = STRBUF_INIT;
	long kernels = 0;
	size_t n = 0;
	char *whynot, *prefix, image[160];
	const char *path, *why;
	int rc = 0;

	ol_group_image_name(g, image, sizeof(image));
	for (size_t p = 0; p < run->nparts; p++) {
		if (!ol_partition_has_code(run, p))
			continue;
		strbuf_addf(&times, "%s", n ? ", " : "");
		if (run->codegen_ms[p] < 0)
			strbuf_addf(&times, "%zu cached", p);
		else
			strbuf_addf(&times, "%zu %.0f ms", p, run->codegen_ms[p]);
		objs[n] = run->objects[p].data;
		sizes[n] = run->objects[p].size;
		index[n++] = p;
	}
	whynot = objects_apart(objs, sizes, notes, n, &merged, &kernels);
	if (whynot) {
		ol_spawn_note("partitioned LTO for %s: one codegen of the partitions: %s", image,
			      whynot);
		rc = ol_partitions_codegen_merged(run, run->products, run->nparts, files);
		goto out;
	}
	ol_spawn_note("partitioned LTO for %s: code generation per partition, %zu from the "
		      "cache (each: %s); one metadata note of %ld kernel%s", image,
		      (size_t)atomic_load(&run->codegen_hits), times.len ? strbuf_str(&times) : "none",
		      kernels, kernels == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		ol_group_keep_remarks(run->g, &run->codegen_remarks[index[i]]);
	if (ol_amdgpu_note_object(objs[0], sizes[0], (const uint8_t *)merged.buf, merged.len,
				  &object, &why) < 0) {
		rc = ol_error("cannot write the metadata note of %s: %s", image, why);
		goto out;
	}
	prefix = ol_xasprintf("%s.note", run->prefix);
	path = ol_temp_write(prefix, "o", object.buf, object.len);
	ol_temp_name_describe(path, "[the metadata note of the device LTO for %s]", image);
	free(prefix);
	if (!path) {
		rc = -1;
		goto out;
	}
	strvec_push(files, path);
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t p = index[i];

		/* The object's own note goes (its bytes are ours: the cache's
		 * copy or the codegen's). */
		if (notes[i].desc)
			ol_amdgpu_exclude_note(run->objects[p].data, run->objects[p].size, &notes[i]);
		prefix = ol_partition_prefix(run, p);
		path = ol_temp_write(prefix, "o", run->objects[p].data, run->objects[p].size);
		ol_temp_name_describe(path, "[partition %zu of the device LTO for %s]", p, image);
		free(prefix);
		if (!path)
			rc = -1;
		else
			strvec_push(files, path);
	}
out:
	free(whynot);
	free(objs);
	free(sizes);
	free(index);
	free(notes);
	strbuf_release(&merged);
	strbuf_release(&object);
	strbuf_release(&times);
	return rc ? -1 : 0;
}

/* -v's line and --stats' record: the partitions that held code, how many
 * came from the cache, and each one's time. */
static void report_partitions(const struct partition_run *run, size_t built,
			      struct ol_stats_partitions *stats, const char *why_whole)
{
	const struct ol_group *g = run->g;
	double *ms = ol_xcalloc(built ? built : 1, sizeof(*ms));
	struct strbuf times = STRBUF_INIT;
	char image[160], distributed[64] = "", not_cut[40] = "";
	size_t k = 0;

	if (run->ctx->cl->distributor)
		snprintf(distributed, sizeof(distributed), ", %zu by the distributor",
			 run->distributed);
	for (size_t p = 0; p < run->nparts; p++) {
		if (!ol_partition_has_code(run, p))
			continue;
		ms[k++] = run->ms[p];
		if (run->ms[p] < 0)
			strbuf_addf(&times, "%scached", k > 1 ? ", " : "");
		else
			strbuf_addf(&times, "%s%.0f", k > 1 ? ", " : "", run->ms[p]);
	}
	if (run->nplanned)
		snprintf(not_cut, sizeof(not_cut), " (%zu not cut)", run->nplanned);
	ol_spawn_note("partitioned LTO of %zu bitcode module%s for %s%s%s at -O%d: %zu "
		      "partition%s, %zu from the cache%s%s; split %.0f ms, partitions %.0f ms (each: %s)",
		      run->req->nmodules, run->req->nmodules == 1 ? "" : "s", g->triple,
		      *g->arch ? " " : "", g->arch, run->req->opt_level, built, built == 1 ? "" : "s",
		      (size_t)atomic_load(&run->hits), not_cut, distributed, stats->split_ms,
		      stats->partitions_ms, times.len ? strbuf_str(&times) : "none");
	ol_group_image_name(g, image, sizeof(image));
	stats->count = built;
	stats->from_cache = (size_t)atomic_load(&run->hits);
	stats->not_cut = run->nplanned;
	stats->ms = ms;
	stats->why_whole = why_whole;
	ol_stats_partitioned(image, stats);
	strbuf_release(&times);
	free(ms);
}

/* The run's arrays for n partitions. */
static void alloc_run(struct partition_run *run, size_t n)
{
	size_t k = n ? n : 1;

	run->parts = ol_xcalloc(k, sizeof(*run->parts));
	run->keys = ol_xcalloc(k, sizeof(*run->keys));
	run->products = ol_xcalloc(k, sizeof(*run->products));
	run->remarks = ol_xcalloc(k, sizeof(*run->remarks));
	run->paths = ol_xcalloc(k, sizeof(*run->paths));
	run->diags = ol_xcalloc(k, sizeof(*run->diags));
	run->status = ol_xcalloc(k, sizeof(*run->status));
	run->ms = ol_xcalloc(k, sizeof(*run->ms));
	run->invalid = ol_xcalloc(k, sizeof(*run->invalid));
	run->objects = ol_xcalloc(k, sizeof(*run->objects));
	run->codegen_remarks = ol_xcalloc(k, sizeof(*run->codegen_remarks));
	run->codegen_ms = ol_xcalloc(k, sizeof(*run->codegen_ms));
	run->product_keys = ol_xcalloc(k, sizeof(*run->product_keys));
	run->object_keys = ol_xcalloc(k, sizeof(*run->object_keys));
	run->have_product = ol_xcalloc(k, sizeof(*run->have_product));
	run->have_object = ol_xcalloc(k, sizeof(*run->have_object));
	run->looked_up = ol_xcalloc(k, sizeof(*run->looked_up));
	run->plan_keys = ol_xcalloc(k, sizeof(*run->plan_keys));
	run->plan_named = ol_xcalloc(k, sizeof(*run->plan_named));
	run->planned = ol_xcalloc(k, sizeof(*run->planned));
	run->nplanned = 0;
	atomic_init(&run->plan_mismatches, 0);
	run->distributed = 0;
	run->nparts = n;
	atomic_init(&run->hits, 0);
	atomic_init(&run->codegen_hits, 0);
}

static void release_run(struct partition_run *run)
{
	for (size_t p = 0; p < run->nparts; p++) {
		free(run->parts[p].data);
		free(run->keys[p].data);
		free(run->products[p].data);
		free(run->remarks[p].data);
		free(run->invalid[p]);
		free(run->objects[p].data);
		free(run->codegen_remarks[p].data);
	}
	free(run->objects);
	free(run->codegen_remarks);
	free(run->codegen_ms);
	free(run->product_keys);
	free(run->object_keys);
	free(run->have_product);
	free(run->have_object);
	free(run->looked_up);
	free(run->plan_keys);
	free(run->plan_named);
	free(run->planned);
	free(run->remarks);
	free(run->parts);
	free(run->keys);
	free(run->products);
	free(run->paths);
	free(run->diags);
	free(run->status);
	free(run->ms);
	free(run->invalid);
}

/* Splits the group's modules as `split` says and builds every partition's
 * product.  *why_whole gets why the module stayed one partition, if it
 * did.  Returns 0, -1 (reported), or 2 when a partition is not valid IR. */
static int split_and_build(struct partition_run *run, const struct ol_lto_request *split,
			   struct ol_stats_partitions *stats, size_t *built, char **why_whole)
{
	char *err = NULL, image[160];
	double started;
	int rc;

	ol_group_image_name(run->g, image, sizeof(image));
	alloc_run(run, split->npartitions);
	ol_timer_begin_detail("Split for partitioned LTO", run->prefix);
	started = ol_stats_now_ms();
	rc = run->be->split(split, run->parts, run->keys, &err);
	stats->split_ms += ol_stats_now_ms() - started;
	ol_timer_end();
	if (rc == 1) {
		ol_spawn_note("partitioned LTO for %s: one partition: %s", image, err);
		if (why_whole)
			*why_whole = ol_xstrdup(err ? err : "");
		rc = 0;
	} else if (rc != 0) {
		ol_group_lto_failed(run->g, "", err);
		err = NULL;
		rc = -1;
	} else if (err) {
		/* Split, with partitions joined: why. */
		ol_spawn_note("partitioned LTO for %s: %s", image, err);
	}
	free(err);
	*built = 0;
	for (size_t p = 0; p < run->nparts; p++)
		*built += ol_partition_has_code(run, p);
	started = ol_stats_now_ms();
	if (rc == 0)
		rc = ol_partitions_make_products(run);
	stats->partitions_ms += ol_stats_now_ms() - started;
	return rc;
}

int ol_group_run_partitioned_lto(struct ol_group *g, const struct ol_link_context *ctx,
				 const struct ol_lto_settings *lto,
				 const struct ol_lto_request *req, struct strvec *files)
{
	struct partition_run run;
	struct ol_lto_request split = *req;
	unsigned *partition = ol_xcalloc(req->nmodules ? req->nmodules : 1, sizeof(*partition));
	struct ol_stats_partitions stats = { 0 };
	uint8_t (*digests)[OL_SHA256_SIZE] = NULL;
	size_t built = 0;
	char *why_whole = NULL;
	int rc;

	memset(&run, 0, sizeof(run));
	run.g = g;
	run.ctx = ctx;
	run.lto = lto;
	run.req = req;
	run.be = ol_backend_get();
	/* As for a group: not when --save-temps asks for the files made. */
	run.cache = ctx->cl->save_temps ? NULL : ctx->cache;
	run.prefix = ol_xasprintf("%s.%s.%s", ctx->exe_name, g->triple, g->arch);
	split.module_partition = partition;
	split.npartitions = assign_partitions(g, g->lto_partition_units, partition);
	split.partition_wanted = ol_partition_wanted;
	split.partition_arg = &run;
	if (run.cache) {
		digests = ol_xcalloc(req->nmodules ? req->nmodules : 1, sizeof(*digests));
		ol_group_bitcode_digests(run.cache, g, digests);
		split.module_digests = (const uint8_t(*)[32])digests;
		split.partition_planned = ol_partition_planned;
		run.check_plans = getenv("OFFLOAD_LINK_CHECK_PLANS") != NULL;
	}
	if (ctx->cl->save_temps)
		split.save_temps_prefix = run.prefix;

	rc = split_and_build(&run, &split, &stats, &built, &why_whole);
	if (rc == 0 && atomic_load(&run.plan_mismatches))
		rc = -1;   /* reported (OFFLOAD_LINK_CHECK_PLANS) */
	if (rc == 2) {
		/* A partition the verifier rejects is the splitter's mistake:
		 * the group is optimized whole, and the link goes on. */
		size_t p = 0;

		while (p + 1 < run.nparts && !run.invalid[p])
			p++;
		free(why_whole);
		why_whole = ol_xstrdup(run.invalid[p] ? run.invalid[p] : "a partition is not valid IR");
		ol_warn("partitioned LTO for %s%s%s: %s; its device code is optimized whole "
			"(a mistake of offload-link's splitter: please report it)",
			g->triple, *g->arch ? " " : "", g->arch, why_whole);
		release_run(&run);
		memset(partition, 0, (req->nmodules ? req->nmodules : 1) * sizeof(*partition));
		split.npartitions = 1;
		rc = split_and_build(&run, &split, &stats, &built, NULL);
		if (rc == 2) {
			ol_group_lto_failed(g, "", ol_xstrdup(why_whole));
			rc = -1;
		}
	}
	if (rc == 0 && built == 0) {
		/* No partition holds code (device code with no definition of
		 * its own, as a program without target regions compiled for
		 * the device): there is nothing to split, and one module makes
		 * the image it makes. */
		release_run(&run);
		free(partition);
		free(digests);
		free(why_whole);
		free(run.prefix);
		return 1;
	}
	report_partitions(&run, built, &stats, why_whole);
	free(why_whole);
	if (rc == 0 && lto->codegen_partitions)
		rc = link_partition_objects(&run, files);
	else if (rc == 0)
		rc = lto->merge_before_codegen ? ol_partitions_codegen_merged(&run, run.products, run.nparts, files)
					       : write_products(&run, run.products, run.nparts, files);
	release_run(&run);
	free(partition);
	free(digests);
	free(run.prefix);
	return rc ? -1 : 0;
}
