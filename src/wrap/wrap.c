/*
 * wrap: from linked device images to the registration objects of the host
 * link.  One object per offload kind, kinds in first-seen order (19/22).
 * Each kind's images are sorted as upstream sorts them, bundled the kind's
 * way (bundle_*.c: OffloadBinaries, a CUDA fatbinary, a HIP offload bundle)
 * and handed to the backend, which builds the registration module of the
 * chosen flavor and compiles it in-process.
 */
#include "offload/wrap.h"
#include "bundle.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/spawn.h"
#include "offload/temp_names.h"
#include "offload/tempfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What each offload kind does.  `prefix` names the registration module's
 * files after the output, as upstream: "<exe>.<kind>.image.wrapper" (16:
 * "<exe>.image.wrapper"). */
struct kind_wrapper {
	enum ol_offload_kind kind;
	const char *title;            /* for messages */
	enum ol_wrap_kind wrap_kind;
	int (*bundle)(const struct ol_kind_images *images, const struct ol_link_context *ctx,
		      struct ol_bundled *out);
};

static const struct kind_wrapper kind_wrappers[] = {
	{ OL_OFK_OPENMP, "OpenMP", OL_WRAP_OPENMP, ol_bundle_openmp },
	{ OL_OFK_CUDA, "CUDA", OL_WRAP_CUDA, ol_bundle_cuda },
	{ OL_OFK_HIP, "HIP", OL_WRAP_HIP, ol_bundle_hip },
	{ OL_OFK_SYCL, "SYCL", OL_WRAP_SYCL, ol_bundle_sycl },
};

static const struct kind_wrapper *wrapper_for(enum ol_offload_kind kind)
{
	for (size_t i = 0; i < sizeof(kind_wrappers) / sizeof(kind_wrappers[0]); i++)
		if (kind_wrappers[i].kind == kind)
			return &kind_wrappers[i];
	return NULL;
}

/* Upstream sorts each kind's images with "A.triple > B.triple || A.arch >
 * B.arch"; a stable sort on (triple, arch) descending gives the same order
 * for every input upstream orders consistently, and is deterministic. */
static int image_order(const struct ol_group *a, const struct ol_group *b)
{
	int c = strcmp(b->triple, a->triple);
	return c ? c : strcmp(b->arch, a->arch);
}

static void sort_groups(const struct ol_group **v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		const struct ol_group *key = v[i];
		size_t j = i;
		while (j > 0 && image_order(v[j - 1], key) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = key;
	}
}

/* The groups that carry images of `kind`, sorted (the caller frees v). */
static void collect_kind(const struct ol_groups *groups, enum ol_offload_kind kind,
			 struct ol_kind_images *out)
{
	out->kind = kind;
	out->groups = ol_xcalloc(groups->n ? groups->n : 1, sizeof(*out->groups));
	out->n = 0;
	for (size_t i = 0; i < groups->n; i++)
		if (groups->v[i].kinds & kind)
			out->groups[out->n++] = &groups->v[i];
	sort_groups(out->groups, out->n);
}

/* The kinds present in upstream's order: groups in order and, within a
 * group, its kinds by value (22 iterates a bitmask, 16 and 19 an ordered
 * set), each kind where it first appears. */
static size_t kinds_in_order(const struct ol_groups *groups, enum ol_offload_kind *order)
{
	size_t n = 0;
	unsigned seen = 0;

	for (size_t i = 0; i < groups->n; i++)
		for (unsigned bit = OL_OFK_OPENMP; bit <= OL_OFK_SYCL; bit <<= 1)
			if ((groups->v[i].kinds & bit) && !(seen & bit)) {
				seen |= bit;
				order[n++] = (enum ol_offload_kind)bit;
			}
	return n;
}

static int wrap_kind(const struct kind_wrapper *kw, const struct ol_bundled *bundled,
		     const struct ol_link_context *ctx, const char **object_out)
{
	const struct ol_backend *be;
	struct ol_wrap_request req;
	struct ol_buffer obj = { NULL, 0 };
	char *ir = NULL, *err = NULL, *prefix, *bc_path = NULL;
	int dry_run = ol_spawn_config()->dry_run;
	int rc = 0;

	prefix = ctx->flavor == OL_FLAVOR_16
			 ? ol_xasprintf("%s.image.wrapper", ctx->exe_name)
			 : ol_xasprintf("%s.%s.image.wrapper", ctx->exe_name, ol_offload_kind_name(kw->kind));
	/* --dry-run builds the module only to print it, and compiles nothing:
	 * the host line names the object it would be. */
	if (dry_run && !ctx->cl->print_wrapped_module) {
		*object_out = ol_temp_create(prefix, "o", NULL);
		free(prefix);
		return *object_out ? 0 : -1;
	}
	be = ol_backend_get();
	if (!be) {
		free(prefix);
		return -1;
	}
	if (ctx->cl->save_temps && ctx->flavor != OL_FLAVOR_16 && !dry_run)
		bc_path = ol_xasprintf("%s.bc", prefix);

	memset(&req, 0, sizeof(req));
	req.kind = kw->wrap_kind;
	req.flavor = (int)ctx->flavor;
	req.host_triple = ctx->cl->host_triple;
	req.images = (const uint8_t *const *)bundled->data;
	req.sizes = bundled->size;
	req.nimages = bundled->n;
	req.relocatable = ctx->cl->relocatable;
	req.want_ir = ctx->cl->print_wrapped_module;
	req.save_bc_path = bc_path;
	req.sycl_images = bundled->sycl_images;
	req.nsycl_images = bundled->nsycl_images;

	ol_spawn_note("wrapping %zu %s image%s for %s", bundled->n, kw->title,
		      bundled->n == 1 ? "" : "s", req.host_triple);
	if (be->wrap(&req, dry_run ? NULL : &obj, &ir, &err) != 0) {
		rc = ol_error("cannot build the %s registration module: %s", kw->title,
			      err ? err : "unknown error");
	} else {
		if (ir) {
			fputs(ir, stderr);
			fflush(stderr);
		}
		*object_out = ol_temp_write(prefix, "o", obj.data, obj.size);
		ol_temp_name_describe(*object_out, "[the %s registration object]", kw->title);
		if (!*object_out)
			rc = -1;
	}
	free(obj.data);
	free(ir);
	free(err);
	free(prefix);
	free(bc_path);
	return rc;
}

