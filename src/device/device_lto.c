/*
 * device_lto: the LTO step of a device link.  The group's bitcode images
 * become one request (ol_group_lto_request) that partitioned_lto.c cuts
 * into partitions (the default), or that the backend links, optimizes and
 * compiles in one piece (--device-lto=full, upstream's way, or bitcode
 * that makes one partition); then the group's other images are written
 * out for the device linker.  The product of one piece beside native
 * objects has its own cache entry, so that an edit of those objects does
 * not optimize and assemble the bitcode again.
 */
#include "target_impl.h"
#include "offload/cache.h"
#include "offload/device_remarks.h"
#include "offload/stats.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/job_key.h"
#include "offload/mapped_file.h"
#include "offload/spawn.h"
#include "offload/temp_names.h"
#include "offload/tempfile.h"
#include "offload/timer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * At least this many object images are packed into one archive when the
 * family allows it: creating and later removing a temp file costs ~80 us
 * here, a tenth of a second-long link for 200 translation units.
 */
#define PACK_MIN_IMAGES 8

/* Symbols the LTO result must keep: what the group's native objects use. */
static const char **symbols_needed_by_objects(const struct ol_group *g)
{
	size_t n = 0, k = 0;
	const char **out;

	for (size_t i = 0; i < g->nimages; i++)
		if (!ol_image_is_bitcode(g->images[i]))
			n += g->images[i]->symbols.n;
	out = ol_xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < g->nimages; i++) {
		const struct ol_device_image *img = g->images[i];
		if (ol_image_is_bitcode(img))
			continue;
		for (size_t s = 0; s < img->symbols.n; s++)
			if (!img->symbols.v[s].defined)
				out[k++] = img->symbols.v[s].name;
	}
	out[k] = NULL;
	return out;
}

static void trace_phase(const char *name, int begin)
{
	if (begin)
		ol_timer_begin(name);
	else
		ol_timer_end();
}

/* The LTO result's file name: "<exe>.<triple>.<arch>.{o,s}", as upstream
 * names it ("<exe>-jit-<triple>.bc" for bitcode that stops before codegen). */
static char *lto_output_prefix(const struct ol_group *g, const struct ol_link_context *ctx,
			       const struct ol_lto_settings *lto)
{
	return lto->emit_bitcode ? ol_xasprintf("%s-jit-%s", ctx->exe_name, g->triple)
				 : ol_xasprintf("%s.%s.%s", ctx->exe_name, g->triple, g->arch);
}

static const char *lto_output_ext(const struct ol_lto_settings *lto)
{
	/* PTX is assembly: upstream names it "<exe>.<triple>.<arch>.s". */
	return lto->emit_bitcode ? "bc" : lto->emit_assembly ? "s" : "o";
}

static void note_lto(const struct ol_group *g, size_t nmodules, int opt_level, const char *what)
{
	ol_spawn_note("LTO of %zu bitcode module%s for %s%s%s at -O%d%s", nmodules,
		      nmodules == 1 ? "" : "s", g->triple, *g->arch ? " " : "", g->arch, opt_level,
		      what);
}

/* --dry-run: the commands that follow name the LTO result, which is not
 * made (no bitcode is read, no code generated). */
static int lto_output_name_only(const struct ol_group *g, const struct ol_link_context *ctx,
				const struct ol_lto_settings *lto, struct strvec *files)
{
	char *prefix = lto_output_prefix(g, ctx, lto);
	const char *path = ol_temp_create(prefix, lto_output_ext(lto), NULL);
	size_t n = 0;

	for (size_t i = 0; i < g->nimages; i++)
		n += ol_image_is_bitcode(g->images[i]);
	note_lto(g, n, g->opt_level, " (not run: --dry-run)");

	free(prefix);
	if (!path)
		return -1;
	strvec_push(files, path);
	return 0;
}

