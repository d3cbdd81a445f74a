/*
 * partitioned_lto: --device-lto=partitioned (docs/design/partitioned-lto.md).  In place of one LTO of a group's bitcode:
 *
 *   1. the input modules are cut into partitions of N consecutive modules
 *      (a partition never mixes two archives, or an archive and objects);
 *   2. the backend links and internalizes them as full LTO does and splits
 *      the result (backend split()): each partition holds its modules'
 *      definitions and a private copy of what they reach;
 *   3. each partition's product is looked up in the device-link cache by
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
#include "target_impl.h"
#include "offload/amdgpu_note.h"
#include "offload/cache.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/job_key.h"
#include "offload/mapped_file.h"
#include "offload/pool.h"
#include "offload/spawn.h"
#include "offload/device_remarks.h"
#include "offload/stats.h"
#include "offload/strvec.h"
#include "offload/temp_names.h"
#include "offload/tempfile.h"
#include "offload/timer.h"

#include <errno.h>
#include <stdatomic.h>
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

struct partition_run {
	struct ol_group *g;
	const struct ol_link_context *ctx;
	const struct ol_lto_settings *lto;
	const struct ol_lto_request *req;
	const struct ol_backend *be;
	struct ol_cache *cache;        /* NULL: no cache for this link */
	char *prefix;                  /* "<exe>.<triple>.<arch>" */
	atomic_size_t hits;
	atomic_size_t codegen_hits;
	/* The partitions, their products, each one's messages and status. */
	struct ol_buffer *parts;
	struct ol_buffer *keys;        /* what each partition's key is made of (split()) */
	struct ol_buffer *products;
	struct ol_buffer *remarks;     /* each partition's remarks (remark_records.h) */
	const char **paths;            /* a product's file when it was assembled here */
	double *ms;                    /* each partition's wall time, -1 from the cache */
	struct ol_diag_buffer *diags;
	int *status;
	char **invalid;                /* why a partition is not valid IR (status 2) */
	/* codegen_partitions: each partition's object, its remarks, its
	 * codegen's wall time (-1 from the cache). */
	struct ol_buffer *objects;
	struct ol_buffer *codegen_remarks;
	double *codegen_ms;
	/* Each partition's cache keys (with a cache), and whether its product
	 * and its object are at hand (from the cache or the distributor). */
	char (*product_keys)[OL_CACHE_KEY_HEX];
	char (*object_keys)[OL_CACHE_KEY_HEX];
	unsigned char *have_product, *have_object;
	unsigned char *looked_up;      /* the cache was asked once (look_up()) */
	/* Plan keys (partition_planned()): each partition's, when split()
	 * made one (else empty); whether it was not cut, its plan naming
	 * products at hand; the product key its plan named, which its
	 * bitcode's must equal (OFFLOAD_LINK_CHECK_PLANS). */
	char (*plan_keys)[OL_CACHE_KEY_HEX];
	unsigned char *planned;
	char (*plan_named)[OL_CACHE_KEY_HEX];
	int check_plans;
	size_t nplanned;
	atomic_size_t plan_mismatches;
	int lookup_only;               /* the pool looks the partitions up, builds none */
	size_t distributed;            /* how many the distributor built */
	size_t nparts;
};

/* "<exe>.<triple>.<arch>.part<p>", the names of a partition's files; a
 * link of one partition names them as full LTO does. */
static char *partition_prefix(const struct partition_run *run, size_t p)
{
	return run->nparts == 1 ? ol_xstrdup(run->prefix) : ol_xasprintf("%s.part%zu", run->prefix, p);
}

/* What a partition's product is, as its cache key names it. */
static const char *product_name(const struct partition_run *run)
{
	return run->lto->merge_before_codegen ? "optimized bitcode"
	       : run->lto->assemble	   ? run->lto->assembled_ext
					   : "object";
}

/* The group's request for modules split() made: its settings, these
 * modules, and nothing of what linking the group's inputs needed (their
 * names, the symbols to keep, which definition prevails). */
static struct ol_lto_request partition_request(const struct partition_run *run,
					       const uint8_t **modules, size_t *sizes, size_t n)
{
	struct ol_lto_request req = *run->req;

	req.modules = modules;
	req.sizes = sizes;
	req.names = NULL;
	req.nmodules = n;
	req.module_partition = NULL;
	req.npartitions = 0;
	req.preserve = NULL;
	req.first_definition_prevails = 0;
	return req;
}

/* Optimizes (and compiles, and assembles) one partition: *out gets the
 * product's bytes, *file the assembler's output when there was one.
 * Returns 0, -1 (reported), or 2 when the partition is not valid IR
 * (why in run->invalid[p]). */