int ol_wrap_check_kinds(const struct ol_groups *groups)
{
	unsigned reported = 0;
	int rc = 0;

	for (size_t i = 0; i < groups->n; i++) {
		const struct ol_group *g = &groups->v[i];

		for (size_t k = 0; k < g->nimages; k++) {
			const struct ol_device_image *img = g->images[k];
			enum ol_offload_kind kind = img->bin.offload_kind;

			/* A kind no release knows (0x77) would be linked and
			 * then dropped without a word: a program missing code. */
			if (kind == OL_OFK_NONE && img->bin.offload_kind_raw != 0) {
				rc = ol_error_at(&img->loc, "unknown offload kind %#x",
						 (unsigned)img->bin.offload_kind_raw);
				continue;
			}
			if (kind == OL_OFK_NONE || wrapper_for(kind) || (reported & kind))
				continue;
			reported |= kind;
			rc = ol_error_at(&img->loc, "%s bundling is not supported",
					 ol_offload_kind_name(kind));
		}
	}
	return rc;
}

/* Bundles one kind's images the kind's way; `kw` is set to its row. */
static int bundle_kind(const struct ol_groups *groups, enum ol_offload_kind kind,
		       const struct ol_link_context *ctx, const struct kind_wrapper **kw,
		       struct ol_bundled *bundled)
{
	struct ol_kind_images images;
	int rc;

	memset(bundled, 0, sizeof(*bundled));
	*kw = wrapper_for(kind);
	if (!*kw)
		return ol_error("%s bundling is not supported", ol_offload_kind_name(kind));
	collect_kind(groups, kind, &images);
	rc = (*kw)->bundle(&images, ctx, bundled);
	free(images.groups);
	return rc;
}

int ol_wrap_write_fat_binary(const struct ol_groups *groups, const struct ol_link_context *ctx)
{
	enum ol_offload_kind order[8];
	size_t nkinds = kinds_in_order(groups, order), nbundles = 0;
	struct ol_bundled bundled[8];
	const uint8_t *data = NULL;
	size_t size = 0;
	int rc = 0;

	for (size_t i = 0; i < nkinds; i++) {
		const struct kind_wrapper *kw;

		if (bundle_kind(groups, order[i], ctx, &kw, &bundled[i]) < 0)
			rc = -1;
		nbundles += bundled[i].n;
		if (bundled[i].n == 1) {
			data = bundled[i].data[0];
			size = bundled[i].size[0];
		}
	}
	if (rc == 0 && nbundles == 0)
		rc = ol_error("--emit-fatbin-only: the inputs carry no device code, so there is no "
			      "fat binary to write");
	else if (rc == 0 && nbundles != 1)
		rc = ol_error("--emit-fatbin-only writes one fat binary, but this link makes %zu "
			      "(one per offload kind and target): link them separately", nbundles);
	if (rc == 0 && !ol_spawn_config()->dry_run)
		rc = ol_write_file_atomic(ctx->cl->output, data, size);
	for (size_t i = 0; i < nkinds; i++)
		ol_bundled_release(&bundled[i]);
	return rc;
}

int ol_wrap_all(const struct ol_groups *groups, const struct ol_link_context *ctx,
		struct ol_wrapped *out)
{
	enum ol_offload_kind order[8];
	size_t nkinds = kinds_in_order(groups, order);
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->objects = ol_arena_alloc(&ol_link_arena, (nkinds + 1) * sizeof(*out->objects));
	for (size_t i = 0; i < nkinds && rc == 0; i++) {
		const struct kind_wrapper *kw;
		struct ol_bundled bundled;
		const char *object = NULL;

		rc = bundle_kind(groups, order[i], ctx, &kw, &bundled);
		if (rc == 0)
			rc = wrap_kind(kw, &bundled, ctx, &object);
		if (rc == 0)
			out->objects[out->nobjects++] = object;
		ol_bundled_release(&bundled);
	}
	out->objects[out->nobjects] = NULL;
	return rc;
}
