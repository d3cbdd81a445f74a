/*
 * Unit tests for ol_group_images(), the rule it shares with resolve
 * (ol_group_plan_place()) and ol_target_ids_compatible(): images
 * grouped by target ID in first-seen order, with upstream 19/22's AMDGPU
 * target-ID compatibility and 16's exact grouping (upstream-spec 4.1).
 * The inputs are built by hand with images already selected, as
 * ol_resolve() leaves them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload/arena.h"
#include "offload/cmdline.h"
#include "offload/device_link.h"
#include "offload/group.h"
#include "offload/group_plan.h"
#include "offload/target_id.h"
#include "offload/diag.h"
#include "offload/inputs.h"

#include "check.h"



#define AMDGPU "amdgcn-amd-amdhsa"
#define NVPTX "nvptx64-nvidia-cuda"
#define X86 "x86_64-unknown-linux-gnu"

struct line {
	struct ol_cmdline cl;
	struct ol_inputs in;
	struct ol_input v[16];
	struct ol_link_context ctx;
	struct ol_groups groups;
};

static void line_init(struct line *l, const char *name, enum ol_flavor flavor)
{
	memset(l, 0, sizeof(*l));
	l->in.v = l->v;
	l->ctx.flavor = flavor;
	l->cl.opt_level = 2;
	l->ctx.cl = &l->cl;
	l->ctx.in = &l->in;
	current_test = name;
}

static struct ol_object *new_object(const char *name)
{
	struct ol_object *o = ol_arena_alloc(&ol_link_arena, sizeof(*o));

	o->display = o->path = name;
	o->kind = OL_IN_OBJECT;
	o->images = ol_arena_alloc(&ol_link_arena, 4 * sizeof(*o->images));
	return o;
}

static struct ol_device_image *add_image(struct ol_object *o, const char *triple, const char *arch,
					 enum ol_offload_kind kind)
{
	struct ol_device_image *img = &o->images[o->nimages++];

	img->bin.triple = triple;
	img->bin.arch = arch;
	img->bin.offload_kind = kind;
	img->owner = o;
	img->loc.file = o->path;
	img->symbols_read = 1;
	img->selected = 1;
	return img;
}

/* An object on the line with one selected image. */
static struct ol_device_image *object_image(struct line *l, const char *name, const char *triple,
					    const char *arch)
{
	struct ol_object *o = new_object(name);
	struct ol_input *in = &l->v[l->in.n++];

	o->loaded = 1;
	in->path = in->spelling = name;
	in->kind = OL_IN_OBJECT;
	in->object = o;
	return add_image(o, triple, arch, OL_OFK_OPENMP);
}

/* An archive with one member; loaded: the host link loads it, else the
 * image was selected for its device symbols only. */
static struct ol_device_image *member_image(struct line *l, const char *name, const char *triple,
					    const char *arch, int loaded)
{
	struct ol_archive *a = ol_arena_alloc(&ol_link_arena, sizeof(*a));
	struct ol_object *o = new_object(name);
	struct ol_input *in = &l->v[l->in.n++];

	a->path = "lib.a";
	a->members = ol_arena_alloc(&ol_link_arena, sizeof(*a->members));
	a->members[a->nmembers++] = o;
	a->has_offloading = 1;
	o->archive = a;
	o->member = name;
	o->loaded = loaded;
	in->path = in->spelling = a->path;
	in->kind = OL_IN_ARCHIVE;
	in->archive = a;
	return add_image(o, triple, arch, OL_OFK_OPENMP);
}

static int group(struct line *l)
{
	return ol_group_images(&l->in, &l->ctx, &l->groups);
}

static int group_is(const struct ol_group *g, const char *triple, const char *arch, size_t n, ...)
{
	va_list ap;
	int ok = !strcmp(g->triple, triple) && !strcmp(g->arch, arch) && g->nimages == n;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		const struct ol_device_image *img = va_arg(ap, const struct ol_device_image *);
		if (ok && g->images[i] != img)
			ok = 0;
	}
	va_end(ap);
	if (!ok) {
		fprintf(stderr, "  group %s/%s has %zu image(s):", g->triple, g->arch, g->nimages);
		for (size_t i = 0; i < g->nimages; i++)
			fprintf(stderr, " %s", g->images[i]->owner->display);
		fprintf(stderr, "\n");
	}
	return ok;
}

