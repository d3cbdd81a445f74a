/*
 * partition_products: each partition's products in a partitioned LTO
 * (partition_run.h; docs/design/partitioned-lto.md): looked up in the
 * device-link cache by its plan key before split() cuts it and by its key
 * once cut, else optimized alone (and, where the family compiles partitions
 * apart, compiled and assembled) on whichever thread of the link's pool
 * takes it, or by the distributor; what was made goes to the cache with its
 * remarks, and a partition's plan entry names its products for the next
 * link.
 */
#include "partition_run.h"
#include "offload/device_remarks.h"
#include "offload/job_key.h"
#include "offload/mapped_file.h"
#include "offload/pool.h"
#include "offload/stats.h"
#include "offload/tempfile.h"
#include "offload/timer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "<exe>.<triple>.<arch>.part<p>", the names of a partition's files; a
 * link of one partition names them as full LTO does. */
char *ol_partition_prefix(const struct partition_run *run, size_t p)
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
	prefix = ol_partition_prefix(run, p);
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
int ol_partitions_codegen_merged(struct partition_run *run, struct ol_buffer *products, size_t n,
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
int ol_partition_planned(void *arg, size_t p, const uint8_t plan[32])
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
 * ol_partition_wanted()). */
int ol_partition_has_code(const struct partition_run *run, size_t p)
{
	return run->keys[p].size != 0;
}

/* Whether partition p still has something to build. */
static int partition_missing(const struct partition_run *run, size_t p)
{
	return ol_partition_has_code(run, p) &&
	       (!run->have_product[p] || (run->lto->codegen_partitions && !run->have_object[p]));
}

/* split()'s question once partition p's key is made: its bitcode is
 * wanted unless the cache has what would be made of it. */
int ol_partition_wanted(void *arg, size_t p, const struct ol_buffer *key)
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

	if (!ol_partition_has_code(run, p))
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
int ol_partitions_make_products(struct partition_run *run)
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