void ol_group_lto_request(struct ol_group *g, const struct ol_link_context *ctx,
			  const struct ol_lto_settings *lto, struct ol_lto_request *req)
{
	const uint8_t **modules = ol_xcalloc(g->nimages ? g->nimages : 1, sizeof(*modules));
	size_t *sizes = ol_xcalloc(g->nimages ? g->nimages : 1, sizeof(*sizes));
	const char **names = ol_xcalloc(g->nimages ? g->nimages : 1, sizeof(*names));
	size_t n = 0;

	for (size_t i = 0; i < g->nimages; i++) {
		if (!ol_image_is_bitcode(g->images[i]))
			continue;
		modules[n] = g->images[i]->bin.image;
		sizes[n] = g->images[i]->bin.image_size;
		names[n] = g->images[i]->owner ? g->images[i]->owner->display : "<input>";
		n++;
	}
	memset(req, 0, sizeof(*req));
	req->triple = g->triple;
	req->cpu = lto->cpu ? lto->cpu : "";
	req->features = lto->features ? lto->features : "";
	req->opt_level = g->opt_level;
	req->debug = g->debug;
	req->modules = modules;
	req->sizes = sizes;
	req->names = names;
	req->nmodules = n;
	req->preserve = symbols_needed_by_objects(g);
	req->whole_program = n == g->nimages;
	req->first_definition_prevails = ctx->flavor != OL_FLAVOR_22;
	req->emit_assembly = lto->emit_assembly;
	req->emit_bitcode = lto->emit_bitcode;
	req->phase = trace_phase;
	req->remarks = g->remarks;
	req->builtins = g->builtins;
	req->builtin_sizes = g->builtin_sizes;
	req->builtin_names = g->builtin_names;
	req->nbuiltins = g->nbuiltins;
}

void ol_group_lto_request_release(struct ol_lto_request *req)
{
	free((void *)req->preserve);
	free((void *)req->modules);
	free((void *)req->sizes);
	free((void *)req->names);
	memset(req, 0, sizeof(*req));
}

/* What the one-module LTO of a group makes, as its cache key names it and
 * as its file is named: PTX goes on to the family's assembler. */
static const char *whole_product_ext(const struct ol_lto_settings *lto)
{
	return lto->assemble && !lto->emit_bitcode ? lto->assembled_ext : lto_output_ext(lto);
}

/* The LTO result, the last of `files`, becomes the object the family's
 * assembler makes of it, if the family has one; *product_out gets the
 * product's bytes when wanted (for the cache): `out` itself, or the
 * assembler's output read back. */
static int finish_lto_product(const struct ol_group *g, const struct ol_link_context *ctx,
			      const struct ol_lto_settings *lto, struct ol_buffer *out,
			      struct ol_buffer *product_out, struct strvec *files)
{
	char **last = &files->v[files->nr - 1];
	const char *assembled;

	if (!lto->assemble || lto->emit_bitcode) {
		if (product_out) {
			*product_out = *out;
			out->data = NULL;
			out->size = 0;
		}
		return 0;
	}
	if (!(assembled = lto->assemble(g, ctx, *last)))
		return -1;
	free(*last);
	*last = ol_xstrdup(assembled);
	if (product_out && ol_read_whole_file(assembled, &product_out->data,
					      &product_out->size) < 0)
		return ol_error("cannot read '%s': %s", assembled, strerror(errno));
	return 0;
}

/* The product of the group's bitcode from the cache (1, on `files`), when
 * the group has native objects too (a bitcode runtime beside units
 * compiled without -foffload-lto): an edit of those objects then links
 * them again without optimizing and assembling the unchanged bitcode. */
static int whole_product_from_cache(struct ol_group *g, const struct ol_link_context *ctx,
				    const struct ol_lto_settings *lto,
				    const struct ol_lto_request *req, const char *prefix,
				    char key[OL_CACHE_KEY_HEX], struct strvec *files)
{
	struct ol_cache_lookup found;
	struct ol_buffer remarks = { NULL, 0 }, product;
	int rc;

	ol_lto_product_job_key(ctx->cache, g, ctx, whole_product_ext(lto), req, key);
	if (!ol_cache_get(ctx->cache, key, &found))
		return 0;
	if (!ol_remarks_cache_get(ctx->cache, g, key, &remarks)) {
		free(found.data);
		return 0;
	}
	ol_group_keep_remarks(g, &remarks);
	ol_spawn_note("LTO of %zu bitcode module%s for %s%s%s: from the device-link cache "
		      "(its product, apart from the native objects beside it)", req->nmodules,
		      req->nmodules == 1 ? "" : "s", g->triple, *g->arch ? " " : "", g->arch);
	product.data = found.data;
	product.size = found.size;
	rc = ol_group_add_lto_output(g, prefix, whole_product_ext(lto), &product, files);
	free(found.data);
	return rc < 0 ? -1 : 1;
}