static void test_compatibility(void)
{
	current_test = "target id compatibility";
	CHECK(!ol_target_ids_compatible(AMDGPU, "gfx90a", AMDGPU, "gfx90a"));
	CHECK(ol_target_ids_compatible(AMDGPU, "gfx90a", AMDGPU, "gfx90a:xnack+"));
	CHECK(ol_target_ids_compatible(AMDGPU, "gfx90a:xnack-", AMDGPU, "gfx90a"));
	CHECK(!ol_target_ids_compatible(AMDGPU, "gfx90a:xnack+", AMDGPU, "gfx90a:xnack-"));
	CHECK(!ol_target_ids_compatible(AMDGPU, "gfx90a:sramecc+", AMDGPU, "gfx90a:sramecc-"));
	CHECK(ol_target_ids_compatible(AMDGPU, "gfx90a:sramecc+", AMDGPU, "gfx90a:xnack-"));
	CHECK(ol_target_ids_compatible(AMDGPU, "gfx90a:sramecc+:xnack+", AMDGPU,
				       "gfx90a:xnack+"));
	CHECK(!ol_target_ids_compatible(AMDGPU, "gfx90a", AMDGPU, "gfx908"));
	CHECK(!ol_target_ids_compatible(AMDGPU, "gfx90a", AMDGPU, "gfx90a0"));
	CHECK(!ol_target_ids_compatible(AMDGPU, "gfx90a", "amdgcn-amd-amdpal", "gfx90a:xnack+"));
	CHECK(ol_target_ids_compatible(NVPTX, "generic", NVPTX, "sm_80"));
	CHECK(ol_target_ids_compatible(X86, "", X86, "generic"));
	CHECK(!ol_target_ids_compatible(NVPTX, "generic", AMDGPU, "generic") );
	CHECK(!ol_target_ids_compatible(NVPTX, "sm_70", NVPTX, "sm_80"));
	CHECK(!ol_target_ids_compatible(NVPTX, "sm_80:xnack+", NVPTX, "sm_80"));
	CHECK(!ol_target_ids_compatible(NULL, NULL, NULL, NULL));
}

/* The spec's example: A = gfx90a:xnack+, B = gfx90a, C = gfx90a:xnack-. */
static void test_amdgpu_target_ids(void)
{
	if (!ol_target_for(AMDGPU)) {
		printf("test_group: no AMDGPU target family built in; target-id grouping skipped\n");
		return;
	}
	for (int flavor16 = 0; flavor16 < 2; flavor16++) {
		struct line l;
		struct ol_device_image *a, *b, *c;

		line_init(&l, flavor16 ? "amdgpu target ids (16)" : "amdgpu target ids (19/22)",
			  flavor16 ? OL_FLAVOR_16 : OL_FLAVOR_19);
		a = object_image(&l, "a.o", AMDGPU, "gfx90a:xnack+");
		b = object_image(&l, "b.o", AMDGPU, "gfx90a");
		c = object_image(&l, "c.o", AMDGPU, "gfx90a:xnack-");
		CHECK(group(&l) == 0);
		CHECK(l.groups.n == 3);
		if (l.groups.n != 3)
			continue;
		if (flavor16) {
			CHECK(group_is(&l.groups.v[0], AMDGPU, "gfx90a:xnack+", 1, a));
			CHECK(group_is(&l.groups.v[1], AMDGPU, "gfx90a", 1, b));
			CHECK(group_is(&l.groups.v[2], AMDGPU, "gfx90a:xnack-", 1, c));
		} else {
			CHECK(group_is(&l.groups.v[0], AMDGPU, "gfx90a:xnack+", 2, a, b));
			CHECK(group_is(&l.groups.v[1], AMDGPU, "gfx90a", 2, b, c));
			CHECK(group_is(&l.groups.v[2], AMDGPU, "gfx90a:xnack-", 1, c));
		}
		for (size_t g = 0; g < l.groups.n; g++)
			CHECK(l.groups.v[g].target == ol_target_for(AMDGPU));
	}
}

/* First-seen order, objects before archive members whatever the line
 * order, and an image of a target ID seen before joins that group. */