static int build_partition(struct partition_run *run, size_t p, const struct ol_buffer *part,
			   struct ol_buffer *out, struct ol_buffer *remarks, const char **file)
{
	const uint8_t *module = part->data;
	size_t size = part->size;
	struct ol_lto_request req = partition_request(run, &module, &size, 1);
	char *err = NULL, *what, *prefix;
	const char *path, *assembled;
	struct ol_buffer lto_out = { NULL, 0 };
	int rc;

	req.mode = OL_LTO_PARTITION;
	req.emit_bitcode = run->lto->merge_before_codegen;
	req.emit_assembly = !req.emit_bitcode && run->lto->emit_assembly;
	prefix = partition_prefix(run, p);
	if (run->ctx->cl->save_temps)
		req.save_temps_prefix = prefix;
	ol_timer_begin_detail("LTO of a partition", prefix);
	rc = ol_lto_within_budget(run->be, &req, &lto_out, remarks, &err);
	ol_timer_end();
	if (rc == 2) {
		/* Not valid IR: the caller links the group whole, and says why. */
		run->invalid[p] = err;
		free(prefix);
		return 2;
	}
	if (rc != 0) {
		what = ol_xasprintf(" of partition %zu", p);
		ol_group_lto_failed(run->g, what, err);
		free(what);
		free(prefix);
		return -1;
	}
	if (req.emit_bitcode || !run->lto->assemble) {
		*out = lto_out;
		free(prefix);
		return 0;
	}
	/* PTX: the family's assembler makes the object from a file. */
	path = ol_temp_write(prefix, "s", lto_out.data, lto_out.size);
	free(lto_out.data);
	free(prefix);
	assembled = path ? run->lto->assemble(run->g, run->ctx, path) : NULL;
	if (!assembled)
		return -1;
	if (ol_read_whole_file(assembled, &out->data, &out->size) < 0)
		return ol_error("cannot read '%s': %s", assembled, strerror(errno));
	*file = assembled;
	return 0;
}

/* The cache's entry under key: 1 with *out and *remarks filled, 0 when
 * there is none.  A product whose remarks are wanted and gone is made
 * again. */
static int fetch(struct partition_run *run, const char *key, struct ol_buffer *out,
		 struct ol_buffer *remarks)
{
	struct ol_cache_lookup found;

	ol_cache_get(run->cache, key, &found);
	if (found.hit && ol_remarks_cache_get(run->cache, run->g, key, remarks)) {
		out->data = found.data;
		out->size = found.size;
		return 1;
	}
	free(found.data);
	return 0;
}

/* Partition p's key for `product`, from its bitcode (run->keys[p]). */
static void partition_key(struct partition_run *run, size_t p, const char *product,
			  char key[OL_CACHE_KEY_HEX])
{
	ol_partition_job_key(run->cache, run->g, run->ctx, product, run->req->cpu,
			     run->req->features, run->keys[p].data, run->keys[p].size, key);
}

/* Partition p's product from the cache under run->product_keys[p]: 1 if
 * it was there. */
static int take_product(struct partition_run *run, size_t p)
{
	if (!fetch(run, run->product_keys[p], &run->products[p], &run->remarks[p]))
		return 0;
	run->have_product[p] = 1;
	atomic_fetch_add(&run->hits, 1);
	run->ms[p] = -1;
	return 1;
}

/* Its object (codegen_partitions) under run->object_keys[p], likewise. */
static int take_object(struct partition_run *run, size_t p)
{
	if (!fetch(run, run->object_keys[p], &run->objects[p], &run->codegen_remarks[p]))
		return 0;
	run->have_object[p] = 1;
	atomic_fetch_add(&run->codegen_hits, 1);
	run->codegen_ms[p] = -1;
	return 1;
}

static void to_cache(struct partition_run *run, const char *key, const struct ol_buffer *out,
		     const struct ol_buffer *remarks)
{
	if (!run->cache)
		return;
	ol_cache_put(run->cache, key, out->data, out->size);
	ol_remarks_cache_put(run->cache, run->g, key, remarks);
}

/* Partition p's product and (codegen_partitions) its object, from the
 * cache where it has them; the cache is asked once. */
static void look_up(struct partition_run *run, size_t p)
{
	if (run->looked_up[p])
		return;
	run->looked_up[p] = 1;
	if (!run->cache)
		return;
	if (!run->have_product[p]) {
		partition_key(run, p, product_name(run), run->product_keys[p]);
		take_product(run, p);
	}
	if (run->lto->codegen_partitions && !run->have_object[p]) {
		partition_key(run, p, "object", run->object_keys[p]);
		take_object(run, p);
	}
}

