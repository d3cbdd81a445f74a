/*
 * Unit tests for the partitioner of partitioned device LTO (the backend's
 * split(), src/backend/partition.c) on small host modules: no OpenMP
 * runtime, no GPU toolchain, only clang-22 and llvm-dis-22 of the LLVM the
 * backend is built with.  The rules of docs/design/partitioned-lto.md, each on the smallest module that shows it:
 *
 *   tables    a constant table of pointers that a function of one unit
 *             reads, called from the other unit: both partitions hold it in
 *             llvm.compiler.used (what full LTO sees as used, each partition
 *             sees so), so no partition folds a read of it to one entry;
 *   reuse     an edit of one unit leaves the other unit's partition the
 *             same bytes (its cache key), with and without -g;
 *   aliases   C++ constructors and destructors (aliases of one another)
 *             split into two partitions instead of keeping the module whole;
 *   whole     an ifunc keeps the module whole, and says why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload/backend.h"

#include "check.h"
#include "external_tools.h"

#define TRIPLE "x86_64-unknown-linux-gnu"

static const char *const clang22 = OL_LLVM_BINDIR "/clang";
static const char *const llvm_dis = OL_LLVM_BINDIR "/llvm-dis";

/* Compiles `source` (C, or C++ when cxx) to bitcode; malloc'd bytes or NULL. */
static uint8_t *compile(const char *name, const char *source, int cxx, int debug, size_t *size)
{
	const char *src = scratch("%s%s", name, cxx ? ".cpp" : ".c");
	const char *obj = scratch("%s.bc", name);
	const char *argv[] = { clang22, cxx ? "--driver-mode=g++" : "-xc", "--target=" TRIPLE, "-O1",
			       "-flto", debug ? "-g" : "-g0", "-c", src, "-o", obj, NULL };

	if (write_whole(src, source, strlen(source)) < 0 || run_tool(argv, NULL) != 0)
		return NULL;
	return read_whole(obj, size);
}

/* The IR text of a partition (llvm-dis), malloc'd, or NULL. */
static char *disassemble(const struct ol_buffer *part, const char *name)
{
	const char *bc = scratch("%s.bc", name), *ll = scratch("%s.ll", name);
	const char *argv[] = { llvm_dis, bc, "-o", ll, NULL };
	size_t size;
	uint8_t *text;

	if (write_whole(bc, part->data, part->size) < 0 || run_tool(argv, NULL) != 0)
		return NULL;
	text = read_whole(ll, &size);
	return text ? (char *)text : NULL;
}

#define MAX_UNITS 3

struct split_result {
	struct ol_buffer parts[MAX_UNITS], keys[MAX_UNITS];
	int rc;
	char *err;
};

/* Splits n units, one partition each, at -O2. */
static void split_units(const struct ol_backend *be, size_t n, const uint8_t *const *modules,
			const size_t *sizes, const char *const *preserve, int debug,
			struct split_result *r)
{
	static const char *const names[MAX_UNITS] = { "a.o", "b.o", "c.o" };
	static const unsigned partition[MAX_UNITS] = { 0, 1, 2 };
	struct ol_lto_request req;

	memset(&req, 0, sizeof(req));
	memset(r, 0, sizeof(*r));
	req.triple = TRIPLE;
	req.cpu = "";
	req.features = "";
	req.opt_level = 2;
	req.debug = debug;
	req.modules = modules;
	req.sizes = sizes;
	req.names = names;
	req.nmodules = n;
	req.preserve = preserve;
	req.module_partition = partition;
	req.npartitions = n;
	r->rc = be->split(&req, r->parts, r->keys, &r->err);
}

/* Compiles two units and splits them, one partition each.  Returns 0, or
 * -1 (counted as a failure) when a unit does not compile. */
static int split_sources(const struct ol_backend *be, const char *name, const char *a_src,
			 const char *b_src, int cxx, const char *const *preserve,
			 struct split_result *r)
{
	char a_name[64], b_name[64];
	size_t sizes[2];
	uint8_t *units[2];

