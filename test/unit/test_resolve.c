/*
 * Unit tests for ol_resolve(): archive members are linked as a host linker
 * (lld) loads them, or when their device code defines a symbol the device
 * link still needs.  The inputs are built by hand, with their symbol tables
 * already "read", so nothing here depends on the scanner or on real files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload/arena.h"
#include "offload/cmdline.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/resolve.h"

#include "check.h"



#define NVPTX "nvptx64-nvidia-cuda"
#define AMDGPU "amdgcn-amd-amdhsa"
#define MAX_IMAGES 4

/* "D:foo U:bar W:baz w:qux C:com": Defined, Undefined, Weak undefined,
 * weak defined, Common. */
static struct ol_symtab symbols(const char *spec)
{
	struct ol_symtab t = { NULL, 0 };
	char *copy = ol_arena_strdup(&ol_link_arena, spec ? spec : "");
	size_t count = 0;

	for (const char *p = copy; *p; p++)
		count += *p == ':';
	t.v = ol_arena_alloc(&ol_link_arena, (count + 1) * sizeof(*t.v));
	for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
		struct ol_symbol *s = &t.v[t.n++];
		s->name = tok + 2;
		switch (tok[0]) {
		case 'D': s->defined = 1; break;
		case 'U': break;
		case 'W': s->weak = 1; break;
		case 'w': s->defined = 1; s->weak = 1; break;
		case 'C': s->defined = 1; s->common = 1; break;
		default: fprintf(stderr, "bad symbol spec %s\n", tok); exit(2);
		}
	}
	return t;
}

static struct ol_object *object(const char *name, enum ol_input_kind kind, const char *host)
{
	struct ol_object *o = ol_arena_alloc(&ol_link_arena, sizeof(*o));

	o->display = name;
	o->path = name;
	o->kind = kind;
	o->host_symbols = symbols(host);
	o->symbols_read = 1;
	o->images = ol_arena_alloc(&ol_link_arena, MAX_IMAGES * sizeof(*o->images));
	return o;
}

static struct ol_device_image *image(struct ol_object *o, const char *triple, const char *arch,
				     const char *device)
{
	struct ol_device_image *img = &o->images[o->nimages++];

	if (o->nimages > MAX_IMAGES)
		abort();
	img->bin.triple = triple;
	img->bin.arch = arch;
	img->bin.offload_kind = OL_OFK_OPENMP;
	img->owner = o;
	img->loc.file = o->path;
	img->symbols = symbols(device);
	img->symbols_read = 1;
	if (o->archive)
		o->archive->has_offloading = 1;
	return img;
}

static struct ol_archive *archive(const char *path)
{
	struct ol_archive *a = ol_arena_alloc(&ol_link_arena, sizeof(*a));

	a->path = path;
	a->members = ol_arena_alloc(&ol_link_arena, 16 * sizeof(*a->members));
	return a;
}

static struct ol_object *member(struct ol_archive *a, const char *name, const char *host)
{
	struct ol_object *o = object(name, OL_IN_OBJECT, host);

	o->path = a->path;
	o->member = name;
	o->display = ol_arena_printf(&ol_link_arena, "%s(%s)", a->path, name);
	o->archive = a;
	o->member_offset = 8 + 100 * a->nmembers;
	a->members[a->nmembers++] = o;
	return o;
}

struct line {
	struct ol_inputs in;
	struct ol_input v[16];
	struct ol_cmdline cl;
	struct ol_arg args[8];
	int whole_archive;
};

static void line_init(struct line *l, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->in.v = l->v;
	l->cl.args = l->args;
	current_test = name;
}

static void add_object(struct line *l, struct ol_object *o)
{
	struct ol_input *in = &l->v[l->in.n++];

	in->path = in->spelling = o->path;
	in->kind = o->kind;
	in->object = o;
	in->whole_archive = l->whole_archive;
}

static void add_archive(struct line *l, struct ol_archive *a)
{
	struct ol_input *in = &l->v[l->in.n++];

	in->path = in->spelling = a->path;
	in->kind = OL_IN_ARCHIVE;
	in->archive = a;
	in->whole_archive = l->whole_archive;
}