/* One partition's product, from the cache or built (and then stored). */
static int partition_product(struct partition_run *run, size_t p, const struct ol_buffer *part,
			     struct ol_buffer *out)
{
	int rc;

	if (run->have_product[p])
		return 0;
	rc = build_partition(run, p, part, out, &run->remarks[p], &run->paths[p]);
	if (rc != 0)
		return rc;
	to_cache(run, run->product_keys[p], out, &run->remarks[p]);
	run->have_product[p] = 1;
	return 0;
}

/* codegen_partitions: one optimized partition's object, from the cache
 * (keyed by the partition, as its optimized bitcode is) or compiled alone. */
static int codegen_product(struct partition_run *run, size_t p)
{
	const uint8_t *module = run->products[p].data;
	size_t size = run->products[p].size;
	struct ol_lto_request req;
	char *err = NULL, *what;
	double started = ol_stats_now_ms();
	int rc;

	if (run->have_object[p])
		return 0;
	req = partition_request(run, &module, &size, 1);
	req.mode = OL_LTO_CODEGEN_ONLY;
	ol_timer_begin_detail("Code generation of a partition", run->prefix);
	rc = ol_lto_within_budget(run->be, &req, &run->objects[p], &run->codegen_remarks[p], &err);
	ol_timer_end();
	run->codegen_ms[p] = ol_stats_now_ms() - started;
	if (rc != 0) {
		what = ol_xasprintf(" (code generation of partition %zu)", p);
		ol_group_lto_failed(run->g, what, err);
		free(what);
		return -1;
	}
	to_cache(run, run->object_keys[p], &run->objects[p], &run->codegen_remarks[p]);
	run->have_object[p] = 1;
	return 0;
}

/* AMDGPU: the optimized partitions become one object. */
static int codegen_merged(struct partition_run *run, struct ol_buffer *products, size_t n,
			  struct strvec *files)
{
	const uint8_t **modules = ol_xcalloc(n ? n : 1, sizeof(*modules));
	size_t *sizes = ol_xcalloc(n ? n : 1, sizeof(*sizes));
	struct ol_lto_request req;
	struct ol_buffer out = { NULL, 0 }, remarks = { NULL, 0 };
	char *err = NULL;
	size_t k = 0;
	int rc;

	for (size_t p = 0; p < n; p++) {
		if (!products[p].size)
			continue;
		modules[k] = products[p].data;
		sizes[k++] = products[p].size;
	}
	req = partition_request(run, modules, sizes, k);
	req.mode = OL_LTO_CODEGEN_ONLY;
	if (run->ctx->cl->save_temps)
		req.save_temps_prefix = run->prefix;
	ol_timer_begin_detail("Code generation of the partitions", run->prefix);
	rc = ol_lto_within_budget(run->be, &req, &out, &remarks, &err);
	ol_timer_end();
	ol_group_keep_remarks(run->g, &remarks);
	if (rc == 0) {
		rc = ol_group_add_lto_output(run->g, run->prefix, "o", &out, files);
	} else {
		ol_group_lto_failed(run->g, " (code generation of the partitions)", err);
	}
	free(out.data);
	free(modules);
	free(sizes);
	return rc ? -1 : 0;
}

/* ---- plan keys ---------------------------------------------------------------------- */

/* A plan's entry names the product key (and, when partitions are compiled
 * apart, the object key) of the partition that plan made: "<key>\n<key>\n",
 * the second empty without objects.  *text of size bytes into product and
 * object; 0, or -1 when it is not such an entry. */
static int read_plan_entry(const uint8_t *text, size_t size, char product[OL_CACHE_KEY_HEX],
			   char object[OL_CACHE_KEY_HEX])
{
	const size_t hex = OL_CACHE_KEY_HEX - 1;

	if (size != hex + 2 && size != 2 * hex + 2)
		return -1;
	if (text[hex] != '\n' || text[size - 1] != '\n')
		return -1;
	memcpy(product, text, hex);
	product[hex] = 0;
	if (size == hex + 2) {
		object[0] = 0;
	} else {
		memcpy(object, text + hex + 1, hex);
		object[hex] = 0;
	}
	return strspn(product, "0123456789abcdef") == hex &&
		       strspn(object, "0123456789abcdef") == strlen(object) ? 0 : -1;
}

