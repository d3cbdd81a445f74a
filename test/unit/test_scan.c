/*
 * test_scan: ol_inputs_scan and the symbol readers over the checked-in
 * fixtures of test/lit/Inputs/scan/ (made by tools/gen-fixtures.py): real
 * fat objects of clang 19 and 22, GNU/BSD/thin archives, a shared library,
 * a raw OffloadBinary, and broken variants.  -l search runs in a temporary
 * directory tree.  Ends with a corruption loop (truncations and bit flips
 * of objects and archives) that must only ever produce clean errors; run
 * it under -fsanitize=address,undefined.
 *
 * Host bitcode (omp19-lto.o) is scanned when $OFFLOAD_LINK_BACKEND names the
 * backend (ctest sets it).
 *
 * The fixture directory is $OL_SCAN_INPUTS, else under $OL_TEST_SOURCE_DIR
 * (set by test/CMakeLists.txt), else found from this file's path.
 */
#include "offload/arena.h"
#include "offload/cmdline.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/mapped_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"



static const char *fixtures;
static char tmpdir[] = "/tmp/test_scan.XXXXXX";

static const char *fixture(const char *name)
{
	return ol_arena_printf(&ol_link_arena, "%s/%s", fixtures, name);
}

static const char *tmp_path(const char *name)
{
	return ol_arena_printf(&ol_link_arena, "%s/%s", tmpdir, name);
}

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long len;

	if (!f) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc(len ? (size_t)len : 1);
	if (fread(data, 1, (size_t)len, f) != (size_t)len)
		exit(2);
	fclose(f);
	*size = (size_t)len;
	return data;
}

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
}

static void copy_file(const char *from, const char *to)
{
	size_t size;
	uint8_t *data = read_file(from, &size);

	write_file(to, data, size);
	free(data);
}

/* A command line of link items and -L dirs; diagnostics captured. */
struct scan_run {
	struct ol_link_item items[16];
	size_t nitems;
	const char *lib_paths[8];
	size_t nlib_paths;
	const char *sysroot;
	struct ol_inputs in;
	struct ol_diag_buffer diag;
	int rc;
};

static void add_item(struct scan_run *run, enum ol_link_item_kind kind, const char *value)
{
	run->items[run->nitems].kind = kind;
	run->items[run->nitems].value = value;
	run->items[run->nitems].arg_index = run->nitems;
	run->nitems++;
}

static void do_scan(struct scan_run *run)
{
	struct ol_cmdline cl;

	memset(&cl, 0, sizeof(cl));
	cl.link_items = run->items;
	cl.nlink_items = run->nitems;
	cl.lib_paths = run->lib_paths;
	cl.nlib_paths = run->nlib_paths;
	cl.sysroot = run->sysroot;
	memset(&run->diag, 0, sizeof(run->diag));
	ol_diag_capture_begin(&run->diag);
	run->rc = ol_inputs_scan(&cl, &run->in, 0);
	ol_diag_capture_end();
}

static const char *messages(const struct scan_run *run)
{
	return run->diag.text ? run->diag.text : "";
}

static void done(struct scan_run *run)
{
	free(run->diag.text);
	memset(run, 0, sizeof(*run));
}

static struct scan_run *scan_one(struct scan_run *run, const char *path)
{
	memset(run, 0, sizeof(*run));
	add_item(run, OL_LINK_FILE, path);
	do_scan(run);
	return run;
}

static const struct ol_symbol *find_symbol(const struct ol_symtab *tab, const char *name)
{
	for (size_t i = 0; i < tab->n; i++)
		if (!strcmp(tab->v[i].name, name))
			return &tab->v[i];
	return NULL;
}

/* ---- classification ------------------------------------------------------ */