static void add_arg(struct line *l, const char *raw)
{
	l->args[l->cl.nargs].id = OPT_UNKNOWN;
	l->args[l->cl.nargs++].raw = raw;
}

static int resolve(struct line *l)
{
	return ol_resolve(&l->in, &l->cl);
}

/* How many times img appears in the link order, and as what. */
static int order_count(struct line *l, const struct ol_device_image *img, int *primary)
{
	size_t n;
	struct ol_linked_image *v = ol_resolve_link_order(&l->in, &n);
	int count = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].image == img) {
			count++;
			if (primary)
				*primary = v[i].primary;
		}
	free(v);
	return count;
}

/* The usual program: main.o calls foo() on the host, which launches a kernel. */
static void test_library_before_and_after_objects(void)
{
	for (int after = 0; after < 2; after++) {
		struct line l;
		struct ol_object *main_o, *foo_o;
		struct ol_device_image *main_img, *foo_img;
		struct ol_archive *lib;

		line_init(&l, after ? "library after objects" : "library before objects");
		lib = archive("libfoo.a");
		foo_o = member(lib, "foo.o", "D:foo U:__tgt_target_kernel");
		foo_img = image(foo_o, NVPTX, "sm_80", "D:__omp_offloading_foo_l1");
		main_o = object("main.o", OL_IN_OBJECT, "D:main U:foo");
		main_img = image(main_o, NVPTX, "sm_80", "D:__omp_offloading_main_l1");
		if (!after)
			add_archive(&l, lib);
		add_object(&l, main_o);
		if (after)
			add_archive(&l, lib);

		CHECK(resolve(&l) == 0);
		CHECK(main_o->loaded && main_img->selected);
		CHECK(foo_o->loaded);
		CHECK(foo_img->selected);
		CHECK(order_count(&l, foo_img, NULL) == 1);
	}
}

/* CMake link lines name a library twice: its members are linked once,
 * even when the second mention is under --whole-archive. */
static void test_same_library_twice(void)
{
	for (int records = 1; records <= 2; records++) {
		struct line l;
		struct ol_archive *lib, *again;
		struct ol_object *main_o, *foo_o, *foo_again;
		struct ol_device_image *foo_img, *again_img;
		int primary = -1;

		line_init(&l, records == 1 ? "same library twice (one record)"
					   : "same library twice (two records)");
		lib = archive("libfoo.a");
		foo_o = member(lib, "foo.o", "D:foo");
		foo_img = image(foo_o, NVPTX, "sm_80", "D:foo_dev D:kernel");
		main_o = object("main.o", OL_IN_OBJECT, "U:foo");
		image(main_o, NVPTX, "sm_80", "U:foo_dev");
		/* The scanner maps a path once, so it hands out the same
		 * record; a second record of the same file must not double
		 * the member either. */
		again = lib;
		foo_again = foo_o;
		again_img = foo_img;
		if (records == 2) {
			again = archive("libfoo.a");
			foo_again = member(again, "foo.o", "D:foo");
			again_img = image(foo_again, NVPTX, "sm_80", "D:foo_dev D:kernel");
		}
		add_archive(&l, lib);
		add_object(&l, main_o);
		l.whole_archive = 1;
		add_archive(&l, again);

		CHECK(resolve(&l) == 0);
		CHECK(foo_o->loaded && foo_img->selected);
		CHECK(order_count(&l, foo_img, &primary) == 1 && primary == 1);
		if (records == 2) {
			CHECK(!foo_again->loaded && !again_img->selected);
			CHECK(order_count(&l, again_img, NULL) == 0);
		}
	}
}