/* Once a partition's product is at hand, its keys made from its bitcode:
 * its plan's entry, unless the plan named these keys already; under
 * OFFLOAD_LINK_CHECK_PLANS, a plan that named others is a mistake of the
 * plan (partition_plan.c in the backend), reported. */
static void remember_plan(struct partition_run *run, size_t p)
{
	int objects = run->lto->codegen_partitions;
	char *entry;

	if (run->plan_named[p][0]) {
		if (strcmp(run->plan_named[p], run->product_keys[p]) == 0)
			return;
		/* The product the plan named was gone, so nothing was taken
		 * from it; under the check it is an error. */
		if (run->check_plans) {
			ol_error("partition %zu of %s: its plan key names product %.16s, its bitcode "
				 "%.16s (a mistake of offload-link's plan keys: please report it)",
				 p, run->prefix, run->plan_named[p], run->product_keys[p]);
			atomic_fetch_add(&run->plan_mismatches, 1);
			return;
		}
		ol_warn("partition %zu of %s: its plan key named another product than its bitcode "
			"(a mistake of offload-link's plan keys: please report it)", p, run->prefix);
	}
	entry = ol_xasprintf("%s\n%s\n", run->product_keys[p], objects ? run->object_keys[p] : "");
	ol_cache_put(run->cache, run->plan_keys[p], (const uint8_t *)entry, strlen(entry));
	free(entry);
}

/* split()'s question before it cuts partition p: whether the products of
 * a partition of this plan are at hand (then p is not cut).  Under
 * OFFLOAD_LINK_CHECK_PLANS every partition is cut all the same, and what
 * its plan named is checked against its bitcode's keys (remember_plan). */
static int partition_planned(void *arg, size_t p, const uint8_t plan[32])
{
	struct partition_run *run = arg;
	struct ol_cache_lookup found;
	char object[OL_CACHE_KEY_HEX];
	int named;

	if (p >= run->nparts || !run->cache)
		return 0;
	ol_partition_job_key(run->cache, run->g, run->ctx, "plan", run->req->cpu,
			     run->req->features, plan, 32, run->plan_keys[p]);
	ol_cache_get(run->cache, run->plan_keys[p], &found);
	named = found.hit && read_plan_entry(found.data, found.size, run->plan_named[p], object) == 0;
	free(found.data);
	if (!named) {
		run->plan_named[p][0] = 0;
		return 0;
	}
	if (run->check_plans)
		return 0;
	/* The optimized partition is what it takes: its object, when not at
	 * hand, is compiled from it.  A product gone: p is cut, and keyed by
	 * its bitcode (look_up()). */
	memcpy(run->product_keys[p], run->plan_named[p], OL_CACHE_KEY_HEX);
	if (!take_product(run, p))
		return 0;
	if (run->lto->codegen_partitions && object[0]) {
		memcpy(run->object_keys[p], object, sizeof(object));
		take_object(run, p);
	}
	run->looked_up[p] = 1;
	run->planned[p] = 1;
	run->nplanned++;
	return 1;
}

/* Whether split() put code in partition p (its bitcode may be unwritten:
 * partition_wanted()). */
static int has_code(const struct partition_run *run, size_t p)
{
	return run->keys[p].size != 0;
}

/* Whether partition p still has something to build. */
static int partition_missing(const struct partition_run *run, size_t p)
{
	return has_code(run, p) &&
	       (!run->have_product[p] || (run->lto->codegen_partitions && !run->have_object[p]));
}

/* split()'s question once partition p's key is made: its bitcode is
 * wanted unless the cache has what would be made of it. */
static int partition_wanted(void *arg, size_t p, const struct ol_buffer *key)
{
	struct partition_run *run = arg;
	struct ol_diag_buffer *previous;

	/* key is run->keys[p] (backend.h), which look_up() reads. */
	if (p >= run->nparts || key != &run->keys[p])
		return 1;
	/* The cache's messages join the partition's, in partition order. */
	previous = ol_diag_capture_begin(&run->diags[p]);
	look_up(run, p);
	ol_diag_capture_begin(previous);
	return partition_missing(run, p);
}

