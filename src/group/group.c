/*
 * group: the selected device images, grouped by target ID, one device link
 * per group (upstream-spec 4.1).
 *
 * Images come in ol_resolve_link_order(): non-archive inputs and
 * --whole-archive members first, then the other loaded members, in
 * command-line order, then the images selected only for their device
 * symbols.  Which groups each one joins is the rule of group_plan.c (the
 * one resolve follows too): its own group, made on first sight, and with
 * 19/22 rules every compatible group made before it; a device-only image
 * joins the groups that exist and starts none.  One image may sit in
 * several groups; groups hold pointers to the images, which stay views of
 * the inputs.
 *
 * The group's triple and arch are its first image's.  A triple no target
 * family handles is an error, with upstream's text "<arch> linking is not
 * supported" (the triple's architecture name).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload/arena.h"
#include "offload/bitcode_header.h"
#include "offload/cmdline.h"
#include "offload/device_link.h"
#include "offload/group.h"
#include "offload/group_plan.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/mapped_file.h"
#include "offload/offload_binary.h"
#include "offload/resolve.h"
#include "offload/target_id.h"

/* A group being built: its images in a growable array. */
struct building {
	struct ol_device_image **images;
	size_t n, cap;
};

/* The plan numbers the groups; v[g] holds group g's images. */
struct grouper {
	struct ol_group_plan plan;
	struct building *v;
	size_t n, cap;
};

static void building_add(struct building *b, struct ol_device_image *img)
{
	OL_GROW(b->images, b->n + 1, b->cap, 8);
	b->images[b->n++] = img;
}

static void add_image(struct grouper *gr, struct ol_device_image *img, int primary)
{
	size_t *joins = ol_xcalloc(gr->plan.n + 1, sizeof(*joins));
	size_t njoins = ol_group_plan_place(&gr->plan, img->bin.triple, img->bin.arch, primary, joins);

	if (gr->plan.n > gr->n) {
		OL_GROW(gr->v, gr->plan.n, gr->cap, 8);
		memset(&gr->v[gr->n], 0, (gr->plan.n - gr->n) * sizeof(*gr->v));
		gr->n = gr->plan.n;
	}
	for (size_t k = 0; k < njoins; k++)
		building_add(&gr->v[joins[k]], img);
	free(joins);
}

/* The first bitcode image of a known release among the groups for a
 * triple, or NULL. */
static const struct ol_device_image *first_bitcode_of_triple(const struct ol_groups *groups,
							      const char *triple)
{
	for (size_t g = 0; g < groups->n; g++) {
		if (strcmp(groups->v[g].triple, triple) != 0)
			continue;
		for (size_t k = 0; k < groups->v[g].nimages; k++) {
			const struct ol_device_image *img = groups->v[g].images[k];

			if (img->owner && img->owner->clang_major && ol_image_is_bitcode(img))
				return img;
		}
	}
	return NULL;
}

/* The group's first image whose kind is one of `kinds`, or NULL. */
static const struct ol_device_image *first_of_kinds(const struct ol_group *grp, unsigned kinds)
{
	for (size_t k = 0; k < grp->nimages; k++)
		if (grp->images[k]->bin.offload_kind & kinds)
			return grp->images[k];
	return NULL;
}

static const char *owner_name(const struct ol_device_image *img)
{
	return img->owner ? img->owner->display : "the inputs";
}

/* "sycl", "openmp/cuda": the names of a set of kinds. */
static void kind_names(unsigned kinds, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned bit = 1; bit <= OL_OFK_SYCL; bit <<= 1)
		if ((kinds & bit) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "/" : "",
						ol_offload_kind_name((enum ol_offload_kind)bit));
}

/* What the group's offload kinds allow, decided before any device link
 * runs: SYCL exists only in 22 and is never linked with another kind
 * (upstream 22's rule and message), and a target family links only the
 * kinds its row names. */