static void test_order(void)
{
	struct line l;
	struct ol_device_image *m1, *o1, *o2, *o3;

	line_init(&l, "first-seen order", OL_FLAVOR_22);
	m1 = member_image(&l, "m1.o", X86, "znver3", 1);
	o1 = object_image(&l, "o1.o", X86, "");
	o2 = object_image(&l, "o2.o", "aarch64-unknown-linux-gnu", "");
	o3 = object_image(&l, "o3.o", X86, "");
	CHECK(group(&l) == 0);
	CHECK(l.groups.n == 3);
	if (l.groups.n == 3) {
		CHECK(group_is(&l.groups.v[0], X86, "", 2, o1, o3));
		CHECK(group_is(&l.groups.v[1], "aarch64-unknown-linux-gnu", "", 1, o2));
		CHECK(group_is(&l.groups.v[2], X86, "znver3", 1, m1));
		CHECK(l.groups.v[0].target && l.groups.v[0].target == ol_target_for(X86));
		CHECK(l.groups.v[0].kinds == OL_OFK_OPENMP);
	}
}

/* "generic" is compatible with every arch of its triple; 22 links it with
 * an empty arch, 19 keeps the name.  One image may sit in two groups. */
static void test_generic(void)
{
	for (int flavor22 = 0; flavor22 < 2; flavor22++) {
		struct line l;
		struct ol_device_image *gen, *spec1, *spec2;

		line_init(&l, flavor22 ? "generic arch (22)" : "generic arch (19)",
			  flavor22 ? OL_FLAVOR_22 : OL_FLAVOR_19);
		gen = object_image(&l, "gen.o", X86, "generic");
		spec1 = object_image(&l, "spec1.o", X86, "znver3");
		spec2 = object_image(&l, "spec2.o", X86, "skylake");
		CHECK(group(&l) == 0);
		CHECK(l.groups.n == 3);
		if (l.groups.n != 3)
			continue;
		CHECK(group_is(&l.groups.v[0], X86, flavor22 ? "" : "generic", 3, gen, spec1, spec2));
		CHECK(group_is(&l.groups.v[1], X86, "znver3", 1, spec1));
		CHECK(group_is(&l.groups.v[2], X86, "skylake", 1, spec2));
	}
}

/* An image selected only for its device symbols joins the groups that
 * exist for its target ID (or a compatible one) and starts none. */
static void test_device_only_images(void)
{
	struct line l;
	struct ol_device_image *rt_generic, *rt_other, *rt_same, *app;

	line_init(&l, "device-only images", OL_FLAVOR_19);
	rt_generic = member_image(&l, "rt_generic.o", X86, "generic", 0);
	rt_other = member_image(&l, "rt_other.o", "aarch64-unknown-linux-gnu", "", 0);
	rt_same = member_image(&l, "rt_same.o", X86, "", 0);
	app = object_image(&l, "app.o", X86, "");
	CHECK(group(&l) == 0);
	CHECK(l.groups.n == 2);
	if (l.groups.n == 2) {
		CHECK(group_is(&l.groups.v[0], X86, "", 3, app, rt_generic, rt_same));
		/* resolve would not select rt_other; selected anyway, it is
		 * linked on its own rather than dropped. */
		CHECK(group_is(&l.groups.v[1], "aarch64-unknown-linux-gnu", "", 1, rt_other));
	}
}

static void test_unselected_and_missing(void)
{
	struct line l;
	struct ol_device_image *kept, *dropped;
	struct ol_diag_buffer diag = { 0 };
	int rc;

	line_init(&l, "unselected images", OL_FLAVOR_22);
	kept = object_image(&l, "kept.o", X86, "");
	dropped = object_image(&l, "dropped.o", X86, "");
	dropped->selected = 0;
	CHECK(group(&l) == 0);
	CHECK(l.groups.n == 1 && group_is(&l.groups.v[0], X86, "", 1, kept));

	line_init(&l, "unsupported target", OL_FLAVOR_22);
	object_image(&l, "rv.o", "riscv64-unknown-linux-gnu", "");
	kept = object_image(&l, "kept.o", X86, "");
	ol_diag_capture_begin(&diag);
	rc = group(&l);
	ol_diag_capture_end();
	CHECK(rc == -1);
	CHECK(diag.errors == 1);
	CHECK(diag.text && strstr(diag.text, "error: rv.o: riscv64 linking is not supported\n"));
	CHECK(l.groups.n == 1 && group_is(&l.groups.v[0], X86, "", 1, kept));
	free(diag.text);

	line_init(&l, "image without triple", OL_FLAVOR_22);
	object_image(&l, "bad.o", "", "");
	memset(&diag, 0, sizeof(diag));
	ol_diag_capture_begin(&diag);
	rc = group(&l);
	ol_diag_capture_end();
	CHECK(rc == -1 && diag.errors == 1);
	CHECK(diag.text && strstr(diag.text, "bad.o: device image has no target triple"));
	free(diag.text);
}