static void test_identify(void)
{
	static const uint8_t rel[18] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
	static const uint8_t big_dyn[18] = { 0x7f, 'E', 'L', 'F', 2, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 };
	static const uint8_t exec[18] = { 0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0 };

	CHECK(ol_identify(rel, sizeof(rel)) == OL_IN_OBJECT);
	CHECK(ol_identify(rel, 17) == OL_IN_OTHER);
	CHECK(ol_identify(big_dyn, sizeof(big_dyn)) == OL_IN_SHARED);
	CHECK(ol_identify(exec, sizeof(exec)) == OL_IN_EXEC);
	CHECK(ol_identify((const uint8_t *)"BC\xc0\xde\x35\x14", 6) == OL_IN_BITCODE);
	CHECK(ol_identify((const uint8_t *)"\xde\xc0\x17\x0b\0\0\0\0", 8) == OL_IN_BITCODE);
	CHECK(ol_identify((const uint8_t *)"!<arch>\n", 8) == OL_IN_ARCHIVE);
	CHECK(ol_identify((const uint8_t *)"!<thin>\n", 8) == OL_IN_ARCHIVE);
	CHECK(ol_identify((const uint8_t *)"!<arch>", 7) == OL_IN_OTHER);
	CHECK(ol_identify((const uint8_t *)"\x10\xff\x10\xad", 4) == OL_IN_OFFLOAD_BINARY);
	CHECK(ol_identify((const uint8_t *)"INPUT(-lc)\n", 11) == OL_IN_OTHER);
	CHECK(ol_identify(NULL, 0) == OL_IN_OTHER);
}

/* ---- objects --------------------------------------------------------------- */

static void test_fat_objects(void)
{
	struct scan_run run;
	struct ol_device_image *img;
	const struct ol_object *obj;

	scan_one(&run, fixture("omp19.o"));
	CHECK(run.rc == 0 && run.diag.len == 0);
	CHECK(run.in.n == 1 && run.in.v[0].kind == OL_IN_OBJECT);
	obj = run.in.v[0].object;
	CHECK(obj && obj->nimages == 1 && obj->entries_abi == 16 && obj->clang_major == 19);
	CHECK(run.in.nimages == 1 && run.in.entries_abi == 16 && run.in.clang_major == 19);
	CHECK(!run.in.any_bitcode);
	if (obj && obj->nimages == 1) {
		img = &obj->images[0];
		CHECK(img->owner == obj);
		CHECK(!strcmp(img->bin.triple, "x86_64-unknown-linux-gnu"));
		CHECK(img->bin.offload_kind == OL_OFK_OPENMP);
		CHECK(img->bin.image_kind == OL_IMG_OBJECT);   /* x86_64 offload: an ELF object */
		CHECK(img->loc.section && !strcmp(img->loc.section, ".llvm.offloading"));
		CHECK(img->loc.has_offset && img->loc.offset == 0 && !img->loc.member);
		CHECK(find_symbol(ol_image_symbols(img), "dev_add") != NULL);
		/* A view into the mapped file, not a copy. */
		CHECK(img->bin.data >= obj->data && img->bin.data < obj->data + obj->size);
	}
	done(&run);

	scan_one(&run, fixture("omp22.o"));
	CHECK(run.rc == 0 && run.in.n == 1);
	obj = run.in.v[0].object;
	CHECK(obj && obj->nimages == 1 && obj->entries_abi == 22 && obj->clang_major == 22);
	CHECK(run.in.entries_abi == 22 && run.in.clang_major == 22);
	done(&run);

	/* No offloading data: .comment is not even looked at. */
	scan_one(&run, fixture("plain.o"));
	CHECK(run.rc == 0 && run.in.n == 1 && run.in.v[0].kind == OL_IN_OBJECT);
	CHECK(run.in.v[0].object->nimages == 0 && run.in.v[0].object->clang_major == 0);
	CHECK(run.in.nimages == 0 && run.in.clang_major == 0 && run.in.entries_abi == 0);
	CHECK(!run.in.v[0].object->symbols_read);
	done(&run);
}