/* One partition's product, on whichever thread of the pool takes it. */
static void partition_item(void *arg, size_t p)
{
	struct partition_run *run = arg;
	struct ol_diag_buffer *previous;
	double started;

	if (!has_code(run, p))
		return;
	previous = ol_diag_capture_begin(&run->diags[p]);
	if (run->lookup_only) {
		look_up(run, p);
		ol_diag_capture_begin(previous);
		return;
	}
	started = ol_stats_now_ms();
	look_up(run, p);
	run->status[p] = partition_product(run, p, &run->parts[p], &run->products[p]);
	/* Not from the cache (-1) nor the distributor (its time). */
	if (run->ms[p] == 0)
		run->ms[p] = ol_stats_now_ms() - started;
	if (run->status[p] == 0 && run->lto->codegen_partitions)
		run->status[p] = codegen_product(run, p);
	/* Here, not when split() asked: the cache's writes wait for the disk,
	 * and split() runs on one thread. */
	if (run->status[p] == 0 && run->plan_keys[p][0] && !run->planned[p])
		remember_plan(run, p);
	ol_diag_capture_begin(previous);
}

/* --device-lto-distributor: the partitions the cache does not hold go to
 * the distributor; what it built is used and stored as if built here.
 * Returns 0 (the pool builds whatever is still missing: nothing, unless
 * --device-lto-distributor-fallback let a failure through), or -1. */
static int distribute(struct partition_run *run)
{
	struct ol_partition_job *slots = ol_xcalloc(run->nparts ? run->nparts : 1, sizeof(*slots));
	size_t n = 0;
	double started;
	int rc;

	run->lookup_only = 1;
	ol_pool_run(run->ctx->pool, run->nparts, partition_item, run);
	run->lookup_only = 0;
	for (size_t p = 0; p < run->nparts; p++) {
		ol_diag_flush(&run->diags[p]);
		if (partition_missing(run, p)) {
			slots[n].partition = p;
			slots[n++].bitcode = &run->parts[p];
		}
	}
	started = ol_stats_now_ms();
	rc = n ? ol_distribute_partitions(run->g, run->ctx, run->lto, run->req, run->prefix,
					  slots, n)
	       : 0;
	for (size_t i = 0; i < n; i++) {
		size_t p = slots[i].partition;

		if (!slots[i].done)
			continue;
		free(run->products[p].data);
		free(run->remarks[p].data);
		run->products[p] = slots[i].product;
		run->remarks[p] = slots[i].remarks;
		run->have_product[p] = 1;
		run->ms[p] = ol_stats_now_ms() - started;
		to_cache(run, run->product_keys[p], &run->products[p], &run->remarks[p]);
		if (run->lto->codegen_partitions) {
			free(run->objects[p].data);
			free(run->codegen_remarks[p].data);
			run->objects[p] = slots[i].object;
			run->codegen_remarks[p] = slots[i].object_remarks;
			run->have_object[p] = 1;
			run->codegen_ms[p] = run->ms[p];
			to_cache(run, run->object_keys[p], &run->objects[p],
				 &run->codegen_remarks[p]);
		}
		run->distributed++;
	}
	free(slots);
	return rc;
}

/* Every partition's product, on the link's pool (the threads the other
 * groups leave over join in), after the distributor when there is one.
 * Returns 0, -1 (reported), or 2 when a partition is not valid IR
 * (nothing reported). */
static int make_products(struct partition_run *run)
{
	int failed = 0, invalid = 0;

	if (run->ctx->cl->distributor && distribute(run) < 0)
		return -1;
	ol_pool_run(run->ctx->pool, run->nparts, partition_item, run);
	for (size_t p = 0; p < run->nparts; p++) {
		ol_diag_flush(&run->diags[p]);
		failed |= run->status[p] < 0;
		invalid |= run->status[p] == 2;
	}
	/* In partition order, whichever thread made them. */
	for (size_t p = 0; !failed && !invalid && p < run->nparts; p++)
		ol_group_keep_remarks(run->g, &run->remarks[p]);
	return failed ? -1 : invalid ? 2 : 0;
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
		prefix = partition_prefix(run, p);
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
		if (!has_code(run, p))
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
		rc = codegen_merged(run, run->products, run->nparts, files);
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
		prefix = partition_prefix(run, p);
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
		if (!has_code(run, p))
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
		*built += has_code(run, p);
	started = ol_stats_now_ms();
	if (rc == 0)
		rc = make_products(run);
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
	split.partition_wanted = partition_wanted;
	split.partition_arg = &run;
	if (run.cache) {
		digests = ol_xcalloc(req->nmodules ? req->nmodules : 1, sizeof(*digests));
		ol_group_bitcode_digests(run.cache, g, digests);
		split.module_digests = (const uint8_t(*)[32])digests;
		split.partition_planned = partition_planned;
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
		rc = lto->merge_before_codegen ? codegen_merged(&run, run.products, run.nparts, files)
					       : write_products(&run, run.products, run.nparts, files);
	release_run(&run);
	free(partition);
	free(digests);
	free(run.prefix);
	return rc ? -1 : 0;
}