/* A member nobody needs is not linked, whatever it holds. */
static void test_unneeded_member(void)
{
	struct line l;
	struct ol_archive *lib;
	struct ol_object *main_o, *used, *unused;
	struct ol_device_image *unused_img;

	line_init(&l, "unneeded member");
	lib = archive("libfoo.a");
	used = member(lib, "used.o", "D:used");
	image(used, NVPTX, "sm_80", "D:used_dev");
	unused = member(lib, "unused.o", "D:unused U:missing_everywhere");
	unused_img = image(unused, NVPTX, "sm_80", "D:unused_dev U:also_missing");
	main_o = object("main.o", OL_IN_OBJECT, "U:used");
	image(main_o, NVPTX, "sm_80", "");
	add_object(&l, main_o);
	add_archive(&l, lib);

	CHECK(resolve(&l) == 0);
	CHECK(used->loaded);
	CHECK(!unused->loaded && !unused_img->selected);
}

/* A kernel only host code launches: nothing on the device references it,
 * the host link loads its member, so it is in the device image. */
static void test_kernel_called_from_host_only(void)
{
	struct line l;
	struct ol_archive *lib;
	struct ol_object *main_o, *kern;
	struct ol_device_image *kern_img;

	line_init(&l, "kernel called from host only");
	lib = archive("libkern.a");
	kern = member(lib, "kern.o", "D:launch_saxpy U:__tgt_target_kernel");
	kern_img = image(kern, AMDGPU, "gfx90a", "D:__omp_offloading_saxpy_l10");
	main_o = object("main.o", OL_IN_OBJECT, "D:main U:launch_saxpy");
	add_object(&l, main_o);
	add_archive(&l, lib);

	CHECK(resolve(&l) == 0);
	CHECK(kern->loaded && kern_img->selected);
}

/* A device library: its members have no host symbols that matter, only
 * device definitions.  Only the image for a target in use is linked, and
 * the host link does not load the member. */
static void test_member_needed_for_device_symbol(void)
{
	struct line l;
	struct ol_archive *rtl;
	struct ol_object *main_o, *rt, *other;
	struct ol_device_image *rt_nv, *rt_amd, *other_img;
	int primary = -1;

	line_init(&l, "member needed for a device symbol");
	rtl = archive("libomptarget.devicertl.a");
	rt = member(rtl, "state.o", "");
	rt_amd = image(rt, AMDGPU, "gfx1030", "D:__kmpc_target_init");
	rt_nv = image(rt, NVPTX, "sm_80", "D:__kmpc_target_init D:__kmpc_target_deinit");
	other = member(rtl, "other.o", "");
	other_img = image(other, NVPTX, "sm_80", "D:__kmpc_unused");
	main_o = object("main.o", OL_IN_OBJECT, "D:main");
	image(main_o, NVPTX, "sm_80", "D:kernel U:__kmpc_target_init");
	add_archive(&l, rtl);
	add_object(&l, main_o);

	CHECK(resolve(&l) == 0);
	CHECK(rt_nv->selected);
	CHECK(!rt->loaded);
	CHECK(!rt_amd->selected);
	CHECK(!other_img->selected);
	CHECK(order_count(&l, rt_nv, &primary) == 1 && primary == 0);
}

static void test_whole_archive(void)
{
	struct line l;
	struct ol_archive *lib, *lazy;
	struct ol_object *main_o, *a, *b, *c;

	line_init(&l, "whole archive");
	lib = archive("libwhole.a");
	a = member(lib, "a.o", "D:a");
	image(a, NVPTX, "sm_80", "D:a_dev");
	b = member(lib, "b.o", "D:b");
	image(b, NVPTX, "sm_80", "D:b_dev");
	lazy = archive("liblazy.a");
	c = member(lazy, "c.o", "D:c");
	image(c, NVPTX, "sm_80", "D:c_dev");
	main_o = object("main.o", OL_IN_OBJECT, "D:main");
	add_object(&l, main_o);
	l.whole_archive = 1;
	add_archive(&l, lib);
	l.whole_archive = 0;
	add_archive(&l, lazy);

	CHECK(resolve(&l) == 0);
	CHECK(a->loaded && a->images[0].selected);
	CHECK(b->loaded && b->images[0].selected);
	CHECK(!c->loaded && !c->images[0].selected);
}

/* main needs a (libA), a needs b (libB), b needs c (libC), with the
 * libraries in the order GNU ld could not resolve in one pass.  The same
 * on the device side: main's image needs d1 (libB), whose image needs d2
 * (libA), neither member loaded by the host. */