static void test_symbols(void)
{
	struct scan_run run;
	const struct ol_symtab *tab;
	const struct ol_symbol *sym;
	struct ol_object *obj;

	scan_one(&run, fixture("plain.o"));
	obj = run.in.v[0].object;
	tab = ol_object_symbols(obj);
	CHECK(tab == ol_object_symbols(obj));
	CHECK(tab->n == 2);
	sym = find_symbol(tab, "plain_fn");
	CHECK(sym && sym->defined && !sym->weak && !sym->hidden && !sym->common);
	CHECK(find_symbol(tab, "plain_value") != NULL);
	CHECK(find_symbol(tab, "plain.c") == NULL);   /* STT_FILE */
	done(&run);

	/* Device symbols of an ELF image (embedded packager output). */
	scan_one(&run, fixture("embed.o"));
	CHECK(run.rc == 0 && run.in.n == 1);
	obj = run.in.v[0].object;
	CHECK(obj && obj->nimages == 1);
	if (obj && obj->nimages == 1) {
		struct ol_device_image *img = &obj->images[0];

		CHECK(img->bin.image_kind == OL_IMG_OBJECT && !strcmp(img->bin.arch, "generic"));
		CHECK(obj->clang_major == 19 && obj->entries_abi == 0);
		tab = ol_image_symbols(img);
		CHECK(img->symbols_read && tab == &img->symbols);
		sym = find_symbol(tab, "dev_fn");
		CHECK(sym && sym->defined && !sym->weak && !sym->hidden);
		sym = find_symbol(tab, "dev_ext");
		CHECK(sym && !sym->defined);
		sym = find_symbol(tab, "dev_weak");
		CHECK(sym && sym->defined && sym->weak);
		sym = find_symbol(tab, "dev_hidden");
		CHECK(sym && sym->defined && sym->hidden);
		sym = find_symbol(tab, "dev_common");
		CHECK(sym && sym->defined && sym->common);
		CHECK(find_symbol(tab, ".text") == NULL && find_symbol(tab, "dev.c") == NULL);
		CHECK(tab->n == 5);
	}
	done(&run);

	/* Byte-swapped and 32-bit ELF (the views are read-only mappings: libelf
	 * must convert into memory of its own). */
	for (int i = 0; i < 2; i++) {
		scan_one(&run, fixture(i ? "elf32.o" : "be64.o"));
		CHECK(run.rc == 0 && run.in.n == 1 && run.in.v[0].kind == OL_IN_OBJECT);
		obj = run.in.v[0].object;
		CHECK(obj && obj->nimages == 1 && obj->clang_major == 19);
		if (obj && obj->nimages == 1) {
			CHECK(!strcmp(obj->images[0].bin.arch, "generic"));
			tab = ol_object_symbols(obj);
			sym = find_symbol(tab, "host_main");
			CHECK(sym && sym->defined && tab->n == (i ? 1u : 2u));   /* ppc64: .TOC. */
			CHECK(find_symbol(ol_image_symbols(&obj->images[0]), "dev_fn") != NULL);
		}
		done(&run);
	}

	/* Shared objects: not scanned for images, symbols from .dynsym. */
	scan_one(&run, fixture("libshared.so"));
	CHECK(run.rc == 0 && run.in.n == 1 && run.in.v[0].kind == OL_IN_SHARED);
	obj = run.in.v[0].object;
	CHECK(obj && obj->nimages == 0);
	if (obj) {
		tab = ol_object_symbols(obj);
		sym = find_symbol(tab, "shared_fn");
		CHECK(sym && sym->defined);
	}
	done(&run);
}

static void test_raw_binary(void)
{
	struct scan_run run;
	const struct ol_object *obj;

	scan_one(&run, fixture("dev.offbin"));
	CHECK(run.rc == 0 && run.in.n == 1 && run.in.v[0].kind == OL_IN_OFFLOAD_BINARY);
	obj = run.in.v[0].object;
	CHECK(obj && obj->nimages == 1 && run.in.nimages == 1);
	if (obj && obj->nimages == 1) {
		CHECK(obj->images[0].loc.section == NULL && obj->images[0].loc.offset == 0);
		CHECK(!strcmp(obj->images[0].bin.triple, "x86_64-unknown-linux-gnu"));
	}
	done(&run);
}

/* Host bitcode (-flto): needs the LLVM backend, which ctest names in
 * $OFFLOAD_LINK_BACKEND; skipped without it. */