	snprintf(a_name, sizeof(a_name), "%s_a", name);
	snprintf(b_name, sizeof(b_name), "%s_b", name);
	units[0] = compile(a_name, a_src, cxx, 0, &sizes[0]);
	units[1] = compile(b_name, b_src, cxx, 0, &sizes[1]);
	CHECK(units[0] && units[1]);
	if (units[0] && units[1])
		split_units(be, 2, (const uint8_t *const *)units, sizes, preserve, 0, r);
	free(units[0]);
	free(units[1]);
	return units[0] && units[1] ? 0 : -1;
}

static void release_split(struct split_result *r)
{
	for (int p = 0; p < MAX_UNITS; p++) {
		free(r->parts[p].data);
		free(r->keys[p].data);
	}
	free(r->err);
}

static const char table_unit[] =
	"static const char *const NAMES[2] = {\"zero\", \"one\"};\n"
	"const char *name_of(int i) { return NAMES[i]; }\n"
	"int edited(int x) { return x * %d; }\n";
static const char caller_unit[] =
	"const char *name_of(int i);\n"
	"int first_letter(int i) { return name_of(i)[0]; }\n";
static const char *const preserve[] = { "first_letter", "edited", NULL };

static void test_tables(const struct ol_backend *be)
{
	char a_src[512];
	struct split_result r;

	current_test = "tables";
	snprintf(a_src, sizeof(a_src), table_unit, 3);
	if (split_sources(be, "tables", a_src, caller_unit, 0, preserve, &r) < 0)
		return;
	CHECK(r.rc == 0);
	CHECK(r.parts[0].size && r.parts[1].size);
	for (int p = 0; r.rc == 0 && p < 2; p++) {
		char name[32], *ir;
		const char *used;

		snprintf(name, sizeof(name), "tables_part%d", p);
		ir = disassemble(&r.parts[p], name);
		CHECK(ir != NULL);
		/* Partition 0 owns the table; partition 1 holds a copy of it
		 * with its private copy of name_of().  Each defines it, with
		 * its contents, for the table guard that runs when the
		 * partition is optimized (table_guard.c); the split itself
		 * lists no table. */
		if (!ir || !strstr(ir, "NAMES") || !strstr(ir, "c\"zero\\00\"")) {
			fprintf(stderr, "tables: partition %d holds no table\n", p);
			failures++;
		}
		used = ir ? strstr(ir, "@llvm.compiler.used = ") : NULL;
		if (used && memmem(used, strcspn(used, "\n"), "NAMES", 5)) {
			fprintf(stderr, "tables: partition %d lists the table: '%.*s'\n", p,
				(int)strcspn(used, "\n"), used);
			failures++;
		}
		free(ir);
	}
	release_split(&r);
}

static const char edited_unit[] = "int edited(int x) { return x * %d; }\n";
static const char table_only_unit[] =
	"static const char *const NAMES[2] = {\"zero\", \"one\"};\n"
	"const char *name_of(int i) { return NAMES[i]; }\n";

/* Unit a is edited; b calls into c.  Under -g too: a partition that holds
 * nothing of the edited unit (not even a copy of one of its functions,
 * whose debug info names the edited file and its checksum) keeps its
 * bytes. */