static int check_kinds(const struct ol_group *grp, enum ol_flavor flavor)
{
	const struct ol_device_image *sycl = first_of_kinds(grp, OL_OFK_SYCL);
	const struct ol_device_image *other = first_of_kinds(grp, ~(unsigned)OL_OFK_SYCL);
	const struct ol_device_image *foreign;
	char names[64];

	if (sycl && flavor != OL_FLAVOR_22)
		return ol_error_at(&sycl->loc, "SYCL device code needs clang-linker-wrapper 22, and "
				   "this link behaves as %d (--offload-abi=22 selects 22)",
				   (int)flavor);
	if (sycl && other) {
		ol_error_at(&other->loc, "Linking images of SYCL offload kind with images of any "
			    "other kind is not supported");
		ol_note("this %s image and the SYCL image of %s are both for '%s'%s%s",
			ol_offload_kind_name(other->bin.offload_kind), owner_name(sycl),
			grp->triple, *grp->arch ? " " : "", grp->arch);
		return -1;
	}
	foreign = grp->target->kinds ? first_of_kinds(grp, ~grp->target->kinds) : NULL;
	if (foreign) {
		kind_names(grp->target->kinds, names, sizeof(names));
		return ol_error_at(&foreign->loc, "%s device code for '%s' is not supported: the "
				   "'%s' target family links %s images only",
				   ol_offload_kind_name(foreign->bin.offload_kind), grp->triple,
				   grp->target->name, names);
	}
	return 0;
}

/*
 * Device bitcode of two clang releases for one triple cannot be linked:
 * upstream's LTO rejects the newer summary, and the releases' device
 * runtimes and registration layouts differ.  The release is the object's
 * producer (.comment), which compiled its device code too.
 */
static int check_bitcode_releases(const struct ol_groups *groups)
{
	for (size_t g = 0; g < groups->n; g++) {
		for (size_t k = 0; k < groups->v[g].nimages; k++) {
			const struct ol_device_image *img = groups->v[g].images[k], *first;
			int major = img->owner ? img->owner->clang_major : 0;

			if (!major || !ol_image_is_bitcode(img))
				continue;
			first = first_bitcode_of_triple(groups, groups->v[g].triple);
			if (!first || first->owner->clang_major == major)
				continue;
			ol_error_at(&img->loc, "device bitcode for '%s' from clang %d cannot be linked "
				    "with device bitcode from clang %d", groups->v[g].triple, major,
				    first->owner->clang_major);
			ol_note("'%s' was compiled by clang %d, '%s' by clang %d: compile every "
				"input of an offloading link with one clang release", first->owner->display,
				first->owner->clang_major, img->owner->display, major);
			return -1;
		}
	}
	return 0;
}

/*
 * --bitcode-library=<kind>-<triple>-<arch>=<path> (16, 19): the file joins
 * the device link of that exact target ID as one more bitcode image, as
 * upstream wraps it in an OffloadBinary of its own (spec 3.6: the spec is
 * split at the first '=', its left side at the last '-', then at the first
 * '-').  Only a link that exists takes it: a library alone is no device code.
 */
static struct ol_device_image *bitcode_library(const char *spec, enum ol_offload_kind *kind,
					       const char **triple, const char **arch)
{
	const char *eq = strchr(spec, '='), *kind_dash = NULL, *arch_dash = NULL, *why;
	struct ol_mapped_file *mf;
	struct ol_device_image *img;
	struct ol_object *obj;
	char *kind_name;
	uint64_t bad;

	if (eq) {
		kind_dash = memchr(spec, '-', (size_t)(eq - spec));
		arch_dash = memrchr(spec, '-', (size_t)(eq - spec));
	}
	if (!kind_dash || arch_dash == kind_dash || arch_dash == kind_dash + 1) {
		ol_error("--bitcode-library=%s: expected <kind>-<triple>-<arch>=<file>", spec);
		return NULL;
	}
	kind_name = ol_arena_strndup(&ol_link_arena, spec, (size_t)(kind_dash - spec));
	*kind = ol_offload_kind_from_name(kind_name);
	if (*kind == OL_OFK_NONE) {
		ol_error("--bitcode-library=%s: unknown offload kind '%s'", spec, kind_name);
		return NULL;
	}
	*triple = ol_arena_strndup(&ol_link_arena, kind_dash + 1, (size_t)(arch_dash - kind_dash - 1));
	*arch = ol_arena_strndup(&ol_link_arena, arch_dash + 1, (size_t)(eq - arch_dash - 1));
	mf = ol_map_file_reported(eq + 1, "bitcode library");
	if (!mf)
		return NULL;
	if (ol_bitcode_header_check(mf->data, mf->size, &why, &bad) < 0) {
		ol_error("--bitcode-library: '%s' at offset 0x%llx: %s", eq + 1,
			 (unsigned long long)bad, why);
		return NULL;
	}
	obj = ol_arena_alloc(&ol_link_arena, sizeof(*obj));
	img = ol_arena_alloc(&ol_link_arena, sizeof(*img));
	memset(obj, 0, sizeof(*obj));
	memset(img, 0, sizeof(*img));
	obj->display = obj->path = ol_arena_strdup(&ol_link_arena, eq + 1);
	obj->kind = OL_IN_BITCODE;
	obj->data = mf->data;
	obj->size = mf->size;
	obj->images = img;
	obj->nimages = 1;
	img->owner = obj;
	img->loc.file = obj->path;
	img->bin.data = img->bin.image = mf->data;
	img->bin.size = img->bin.image_size = mf->size;
	img->bin.version = 1;
	img->bin.image_kind = OL_IMG_BITCODE;
	img->bin.offload_kind = *kind;
	img->bin.offload_kind_raw = (uint16_t)*kind;
	img->bin.triple = *triple;
	img->bin.arch = *arch;
	img->selected = 1;
	return img;
}