static void test_host_bitcode(void)
{
	const char *backend = getenv("OFFLOAD_LINK_BACKEND");
	struct scan_run run;
	struct ol_object *obj;
	const struct ol_symbol *sym;

	if (!backend || access(backend, R_OK) != 0) {
		fprintf(stderr, "test_scan: no backend, host bitcode not tested\n");
		return;
	}
	scan_one(&run, fixture("omp19-lto.o"));
	CHECK(run.rc == 0 && run.diag.len == 0);
	if (run.diag.len)
		fprintf(stderr, "%s", messages(&run));
	CHECK(run.in.n == 1 && run.in.v[0].kind == OL_IN_BITCODE && run.in.any_bitcode);
	obj = run.in.v[0].object;
	CHECK(obj && obj->nimages == 1 && run.in.nimages == 1);
	if (obj && obj->nimages == 1) {
		CHECK(!strcmp(obj->images[0].bin.triple, "x86_64-unknown-linux-gnu"));
		CHECK(obj->images[0].loc.section && !strcmp(obj->images[0].loc.section, ".llvm.offloading"));
		CHECK(obj->clang_major == 19 && run.in.clang_major == 19);
		CHECK(obj->entries_abi == 16 && run.in.entries_abi == 16);
		/* Symbols came with the scan. */
		CHECK(obj->symbols_read);
		sym = find_symbol(ol_object_symbols(obj), "run");
		CHECK(sym && sym->defined);
	}
	done(&run);
}

/* ---- archives -------------------------------------------------------------- */

static void check_archive_members(const char *name, int thin)
{
	struct scan_run run;
	const struct ol_archive *ar;
	const char *first = thin ? "omp19.o" : "a_member_with_a_long_name.o";
	const char *first_file = thin ? "omp19.o" : "embed.o";
	size_t size;
	uint8_t *expect;

	scan_one(&run, fixture(name));
	CHECK(run.rc == 0 && run.diag.len == 0);
	if (run.diag.len)
		fprintf(stderr, "%s", messages(&run));
	CHECK(run.in.n == 1 && run.in.v[0].kind == OL_IN_ARCHIVE);
	ar = run.in.v[0].archive;
	CHECK(ar && ar->thin == thin && ar->nmembers == 2 && ar->has_offloading);
	if (!ar || ar->nmembers != 2) {
		fprintf(stderr, "%s: bad member list\n", name);
		done(&run);
		return;
	}
	CHECK(!strcmp(ar->members[0]->member, first));
	CHECK(!strcmp(ar->members[1]->member, "plain.o"));
	CHECK(!strcmp(ar->members[0]->display,
		      ol_arena_printf(&ol_link_arena, "%s(%s)", fixture(name), first)));
	CHECK(ar->members[0]->archive == ar && ar->members[0]->kind == OL_IN_OBJECT);
	CHECK(ar->members[0]->nimages == 1 && ar->members[1]->nimages == 0);
	CHECK(run.in.nimages == 1);
	CHECK(ar->members[0]->images[0].loc.member == ar->members[0]->member);
	/* Member contents are the original files, byte for byte. */
	expect = read_file(fixture(first_file), &size);
	CHECK(ar->members[0]->size == size && !memcmp(ar->members[0]->data, expect, size));
	free(expect);
	expect = read_file(fixture("plain.o"), &size);
	CHECK(ar->members[1]->size == size && !memcmp(ar->members[1]->data, expect, size));
	free(expect);
	/* member_offset is the header's offset. */
	if (!thin) {
		const struct ol_mapped_file *mf = ol_map_file(fixture(name));

		CHECK(mf && ar->members[1]->member_offset + 60 < mf->size &&
		      !memcmp(mf->data + ar->members[1]->member_offset + 58, "`\n", 2));
		/* Data follows the header (and a BSD "#1/" name). */
		CHECK(ar->members[1]->data >= mf->data + ar->members[1]->member_offset + 60 &&
		      ar->members[1]->data <= mf->data + ar->members[1]->member_offset + 60 + 16);
	}
	done(&run);
}

static void test_archives(void)
{
	struct scan_run run;

	check_archive_members("libgnu.a", 0);
	check_archive_members("libbsd.a", 0);
	check_archive_members("libthin.a", 1);

	/* A bad offload binary inside a member: archive, member, section and
	 * offset of the bad field. */
	scan_one(&run, fixture("libbad.a"));
	CHECK(run.rc == -1 && run.diag.errors == 1);
	CHECK(strstr(messages(&run), "libbad.a(m.o): .llvm.offloading+0x8: offload binary size 65536 exceeds") != NULL);
	done(&run);

	/* A newer container version. */
	scan_one(&run, fixture("v4.o"));
	CHECK(run.rc == -1);
	CHECK(strstr(messages(&run), "v4.o: .llvm.offloading+0x4: unsupported offload binary version 4") != NULL);
	done(&run);
}