int ol_group_run_lto(struct ol_group *g, const struct ol_link_context *ctx,
		     const struct ol_lto_settings *lto, struct strvec *files)
{
	const struct ol_backend *be;
	struct ol_lto_request req;
	struct ol_buffer out = { NULL, 0 }, remarks = { NULL, 0 }, product = { NULL, 0 };
	char key[OL_CACHE_KEY_HEX];
	char *err = NULL, *prefix;
	int rc, use_cache = 0;

	if (ol_spawn_config()->dry_run)
		return lto_output_name_only(g, ctx, lto, files);
	be = ol_backend_get();
	if (!be)
		return -1;
	ol_group_lto_request(g, ctx, lto, &req);
	/* --embed-bitcode wants one optimized module for the JIT; and bitcode
	 * that forms one partition is one module, linked as upstream does. */
	if (!lto->emit_bitcode && ol_group_partition_count(g) > 1) {
		rc = ol_group_run_partitioned_lto(g, ctx, lto, &req, files);
		if (rc != 1) {
			ol_group_lto_request_release(&req);
			return rc;
		}
	}
	prefix = lto_output_prefix(g, ctx, lto);
	if (ctx->cl->save_temps)
		req.save_temps_prefix = prefix;
	/* A group of bitcode alone is cached whole, as its image; one with
	 * native objects keeps its bitcode's product apart (not when
	 * --save-temps asks for the files made). */
	use_cache = ctx->cache && !ctx->cl->save_temps && !req.whole_program;
	rc = use_cache ? whole_product_from_cache(g, ctx, lto, &req, prefix, key, files) : 0;
	if (rc != 0) {
		ol_group_lto_request_release(&req);
		free(prefix);
		return rc < 0 ? -1 : 0;
	}

	note_lto(g, req.nmodules, req.opt_level, "");
	ol_timer_begin_detail("LTO", prefix);
	rc = ol_lto_within_budget(be, &req, &out, &remarks, &err);
	ol_timer_end();
	if (rc != 0) {
		ol_group_keep_remarks(g, &remarks);
		ol_group_lto_failed(g, "", err);
	} else {
		rc = ol_group_add_lto_output(g, prefix, lto_output_ext(lto), &out, files);
		if (rc == 0)
			rc = finish_lto_product(g, ctx, lto, &out, use_cache ? &product : NULL,
						files);
		if (rc == 0 && use_cache) {
			ol_cache_put(ctx->cache, key, product.data, product.size);
			ol_remarks_cache_put(ctx->cache, g, key, &remarks);
		}
		ol_group_keep_remarks(g, &remarks);
	}
	free(product.data);
	free(out.data);
	ol_group_lto_request_release(&req);
	free(prefix);
	return rc ? -1 : 0;
}

/* Partitioned LTO on a group it cannot change.  When an option asked for
 * it, a warning says so once, with what would make it apply, rather than
 * link as if it had, and the statistics say why; the default asks nothing,
 * and only a group with bitcode kept whole is worth a record then. */
static void note_nothing_to_partition(const struct ol_group *g, const struct ol_lto_settings *lto,
				      size_t native)
{
	const char *origin = g->lto_partition_origin;
	struct ol_stats_partitions stats = { 0 };
	char image[160];

	if (native < g->nimages && !lto->emit_bitcode)
		return;
	ol_group_image_name(g, image, sizeof(image));
	if (origin || native < g->nimages) {
		stats.why_whole = native == g->nimages ? "no device bitcode (compiled without -foffload-lto)"
						       : "--embed-bitcode makes one module for the JIT";
		ol_stats_partitioned(image, &stats);
	}
	if (!origin)
		return;
	if (native == g->nimages)
		ol_warn("%s: nothing to partition for %s: its %zu device image%s %s machine "
			"code, not bitcode (compile with -foffload-lto to optimize device code at "
			"link time)", origin, image, g->nimages,
			g->nimages == 1 ? "" : "s", g->nimages == 1 ? "is" : "are");
	else
		ol_warn("%s: nothing to partition for %s: --embed-bitcode makes one optimized "
			"module for the JIT", origin, image);
}

int ol_group_prepare_lto_inputs(struct ol_group *g, const struct ol_link_context *ctx,
				const struct ol_lto_settings *lto, struct strvec *files)
{
	size_t native = 0;

	for (size_t i = 0; i < g->nimages; i++)
		native += !ol_image_is_bitcode(g->images[i]);
	if (g->lto_partition_units)
		note_nothing_to_partition(g, lto, native);
	if (native < g->nimages && ol_group_run_lto(g, ctx, lto, files) < 0)
		return -1;
	if (lto->whole_archive_on && native >= PACK_MIN_IMAGES)
		return ol_group_pack_images(g, ctx, lto, files);
	return ol_group_write_images(g, 0, lto->image_ext, files);
}