static int add_bitcode_libraries(struct grouper *gr, const struct ol_cmdline *cl)
{
	int failed = 0;

	for (size_t i = 0; cl && i < cl->bitcode_library.nr; i++) {
		const char *triple, *arch;
		enum ol_offload_kind kind;
		struct ol_device_image *img = bitcode_library(cl->bitcode_library.v[i], &kind,
							      &triple, &arch);

		if (!img) {
			failed = 1;
			continue;
		}
		for (size_t g = 0; g < gr->n; g++)
			if (!strcmp(gr->plan.v[g].triple, triple) && !strcmp(gr->plan.v[g].arch, arch))
				building_add(&gr->v[g], img);
	}
	return failed ? -1 : 0;
}

int ol_group_images(struct ol_inputs *in, const struct ol_link_context *ctx,
		    struct ol_groups *out)
{
	struct grouper gr = { .plan = { .exact = ctx->flavor == OL_FLAVOR_16 } };
	struct ol_linked_image *order;
	size_t norder, nout = 0;
	int failed = 0;

	out->v = NULL;
	out->n = 0;
	order = ol_resolve_link_order(in, &norder);

	/* An image without a triple cannot be linked for anything. */
	for (size_t i = 0; i < norder; i++)
		if (!order[i].image->bin.triple || !*order[i].image->bin.triple) {
			ol_error_at(&order[i].image->loc, "device image has no target triple");
			failed = 1;
		}
	for (size_t i = 0; i < norder && !failed; i++)
		add_image(&gr, order[i].image, order[i].primary);
	free(order);
	if (!failed && add_bitcode_libraries(&gr, ctx->cl) < 0)
		failed = 1;

	if (gr.n)
		out->v = ol_arena_alloc(&ol_link_arena, gr.n * sizeof(*out->v));
	for (size_t g = 0; g < gr.n; g++) {
		struct building *b = &gr.v[g];
		const struct ol_planned_group *id = &gr.plan.v[g];
		struct ol_group *grp = &out->v[nout];
		const struct ol_target *target = ol_target_for(id->triple);

		if (!target) {
			ol_error_at(&b->images[0]->loc, "%.*s linking is not supported",
				    (int)ol_triple_arch_len(id->triple), id->triple);
			ol_note("the image's triple is '%s'", id->triple);
			failed = 1;
			free(b->images);
			continue;
		}
		memset(grp, 0, sizeof(*grp));
		grp->triple = id->triple;
		/* 22 passes --arch= empty for the "generic" arch. */
		grp->arch = ctx->flavor == OL_FLAVOR_22 && !strcmp(id->arch, "generic") ? "" : id->arch;
		grp->target = target;
		grp->images = ol_arena_alloc(&ol_link_arena, b->n * sizeof(*grp->images));
		memcpy(grp->images, b->images, b->n * sizeof(*grp->images));
		grp->nimages = b->n;
		for (size_t k = 0; k < b->n; k++)
			grp->kinds |= (unsigned)b->images[k]->bin.offload_kind;
		free(b->images);

		if (check_kinds(grp, ctx->flavor) < 0) {
			failed = 1;
			continue;
		}
		nout++;
	}
	free(gr.v);
	ol_group_plan_release(&gr.plan);
	out->n = nout;
	if (!failed && check_bitcode_releases(out) < 0)
		failed = 1;
	for (size_t g = 0; !failed && g < out->n; g++)
		if (ol_group_prepare(&out->v[g], ctx) < 0)
			failed = 1;
	return failed ? -1 : 0;
}
