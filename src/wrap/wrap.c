/*
 * wrap: from linked device images to the registration objects of the host
 * link.  One object per offload kind, kinds in first-seen order (19/22).
 * OpenMP images are each packaged as an OffloadBinary {triple, arch}; the
 * backend builds the module (upstream layout of the chosen flavor) and
 * compiles it in-process.
 */
#include "offload/wrap.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/offload_binary.h"
#include "offload/spawn.h"
#include "offload/tempfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int wrap_openmp(const struct ol_groups *groups, const struct ol_link_context *ctx,
		       const char **object_out)
{
	const struct ol_backend *be = ol_backend_get();
	const struct ol_group **members;
	uint8_t **binaries;
	size_t *sizes, n = 0;
	struct ol_wrap_request req;
	struct ol_buffer obj = { NULL, 0 };
	char *ir = NULL, *err = NULL, *prefix, *bc_path = NULL;
	int rc = 0;

	if (!be)
		return -1;
	members = ol_xcalloc(groups->n, sizeof(*members));
	for (size_t i = 0; i < groups->n; i++)
		if (groups->v[i].kinds & OL_OFK_OPENMP)
			members[n++] = &groups->v[i];
	sort_groups(members, n);

	binaries = ol_xcalloc(n, sizeof(*binaries));
	sizes = ol_xcalloc(n, sizeof(*sizes));
	for (size_t i = 0; i < n; i++) {
		const struct ol_group *g = members[i];
		/* 22 stores a "generic" architecture as the empty string. */
		const char *arch = ctx->flavor >= OL_FLAVOR_22 && strcmp(g->arch, "generic") == 0 ? ""
											   : g->arch;
		struct ol_offload_string strings[2] = { { "triple", g->triple }, { "arch", arch } };
		/* An --override-image file without a CPU name carries no "arch", as upstream. */
		size_t nstrings = g->nimages == 0 && !*arch ? 1 : 2;
		struct ol_offload_binary_desc desc = {
			.image_kind = ctx->cl->embed_bitcode ? OL_IMG_BITCODE : OL_IMG_OBJECT,
			.offload_kind_raw = ol_offload_kind_encode(OL_OFK_OPENMP, ctx->flavor),
			.flags = 0,
			.strings = strings,
			.nstrings = nstrings,
			.image = g->linked.data,
			.image_size = g->linked.size,
		};
		binaries[i] = ol_offload_binary_write(&desc, &sizes[i]);
	}

	prefix = ctx->flavor == OL_FLAVOR_16 ? ol_xasprintf("%s.image.wrapper", ctx->exe_name)
					     : ol_xasprintf("%s.openmp.image.wrapper", ctx->exe_name);
	if (ctx->cl->save_temps && ctx->flavor != OL_FLAVOR_16)
		bc_path = ol_xasprintf("%s.bc", prefix);

	memset(&req, 0, sizeof(req));
	req.kind = OL_WRAP_OPENMP;
	req.flavor = (int)ctx->flavor;
	req.host_triple = ctx->cl->host_triple;
	req.images = (const uint8_t *const *)binaries;
	req.sizes = sizes;
	req.nimages = n;
	req.relocatable = ctx->cl->relocatable;
	req.want_ir = ctx->cl->print_wrapped_module;
	req.save_bc_path = bc_path;

	ol_spawn_note("wrapping %zu OpenMP image%s for %s", n, n == 1 ? "" : "s", req.host_triple);
	if (be->wrap(&req, &obj, &ir, &err) != 0) {
		rc = ol_error("cannot build the OpenMP registration module: %s", err ? err : "unknown error");
	} else {
		if (ir) {
			fputs(ir, stderr);
			fflush(stderr);
		}
		*object_out = ol_temp_write(prefix, "o", obj.data, obj.size);
		if (!*object_out)
			rc = -1;
	}
	for (size_t i = 0; i < n; i++)
		free(binaries[i]);
	free(binaries);
	free(sizes);
	free(members);
	free(obj.data);
	free(ir);
	free(err);
	free(prefix);
	free(bc_path);
	return rc;
}

int ol_wrap_all(const struct ol_groups *groups, const struct ol_link_context *ctx,
		struct ol_wrapped *out)
{
	unsigned kinds = 0;
	const char *object = NULL;

	memset(out, 0, sizeof(*out));
	out->objects = ol_arena_alloc(&ol_link_arena, 4 * sizeof(*out->objects));
	for (size_t i = 0; i < groups->n; i++)
		kinds |= groups->v[i].kinds;

	if (kinds & (OL_OFK_CUDA | OL_OFK_HIP | OL_OFK_SYCL))
		return ol_error("only OpenMP offloading is supported by this version of offload-link; "
				"the inputs also carry %s images",
				kinds & OL_OFK_CUDA ? "CUDA" : kinds & OL_OFK_HIP ? "HIP" : "SYCL");
	if (kinds & OL_OFK_OPENMP) {
		if (wrap_openmp(groups, ctx, &object) < 0)
			return -1;
		out->objects[out->nobjects++] = object;
	}
	out->objects[out->nobjects] = NULL;
	return 0;
}