static void test_chain_in_wrong_order(void)
{
	struct line l;
	struct ol_archive *liba, *libb, *libc;
	struct ol_object *main_o, *a, *b, *c, *d1, *d2;

	line_init(&l, "chain in wrong order");
	libc = archive("libC.a");
	c = member(libc, "c.o", "D:c");
	image(c, NVPTX, "sm_80", "D:c_dev");
	liba = archive("libA.a");
	a = member(liba, "a.o", "D:a U:b");
	image(a, NVPTX, "sm_80", "D:a_dev");
	d2 = member(liba, "d2.o", "");
	image(d2, NVPTX, "sm_80", "D:d2");
	libb = archive("libB.a");
	b = member(libb, "b.o", "D:b U:c");
	image(b, NVPTX, "sm_80", "D:b_dev");
	d1 = member(libb, "d1.o", "");
	image(d1, NVPTX, "sm_80", "D:d1 U:d2");
	main_o = object("main.o", OL_IN_OBJECT, "D:main U:a");
	image(main_o, NVPTX, "sm_80", "U:d1");
	add_archive(&l, libc);
	add_object(&l, main_o);
	add_archive(&l, liba);
	add_archive(&l, libb);

	CHECK(resolve(&l) == 0);
	CHECK(a->loaded && b->loaded && c->loaded);
	CHECK(a->images[0].selected && b->images[0].selected && c->images[0].selected);
	CHECK(!d1->loaded && !d2->loaded);
	CHECK(d1->images[0].selected && d2->images[0].selected);
}

/* A weak undefined reference loads nothing, on either side; a strong
 * reference to the same symbol later on the line does. */
static void test_weak_undefined_does_not_pull(void)
{
	for (int variant = 0; variant < 4; variant++) {
		int strong_later = variant & 1, archive_first = variant >> 1;
		struct line l;
		struct ol_archive *lib;
		struct ol_object *main_o, *foo, *dev;

		line_init(&l, strong_later ? "strong reference after a weak one"
					   : "weak undefined does not pull");
		lib = archive("libfoo.a");
		foo = member(lib, "foo.o", "D:foo");
		image(foo, NVPTX, "sm_80", "D:foo_dev");
		dev = member(lib, "dev.o", "");
		image(dev, NVPTX, "sm_80", "D:weak_dev");
		main_o = object("main.o", OL_IN_OBJECT, "D:main W:foo");
		image(main_o, NVPTX, "sm_80", "W:weak_dev");
		if (archive_first)
			add_archive(&l, lib);
		add_object(&l, main_o);
		if (!archive_first)
			add_archive(&l, lib);
		if (strong_later)
			add_object(&l, object("user.o", OL_IN_OBJECT, "U:foo"));

		CHECK(resolve(&l) == 0);
		CHECK(foo->loaded == strong_later);
		CHECK(foo->images[0].selected == strong_later);
		CHECK(!dev->images[0].selected);
	}
}

/* A shared library's definition satisfies the reference, so the archive
 * member is not loaded; as with lld, an archive that comes before the
 * shared library and after the reference still provides the member. */
static void test_shared_library_definition(void)
{
	for (int archive_first = 0; archive_first < 2; archive_first++) {
		struct line l;
		struct ol_archive *lib;
		struct ol_object *main_o, *dso, *foo;

		line_init(&l, archive_first ? "archive before shared library"
					    : "shared library definition satisfies");
		lib = archive("libfoo.a");
		foo = member(lib, "foo.o", "D:foo");
		image(foo, NVPTX, "sm_80", "D:foo_dev");
		dso = object("libfoo.so", OL_IN_SHARED, "D:foo U:dso_needs");
		main_o = object("main.o", OL_IN_OBJECT, "D:main U:foo");
		image(main_o, NVPTX, "sm_80", "");
		add_object(&l, main_o);
		if (archive_first)
			add_archive(&l, lib);
		add_object(&l, dso);
		if (!archive_first)
			add_archive(&l, lib);

		CHECK(resolve(&l) == 0);
		CHECK(foo->loaded == archive_first);
		CHECK(foo->images[0].selected == archive_first);
		CHECK(!dso->loaded);
	}
}