static void test_broken_files(void)
{
	struct scan_run run;
	size_t size;
	uint8_t *data = read_file(fixture("libgnu.a"), &size);
	const char *path;

	/* Truncated archive member: the archive and the header offset. */
	path = tmp_path("trunc.a");
	write_file(path, data, size - 100);
	scan_one(&run, path);
	CHECK(run.rc == -1);
	CHECK(strstr(messages(&run), "trunc.a: +0x") && strstr(messages(&run), "truncated archive member (member 'plain.o')"));
	done(&run);

	/* Broken member header. */
	memcpy(data + size - 1168 - 60 + 58, "xx", 2);   /* plain.o is the last member */
	path = tmp_path("badhdr.a");
	write_file(path, data, size);
	scan_one(&run, path);
	/* The mutant itself was read (mappings are kept until exit: too many
	 * rounds exhaust them, which would test nothing). */
	CHECK(!strstr(messages(&run), "cannot open '"));
	CHECK(run.rc == -1 && strstr(messages(&run), "malformed archive member header"));
	CHECK(run.in.n == 1 && run.in.v[0].archive && run.in.v[0].archive->nmembers == 1);
	done(&run);
	free(data);

	/* Corrupt ELF: section headers past the end. */
	data = read_file(fixture("omp19.o"), &size);
	path = tmp_path("cut.o");
	write_file(path, data, 200);
	scan_one(&run, path);
	CHECK(run.rc == -1 && strstr(messages(&run), "cut.o: invalid ELF file: section header table"));
	done(&run);
	free(data);

	/* A thin archive whose member is gone. */
	copy_file(fixture("libthin.a"), tmp_path("libthin.a"));
	copy_file(fixture("plain.o"), tmp_path("plain.o"));
	scan_one(&run, tmp_path("libthin.a"));
	CHECK(run.rc == -1 && strstr(messages(&run), "libthin.a(omp19.o): cannot open thin archive member"));
	CHECK(run.in.v[0].archive && run.in.v[0].archive->nmembers == 1);
	done(&run);
}

/* ---- the link line ----------------------------------------------------------- */

static void test_link_line(void)
{
	struct scan_run run;
	const struct ol_input *v;

	memset(&run, 0, sizeof(run));
	add_item(&run, OL_LINK_FILE, "now");   /* the stray word of "-z now" */
	add_item(&run, OL_LINK_FILE, fixtures); /* a directory */
	add_item(&run, OL_LINK_FILE, fixture("omp19.o"));
	add_item(&run, OL_LINK_WHOLE_ARCHIVE, NULL);
	add_item(&run, OL_LINK_FILE, fixture("libgnu.a"));
	add_item(&run, OL_LINK_NO_WHOLE_ARCHIVE, NULL);
	add_item(&run, OL_LINK_START_GROUP, NULL);
	add_item(&run, OL_LINK_FILE, fixture("libbsd.a"));
	add_item(&run, OL_LINK_FILE, fixture("omp19.o"));   /* again: shared record */
	add_item(&run, OL_LINK_END_GROUP, NULL);
	add_item(&run, OL_LINK_START_GROUP, NULL);
	add_item(&run, OL_LINK_FILE, fixture("libgnu.a"));
	add_item(&run, OL_LINK_END_GROUP, NULL);
	add_item(&run, OL_LINK_FILE, "/dev/null");
	do_scan(&run);
	CHECK(run.rc == 0 && run.diag.len == 0);
	CHECK(run.in.n == 8);
	if (run.in.n != 8) {
		done(&run);
		return;
	}
	v = run.in.v;
	CHECK(v[0].kind == OL_IN_MISSING && v[1].kind == OL_IN_MISSING);
	CHECK(v[2].kind == OL_IN_OBJECT && !v[2].whole_archive && v[2].group == 0);
	CHECK(v[3].kind == OL_IN_ARCHIVE && v[3].whole_archive && v[3].link_item == 4);
	CHECK(v[4].kind == OL_IN_ARCHIVE && !v[4].whole_archive && v[4].group == 1);
	CHECK(v[5].object == v[2].object && v[5].group == 1);
	CHECK(v[6].archive == v[3].archive && v[6].group == 2);
	CHECK(v[7].kind == OL_IN_OTHER);
	CHECK(!strcmp(v[2].spelling, fixture("omp19.o")));
	/* omp19.o, libgnu.a and libbsd.a: one image each, counted once. */
	CHECK(run.in.nimages == 3);
	done(&run);
}