static void test_reuse(const struct ol_backend *be, int debug)
{
	static const char *const keep[] = { "first_letter", "edited", NULL };
	char src[256];
	size_t sizes[2][3];
	uint8_t *units[2][3];
	struct split_result r[2];

	current_test = debug ? "reuse -g" : "reuse";
	for (int v = 0; v < 2; v++) {
		snprintf(src, sizeof(src), edited_unit, v ? 5 : 3);
		units[v][0] = compile("reuse_a", src, 0, debug, &sizes[v][0]);
		units[v][1] = compile("reuse_b", caller_unit, 0, debug, &sizes[v][1]);
		units[v][2] = compile("reuse_c", table_only_unit, 0, debug, &sizes[v][2]);
	}
	CHECK(units[0][0] && units[1][0] && units[0][1] && units[0][2]);
	if (units[0][0] && units[1][0] && units[0][1] && units[0][2]) {
		const uint8_t *edit[] = { units[1][0], units[0][1], units[0][2] };
		size_t edit_sizes[] = { sizes[1][0], sizes[0][1], sizes[0][2] };

		split_units(be, 3, (const uint8_t *const *)units[0], sizes[0], keep, debug, &r[0]);
		split_units(be, 3, edit, edit_sizes, keep, debug, &r[1]);
		if (r[0].rc != 0 || r[1].rc != 0)
			fprintf(stderr, "%s: split: %d %d: %s\n", current_test, r[0].rc, r[1].rc,
				r[0].err ? r[0].err : r[1].err ? r[1].err : "");
		CHECK(r[0].rc == 0 && r[1].rc == 0);
		/* The edited unit's partition changes; the others are the same
		 * bytes, so their cache entries serve the relink. */
		CHECK(r[0].parts[0].size != r[1].parts[0].size ||
		      memcmp(r[0].parts[0].data, r[1].parts[0].data, r[0].parts[0].size) != 0);
		for (int p = 1; p < 3; p++)
			if (r[0].parts[p].size != r[1].parts[p].size ||
			    memcmp(r[0].parts[p].data, r[1].parts[p].data, r[0].parts[p].size) != 0) {
				fprintf(stderr, "%s: partition %d changed with an edit of unit a\n",
					current_test, p);
				failures++;
			}
		release_split(&r[0]);
		release_split(&r[1]);
	}
	for (int v = 0; v < 2; v++)
		for (int u = 0; u < 3; u++)
			free(units[v][u]);
}

static const char class_unit[] =
	"struct Counter { Counter(int); ~Counter(); int value; };\n"
	"Counter::Counter(int v) : value(v) {}\n"
	"Counter::~Counter() { value = 0; }\n"
	"int count_twice(int v) { Counter c(v); return c.value * 2; }\n";
static const char class_user_unit[] =
	"struct Counter { Counter(int); ~Counter(); int value; };\n"
	"int make(int v) { Counter c(v + 1); return c.value; }\n";

static void test_aliases(const struct ol_backend *be)
{
	static const char *const keep[] = { "_Z11count_twicei", "_Z4makei", NULL };
	struct split_result r;
	char *ir = NULL;

	current_test = "aliases";
	if (split_sources(be, "alias", class_unit, class_user_unit, 1, keep, &r) < 0)
		return;
	if (r.rc != 0)
		fprintf(stderr, "aliases: split kept the module whole (%d): %s\n", r.rc,
			r.err ? r.err : "");
	CHECK(r.rc == 0);
	CHECK(r.parts[0].size && r.parts[1].size);
	/* The module had aliases: the constructor's complete-object symbol
	 * is an alias of the base-object one. */
	if (r.rc == 0)
		ir = disassemble(&r.parts[0], "alias_part0");
	CHECK(!ir || strstr(ir, "alias"));
	free(ir);
	release_split(&r);
}

static const char ifunc_unit[] =
	"static int impl(void) { return 1; }\n"
	"static void *resolve(void) { return (void *)impl; }\n"
	"int chosen(void) __attribute__((ifunc(\"resolve\")));\n"
	"int call_chosen(void) { return chosen(); }\n";

static void test_whole(const struct ol_backend *be)
{
	static const char *const keep[] = { "call_chosen", "first_letter", NULL };
	struct split_result r;

	current_test = "whole";
	if (split_sources(be, "ifunc", ifunc_unit, caller_unit, 0, keep, &r) < 0)
		return;
	/* 1: kept whole by rule, the reason in err; one partition. */
	CHECK(r.rc == 1);
	CHECK(r.err && strstr(r.err, "ifunc"));
	CHECK(r.parts[0].size && !r.parts[1].size);
	release_split(&r);
}

int main(void)
{
	const struct ol_backend *be;

	if (access(clang22, X_OK) != 0 || access(llvm_dis, X_OK) != 0) {
		fprintf(stderr, "test_partition: needs %s and %s\n", clang22, llvm_dis);
		return 1;
	}
	be = ol_backend_get();
	if (!be) {
		fprintf(stderr, "test_partition: no backend (OFFLOAD_LINK_BACKEND)\n");
		return 1;
	}
	if (scratch_open() < 0)
		return 1;
	test_tables(be);
	test_reuse(be, 0);
	test_reuse(be, 1);
	test_aliases(be);
	test_whole(be);
	scratch_close();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures != 0;
}