/* A shared library's own undefined references load members too. */
static void test_shared_library_reference(void)
{
	struct line l;
	struct ol_archive *lib;
	struct ol_object *dso, *cb;

	line_init(&l, "shared library reference");
	lib = archive("libcb.a");
	cb = member(lib, "cb.o", "D:callback");
	image(cb, NVPTX, "sm_80", "D:cb_dev");
	dso = object("libuser.so", OL_IN_SHARED, "D:user U:callback");
	add_object(&l, object("main.o", OL_IN_OBJECT, "D:main"));
	add_object(&l, dso);
	add_archive(&l, lib);
	CHECK(resolve(&l) == 0);
	CHECK(cb->loaded && cb->images[0].selected);
}

/* -u foo, --undefined=bar, -e entry: the command line references. */
static void test_command_line_references(void)
{
	struct line l;
	struct ol_archive *lib;
	struct ol_object *foo, *bar, *entry, *none;

	line_init(&l, "command line references");
	lib = archive("libfoo.a");
	foo = member(lib, "foo.o", "D:foo");
	image(foo, NVPTX, "sm_80", "");
	bar = member(lib, "bar.o", "D:bar");
	image(bar, NVPTX, "sm_80", "");
	entry = member(lib, "entry.o", "D:my_start");
	image(entry, NVPTX, "sm_80", "");
	none = member(lib, "none.o", "D:ndefined D:nresolved-symbols=ignore");
	image(none, NVPTX, "sm_80", "");
	add_arg(&l, "-u");
	add_arg(&l, "foo");
	add_arg(&l, "--undefined=bar");
	add_arg(&l, "-e");
	add_arg(&l, "my_start");
	add_arg(&l, "-unresolved-symbols=ignore");
	add_object(&l, object("main.o", OL_IN_OBJECT, "D:main"));
	add_archive(&l, lib);

	CHECK(resolve(&l) == 0);
	CHECK(foo->loaded && bar->loaded && entry->loaded);
	CHECK(!none->loaded);
}

/* A common definition satisfies a reference; an undefined reference loads
 * a member that defines the symbol as common. */
static void test_common_symbols(void)
{
	struct line l;
	struct ol_archive *lib;
	struct ol_object *real, *common_member;

	line_init(&l, "common symbols");
	lib = archive("libc.a");
	real = member(lib, "real.o", "D:shared_var");
	image(real, NVPTX, "sm_80", "");
	common_member = member(lib, "common.o", "C:other_var");
	image(common_member, NVPTX, "sm_80", "");
	add_object(&l, object("main.o", OL_IN_OBJECT, "C:shared_var U:other_var"));
	add_archive(&l, lib);

	CHECK(resolve(&l) == 0);
	CHECK(!real->loaded);
	CHECK(common_member->loaded);
}

/* Device symbols resolve across compatible AMDGPU target IDs (19/22): a
 * gfx90a device library serves gfx90a:xnack+ code; 16 needs the exact ID. */
static void test_device_target_compatibility(void)
{
	for (int flavor16 = 0; flavor16 < 2; flavor16++) {
		struct line l;
		struct ol_archive *rtl;
		struct ol_object *main_o, *rt, *wrong;

		line_init(&l, flavor16 ? "device target ids (16)" : "device target ids (19/22)");
		l.cl.flavor = flavor16 ? OL_FLAVOR_16 : OL_FLAVOR_22;
		rtl = archive("librt.a");
		rt = member(rtl, "rt.o", "");
		image(rt, AMDGPU, "gfx90a", "D:rt_fn");
		wrong = member(rtl, "wrong.o", "");
		image(wrong, AMDGPU, "gfx90a:xnack-", "D:rt_fn2");
		main_o = object("main.o", OL_IN_OBJECT, "D:main");
		image(main_o, AMDGPU, "gfx90a:xnack+", "U:rt_fn U:rt_fn2");
		add_object(&l, main_o);
		add_archive(&l, rtl);

		CHECK(resolve(&l) == 0);
		CHECK(rt->images[0].selected == !flavor16);
		CHECK(!wrong->images[0].selected);
	}
}