static void test_library_search(void)
{
	struct scan_run run;
	const char *d1 = tmp_path("d1"), *d2 = tmp_path("d2");

	mkdir(d1, 0755);
	mkdir(d2, 0755);
	copy_file(fixture("plain.o"), tmp_path("d1/libfoo.a"));   /* content is irrelevant here */
	copy_file(fixture("libshared.so"), tmp_path("d2/libfoo.so"));
	copy_file(fixture("libgnu.a"), tmp_path("d2/libfoo.a"));
	copy_file(fixture("plain.o"), tmp_path("d2/exact.o"));
	mkdir(tmp_path("d1/libdir.so"), 0755);   /* directories never match */
	copy_file(fixture("libgnu.a"), tmp_path("d2/libdir.a"));

	/* Directory order first: d1's archive beats d2's shared library. */
	memset(&run, 0, sizeof(run));
	run.lib_paths[run.nlib_paths++] = d1;
	run.lib_paths[run.nlib_paths++] = d2;
	add_item(&run, OL_LINK_LIBRARY, "foo");
	add_item(&run, OL_LINK_LIBRARY, ":exact.o");
	add_item(&run, OL_LINK_LIBRARY, "dir");
	do_scan(&run);
	CHECK(run.rc == 0 && run.in.n == 3);
	CHECK(run.in.n > 0 && !strcmp(run.in.v[0].path, tmp_path("d1/libfoo.a")));
	CHECK(run.in.n > 0 && !strcmp(run.in.v[0].spelling, "-lfoo"));
	CHECK(run.in.n > 1 && !strcmp(run.in.v[1].path, tmp_path("d2/exact.o")));
	CHECK(run.in.n > 2 && !strcmp(run.in.v[2].path, tmp_path("d2/libdir.a")));
	done(&run);

	/* In one directory .so hides .a; -Bstatic looks for .a only. */
	memset(&run, 0, sizeof(run));
	run.lib_paths[run.nlib_paths++] = d2;
	run.lib_paths[run.nlib_paths++] = d1;
	add_item(&run, OL_LINK_LIBRARY, "foo");
	add_item(&run, OL_LINK_BSTATIC, NULL);
	add_item(&run, OL_LINK_LIBRARY, "foo");
	add_item(&run, OL_LINK_BDYNAMIC, NULL);
	add_item(&run, OL_LINK_LIBRARY, "foo");
	add_item(&run, OL_LINK_LIBRARY, ":libfoo.a");
	do_scan(&run);
	CHECK(run.rc == 0 && run.in.n == 4);
	if (run.in.n == 4) {
		CHECK(!strcmp(run.in.v[0].path, tmp_path("d2/libfoo.so")));
		CHECK(run.in.v[0].kind == OL_IN_SHARED && run.in.v[0].object->nimages == 0);
		CHECK(!strcmp(run.in.v[1].path, tmp_path("d2/libfoo.a")));
		CHECK(run.in.v[1].kind == OL_IN_ARCHIVE);
		CHECK(!strcmp(run.in.v[2].path, tmp_path("d2/libfoo.so")));
		CHECK(!strcmp(run.in.v[3].path, tmp_path("d2/libfoo.a")));
		CHECK(run.in.v[3].archive == run.in.v[1].archive);
	}
	done(&run);

	/* "=dir" is under --sysroot; a missing library is upstream's error. */
	memset(&run, 0, sizeof(run));
	run.sysroot = tmpdir;
	run.lib_paths[run.nlib_paths++] = "=/d2";
	run.lib_paths[run.nlib_paths++] = "=d1";
	add_item(&run, OL_LINK_LIBRARY, ":exact.o");
	add_item(&run, OL_LINK_LIBRARY, "nosuch");
	add_item(&run, OL_LINK_BSTATIC, NULL);
	add_item(&run, OL_LINK_LIBRARY, "foo");
	do_scan(&run);
	CHECK(run.rc == -1 && run.diag.errors == 1);
	CHECK(strstr(messages(&run), "error: unable to find library -lnosuch") != NULL);
	CHECK(run.in.n == 2);
	if (run.in.n == 2) {
		CHECK(!strcmp(run.in.v[0].path, tmp_path("d2/exact.o")));
		CHECK(!strcmp(run.in.v[1].path, tmp_path("d2/libfoo.a")));
	}
	done(&run);
}