static void test_kinds(void)
{
	struct line l;
	struct ol_device_image *omp, *none;
	struct ol_diag_buffer diag = { 0 };
	int rc;

	line_init(&l, "offload kinds", OL_FLAVOR_22);
	omp = object_image(&l, "omp.o", X86, "");
	none = object_image(&l, "none.o", X86, "");
	none->bin.offload_kind = OL_OFK_NONE;
	CHECK(group(&l) == 0);
	CHECK(l.groups.n == 1 && group_is(&l.groups.v[0], X86, "", 2, omp, none));
	CHECK(l.groups.n == 1 && l.groups.v[0].kinds == OL_OFK_OPENMP);

	line_init(&l, "sycl with another kind", OL_FLAVOR_22);
	object_image(&l, "omp.o", X86, "");
	object_image(&l, "sycl.o", X86, "")->bin.offload_kind = OL_OFK_SYCL;
	ol_diag_capture_begin(&diag);
	rc = group(&l);
	ol_diag_capture_end();
	CHECK(rc == -1 && diag.errors == 1);
	CHECK(diag.text && strstr(diag.text, "Linking images of SYCL offload kind with images of "
					    "any other kind is not supported"));
	free(diag.text);
}

/* The rule itself, as resolve follows it: group numbers, own group first,
 * device-only images making none, 16's exact ids. */
static size_t place(struct ol_group_plan *p, const char *triple, const char *arch, int primary,
		    size_t *joins)
{
	return ol_group_plan_place(p, triple, arch, primary, joins);
}

static void test_plan(void)
{
	struct ol_group_plan p = { 0 }, exact = { .exact = 1 };
	size_t j[8];

	current_test = "plan";
	CHECK(place(&p, AMDGPU, "gfx90a:xnack+", 1, j) == 1 && j[0] == 0 && p.n == 1);
	/* Its own group first, then the compatible one made before it. */
	CHECK(place(&p, AMDGPU, "gfx90a", 1, j) == 2 && j[0] == 1 && j[1] == 0 && p.n == 2);
	/* A conflicting setting makes a group and joins nothing else. */
	CHECK(place(&p, AMDGPU, "gfx90a:xnack-", 1, j) == 2 && j[0] == 2 && j[1] == 1 && p.n == 3);
	/* Seen again: its own group, and the compatible ones made before. */
	CHECK(place(&p, AMDGPU, "gfx90a:xnack+", 1, j) == 2 && j[0] == 0 && j[1] == 1);
	/* Device-only: the groups that exist, in order, and none made. */
	CHECK(place(&p, AMDGPU, "gfx90a", 0, j) == 3 && j[0] == 0 && j[1] == 1 && j[2] == 2);
	CHECK(ol_group_plan_joins(&p, AMDGPU, "gfx90a:xnack-", j) == 2 && j[0] == 1 && j[1] == 2);
	CHECK(ol_group_plan_joins(&p, NVPTX, "sm_90", j) == 0 && p.n == 3);
	/* ... unless none exists: then it is placed as a primary one. */
	CHECK(place(&p, NVPTX, "sm_90", 0, j) == 1 && j[0] == 3 && p.n == 4);
	CHECK(place(&p, NULL, NULL, 1, j) == 1 && j[0] == 4 && !strcmp(p.v[4].triple, ""));
	ol_group_plan_release(&p);

	CHECK(place(&exact, AMDGPU, "gfx90a:xnack+", 1, j) == 1 && j[0] == 0);
	CHECK(place(&exact, AMDGPU, "gfx90a", 1, j) == 1 && j[0] == 1);
	CHECK(place(&exact, AMDGPU, "gfx90a", 0, j) == 1 && j[0] == 1);
	ol_group_plan_release(&exact);
}

int main(void)
{
	ol_diag_init("test_group");
	test_compatibility();
	test_amdgpu_target_ids();
	test_order();
	test_generic();
	test_device_only_images();
	test_unselected_and_missing();
	test_kinds();
	test_plan();
	ol_arena_release(&ol_link_arena);
	if (failures) {
		fprintf(stderr, "test_group: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_group: all checks passed\n");
	return 0;
}