/* Without device code in any archive, nothing reads a symbol table. */
static void test_fast_path(void)
{
	struct line l;
	struct ol_archive *lib;
	struct ol_object *main_o, *m;

	line_init(&l, "fast path");
	lib = archive("libplain.a");
	m = member(lib, "plain.o", "");
	m->symbols_read = 0;
	main_o = object("main.o", OL_IN_OBJECT, "");
	main_o->symbols_read = 0;
	image(main_o, NVPTX, "sm_80", "");
	add_object(&l, main_o);
	add_archive(&l, lib);

	CHECK(resolve(&l) == 0);
	CHECK(main_o->loaded && main_o->images[0].selected);
	CHECK(!main_o->symbols_read && !m->symbols_read);

	/* Device code in archives only for targets nothing else uses (the GPU
	 * device runtime on a CPU-offload line): no device symbols are read. */
	{
		struct ol_archive *rtl;
		struct ol_object *rt;
		struct ol_device_image *main_img;

		line_init(&l, "no device candidates");
		rtl = archive("libomptarget.devicertl.a");
		rt = member(rtl, "rt.o", "");
		image(rt, AMDGPU, "gfx90a", "D:__kmpc_target_init");
		rt->images[0].symbols_read = 0;
		main_o = object("main.o", OL_IN_OBJECT, "D:main");
		main_img = image(main_o, "x86_64-unknown-linux-gnu", "", "U:__kmpc_target_init");
		main_img->symbols_read = 0;
		add_object(&l, main_o);
		add_archive(&l, rtl);
		CHECK(resolve(&l) == 0);
		CHECK(main_img->selected && !rt->images[0].selected);
		CHECK(!main_img->symbols_read && !rt->images[0].symbols_read);
	}
}

/* The link order: objects first, then loaded members, then device-only. */
static void test_link_order(void)
{
	struct line l;
	struct ol_archive *lib;
	struct ol_object *first, *second, *loaded, *devonly;
	struct ol_linked_image *v;
	size_t n;

	line_init(&l, "link order");
	lib = archive("libx.a");
	devonly = member(lib, "dev.o", "");
	image(devonly, NVPTX, "sm_80", "D:dev_fn");
	loaded = member(lib, "loaded.o", "D:host_fn");
	image(loaded, NVPTX, "sm_80", "");
	first = object("first.o", OL_IN_OBJECT, "U:host_fn");
	image(first, NVPTX, "sm_80", "U:dev_fn");
	second = object("second.o", OL_IN_OBJECT, "");
	image(second, AMDGPU, "gfx90a", "");
	add_archive(&l, lib);
	add_object(&l, first);
	add_object(&l, second);

	CHECK(resolve(&l) == 0);
	v = ol_resolve_link_order(&l.in, &n);
	CHECK(n == 4);
	if (n == 4) {
		CHECK(v[0].image == &first->images[0] && v[0].primary);
		CHECK(v[1].image == &second->images[0] && v[1].primary);
		CHECK(v[2].image == &loaded->images[0] && v[2].primary);
		CHECK(v[3].image == &devonly->images[0] && !v[3].primary);
	}
	free(v);
}

int main(void)
{
	ol_diag_init("test_resolve");
	test_library_before_and_after_objects();
	test_same_library_twice();
	test_unneeded_member();
	test_kernel_called_from_host_only();
	test_member_needed_for_device_symbol();
	test_whole_archive();
	test_chain_in_wrong_order();
	test_weak_undefined_does_not_pull();
	test_shared_library_definition();
	test_shared_library_reference();
	test_command_line_references();
	test_common_symbols();
	test_device_target_compatibility();
	test_fast_path();
	test_link_order();
	ol_arena_release(&ol_link_arena);
	if (failures) {
		fprintf(stderr, "test_resolve: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_resolve: all checks passed\n");
	return 0;
}