/* ---- corruption loop ---------------------------------------------------------- */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return rng_state >> 17;
}

static void scan_mutant(const char *path, const uint8_t *data, size_t size)
{
	struct scan_run run;

	write_file(path, data, size);
	scan_one(&run, path);
	/* The mutant itself was read (mappings are kept until exit: too many
	 * rounds exhaust them, which would test nothing). */
	CHECK(!strstr(messages(&run), "cannot open '"));
	/* Whatever was found must be usable (messages captured). */
	ol_diag_capture_begin(&run.diag);
	for (size_t i = 0; i < run.in.n; i++) {
		struct ol_input *input = &run.in.v[i];
		struct ol_object **objs = input->archive ? input->archive->members : &input->object;
		size_t nobjs = input->archive ? input->archive->nmembers : (input->object ? 1 : 0);

		for (size_t j = 0; j < nobjs; j++) {
			ol_object_symbols(objs[j]);
			for (size_t k = 0; k < objs[j]->nimages; k++) {
				struct ol_device_image *img = &objs[j]->images[k];
				enum ol_input_kind kind = ol_identify(img->bin.image, img->bin.image_size);

				if (kind == OL_IN_OBJECT || kind == OL_IN_SHARED || kind == OL_IN_EXEC)
					ol_image_symbols(img);
			}
		}
	}
	ol_diag_capture_end();
	done(&run);
	/* The mapping stays until exit, so the inode is not reused. */
	unlink(path);
}

static void test_corruption(void)
{
	static const char *const names[] = {
		"omp19.o", "omp22.o", "embed.o", "be64.o", "elf32.o", "libshared.so",
		"libgnu.a", "libbsd.a", "libthin.a", "dev.offbin",
	};
	int rounds = getenv("OL_SCAN_FUZZ_ROUNDS") ? atoi(getenv("OL_SCAN_FUZZ_ROUNDS")) : 300;
	unsigned serial = 0;

	/* Thin archives name their members relative to themselves. */
	copy_file(fixture("omp19.o"), tmp_path("omp19.o"));
	copy_file(fixture("plain.o"), tmp_path("plain.o"));
	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		size_t size;
		uint8_t *data = read_file(fixture(names[f]), &size);
		uint8_t *copy = malloc(size);

		/* Truncations at a spread of lengths, including every header. */
		for (size_t len = 0; len < size; len += len < 256 ? 1 : 97)
			scan_mutant(tmp_path(ol_arena_printf(&ol_link_arena, "m%u", serial++)), data, len);
		for (int round = 0; round < rounds; round++) {
			int flips = 1 + (int)(rng() % 8);

			memcpy(copy, data, size);
			for (int i = 0; i < flips; i++) {
				size_t at = rng() % size;

				/* Half of the flips hit the first 256 bytes: headers. */
				if (i & 1)
					at %= size < 256 ? size : 256;
				copy[at] ^= (uint8_t)(1u << (rng() % 8));
			}
			scan_mutant(tmp_path(ol_arena_printf(&ol_link_arena, "m%u", serial++)), copy, size);
		}
		free(copy);
		free(data);
	}
}

static void remove_tree(const char *dir)
{
	const char *cmd = ol_arena_printf(&ol_link_arena, "rm -rf '%s'", dir);

	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", dir);
}

int main(void)
{
	fixtures = getenv("OL_SCAN_INPUTS");
	if (!fixtures && getenv("OL_TEST_SOURCE_DIR"))
		fixtures = ol_arena_printf(&ol_link_arena, "%s/lit/Inputs/scan",
					   getenv("OL_TEST_SOURCE_DIR"));
	if (!fixtures) {
		const char *slash = strrchr(__FILE__, '/');

		fixtures = ol_arena_printf(&ol_link_arena, "%.*s/../lit/Inputs/scan",
					   slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	}
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	test_identify();
	test_fat_objects();
	test_symbols();
	test_raw_binary();
	test_host_bitcode();
	test_archives();
	test_broken_files();
	test_link_line();
	test_library_search();
	test_corruption();
	remove_tree(tmpdir);
	ol_mapped_release_all();
	ol_arena_release(&ol_link_arena);
	if (failures)
		fprintf(stderr, "test_scan: %d check(s) failed\n", failures);
	return failures != 0;
}
