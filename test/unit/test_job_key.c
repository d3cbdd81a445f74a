/*
 * Unit tests for the device-link cache key (src/device/job_key.c) against
 * the option table's key column (include/offload/options.def).  Every
 * record of the table is put on a link line in its own spelling, with a
 * value, and the key of an AMDGPU group and of an NVPTX group computed
 * with and without it:
 *
 *   KEYED             the key changes (a miss);
 *   KEYED_PER_TRIPLE  it changes when the value names the group's triple
 *                     or none, and not when it names another triple;
 *   KEYED_DECODED     it changes (the key takes the decoded setting);
 *   HOST_INPUT        no GPU group's key changes (the CPU family keys what
 *                     it takes of the host line itself);
 *   FAMILY            the NVPTX group's key changes and the AMDGPU group's
 *                     stays (--wrapper-verbose, which the NVPTX family
 *                     keys; an option another family keys would make this
 *                     a column of the table);
 *   REMARKS           the key stays (the remarks have a key of their own,
 *                     src/device/remarks.c), and so it does for every
 *                     spelling of a remark option among the values of
 *                     other options (test_remark_spellings);
 *   UNKEYED           the key stays (a hit).
 *
 * And the other way round: a record whose option changes what the device
 * stage reads of the decoded line (device_view()) must be keyed, so a mark
 * of UNKEYED on an option that reaches a device link fails here.
 *
 * A record added to the table without a mark does not compile; one added
 * with a mark is walked here and needs no edit of this file unless its
 * value must be of a particular form (sample_value()) or it decodes into a
 * new field the device stage reads (device_view()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload/backend.h"
#include "offload/cache.h"
#include "offload/cmdline.h"
#include "offload/device_link.h"
#include "offload/group.h"
#include "offload/inputs.h"
#include "offload/job_key.h"
#include "offload/strvec.h"
#include "driver/driver_internal.h"

#include "check.h"

#define AMDGPU "amdgcn-amd-amdhsa"
#define NVPTX "nvptx64-nvidia-cuda"

/* A value each option accepts (decode checks some of them). */
static const char *sample_value(enum ol_opt_id id, const char *triple)
{
	static char per_triple[128];

	switch (id) {
	case OPT_opt_level:
		return "O3";
	case OPT_compression_level:
		return "5";
	case OPT_wrapper_jobs:
	case OPT_wrapper_jobs_16_19:
		return "3";
	case OPT_wrapper_time_trace_granularity:
		return "100";
	case OPT_device_lto:
		return "partitioned:2";
	case OPT_offload_abi:
		return "19";
	case OPT_cache_max_size:
	case OPT_device_link_memory:
		return "1G";
	case OPT_remote_storage:
		return "http://127.0.0.1:9/cache";
	case OPT_device_linker:
	case OPT_device_compiler:
		snprintf(per_triple, sizeof(per_triple), "%s=-some-option", triple);
		return per_triple;
	case OPT_bitcode_library:
		return "openmp-" AMDGPU "-gfx90a=library.bc";
	case OPT_builtin_bitcode:
		return AMDGPU "=builtins.bc";
	case OPT_override_image:
		return "openmp=image.o";
	case OPT_pass_remarks:
	case OPT_pass_remarks_missed:
	case OPT_pass_remarks_analysis:
		return "openmp-opt";
	case OPT_host_triple:
		return "aarch64-unknown-linux-gnu";
	case OPT_linker_path:
		return "/usr/bin/ld";
	case OPT_library:
	case OPT_library_sep:
	case OPT_library_eq:
		return "m";
	case OPT_mllvm:
	case OPT_mllvm_16:
		return "-some-option";
	case OPT_offload_opt_19:
	case OPT_offload_opt_16:
		return "some-option";
	case OPT_offload_opt:
		return "-some-option";
	default:
		return "value";
	}
}

/* The id the parser gives the record's arguments: its alias's, then the
 * canonical record's. */
static enum ol_opt_id parsed_id(const struct ol_opt *rec)
{
	enum ol_opt_id id = rec->alias != OPT_COUNT ? rec->alias : rec->id;

	return ol_opts[id].canon;
}

/* Writes the record's words, with a value, into words[]; returns how many. */
static size_t spell(const struct ol_opt *rec, const char *triple, char *buf, size_t size,
		    const char **words)
{
	const char *value = sample_value(rec->id, triple);

	switch (rec->kind) {
	case OL_KIND_FLAG:
		snprintf(buf, size, "%s%s", rec->prefixes[0], rec->name);
		words[0] = buf;
		return 1;
	case OL_KIND_SEPARATE:
		snprintf(buf, size, "%s%s", rec->prefixes[0], rec->name);
		words[0] = buf;
		words[1] = value;
		return 2;
	case OL_KIND_JOINED:
	case OL_KIND_JOINED_OR_SEPARATE:
		break;
	}
	snprintf(buf, size, "%s%s%s", rec->prefixes[0], rec->name, value);
	words[0] = buf;
	return 1;
}

/* Parses "offload-link [host] words... x.o" into cl; 0 or -1. */
static int parse(struct ol_cmdline *cl, const char *host, const char **words, size_t n)
{
	enum { MAX_WORDS = 12 };
	char *argv[MAX_WORDS + 4];   /* argv[0], the host, the words, x.o, NULL */
	int argc = 0;

	if (n > MAX_WORDS) {
		fprintf(stderr, "%s: a line of %zu words is longer than parse() takes\n",
			current_test, n);
		failures++;
		return -1;
	}
	argv[argc++] = (char *)"offload-link";
	if (host)
		argv[argc++] = (char *)host;
	for (size_t i = 0; i < n; i++)
		argv[argc++] = (char *)words[i];
	argv[argc++] = (char *)"x.o";
	argv[argc] = NULL;
	memset(cl, 0, sizeof(*cl));
	return ol_cmdline_parse(argc, argv, cl);
}

static void add_strvec(struct strbuf *sb, const char *what, const struct strvec *v)
{
	strbuf_addf(sb, "%s:%zu", what, v->nr);
	for (size_t i = 0; i < v->nr; i++)
		strbuf_addf(sb, "[%s]", v->v[i]);
}

/* What the device stage (src/device, src/backend) reads of the decoded
 * line, as text: the fields a device link depends on. */
static char *device_view(const struct ol_cmdline *cl)
{
	struct strbuf sb = STRBUF_INIT;

	add_strvec(&sb, "mllvm", &cl->mllvm);
	add_strvec(&sb, "offload-opt", &cl->offload_opt);
	add_strvec(&sb, "device-linker", &cl->device_linker);
	add_strvec(&sb, "device-compiler", &cl->device_compiler);
	add_strvec(&sb, "ptxas", &cl->ptxas_args);
	add_strvec(&sb, "should-extract", &cl->should_extract);
	add_strvec(&sb, "bitcode-library", &cl->bitcode_library);
	add_strvec(&sb, "builtin-bitcode", &cl->builtin_bitcode);
	add_strvec(&sb, "override-image", &cl->override_image);
	strbuf_addf(&sb, "O%d g%d embed%d whole%d clang%d units%u r%d cuda[%s] flavor%d",
		    cl->opt_level, cl->device_debug, cl->embed_bitcode, cl->whole_program,
		    cl->clang_backend, cl->device_lto_units, cl->relocatable,
		    cl->cuda_path ? cl->cuda_path : "", (int)cl->flavor);
	return strbuf_detach(&sb);
}

/* What the remarks of a device link read of the decoded line. */
static char *remark_view(const struct ol_cmdline *cl)
{
	struct strbuf sb = STRBUF_INIT;

	add_strvec(&sb, "remarks", &cl->pass_remarks);
	strbuf_addf(&sb, "remarks-file%d ", cl->remarks_file != NULL);
	return strbuf_detach(&sb);
}

/* What the CPU family's device link takes of the host line. */
static char *host_view(const struct ol_cmdline *cl)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < cl->nlink_items; i++)
		strbuf_addf(&sb, "%d[%s]", (int)cl->link_items[i].kind, cl->link_items[i].value);
	for (size_t i = 0; i < cl->nlib_paths; i++)
		strbuf_addf(&sb, "L[%s]", cl->lib_paths[i]);
	strbuf_addf(&sb, "sysroot[%s] linker[%s]", cl->sysroot ? cl->sysroot : "",
		    cl->linker_path ? cl->linker_path : "");
	add_strvec(&sb, "runtimes", &cl->driver_runtimes);
	return strbuf_detach(&sb);
}

/* An option that changes what a device link reads must be keyed. */
static void check_views(const struct ol_cmdline *base, const struct ol_cmdline *with,
			const char *spelled, enum ol_key_role role)
{
	char *a = device_view(base), *b = device_view(with);

	if (strcmp(a, b) != 0 && role != OL_KEY_KEYED && role != OL_KEY_KEYED_PER_TRIPLE &&
	    role != OL_KEY_KEYED_DECODED) {
		fprintf(stderr, "%s: '%s' changes what a device link reads (%s), but the table "
			"does not key it\n", current_test, spelled, b);
		failures++;
	}
	free(a);
	free(b);
	a = remark_view(base);
	b = remark_view(with);
	if (strcmp(a, b) != 0 && role != OL_KEY_REMARKS) {
		fprintf(stderr, "%s: '%s' changes which remarks a device link reports (%s), but "
			"the table does not mark it REMARKS\n", current_test, spelled, b);
		failures++;
	}
	free(a);
	free(b);
	a = host_view(base);
	b = host_view(with);
	if (strcmp(a, b) != 0 && role == OL_KEY_UNKEYED) {
		fprintf(stderr, "%s: '%s' changes what the CPU family's link takes of the host "
			"line, but the table marks it UNKEYED\n", current_test, spelled);
		failures++;
	}
	free(a);
	free(b);
}

static int has_arg(const struct ol_cmdline *cl, enum ol_opt_id id)
{
	for (size_t i = 0; i < cl->nargs; i++)
		if (cl->args[i].id == id)
			return 1;
	return 0;
}

static void group_key(const struct ol_cmdline *cl, const char *triple, const char *arch,
		      char key[OL_CACHE_KEY_HEX])
{
	struct ol_inputs in;
	struct ol_link_context ctx;
	struct ol_group g;

	memset(&in, 0, sizeof(in));
	memset(&ctx, 0, sizeof(ctx));
	memset(&g, 0, sizeof(g));
	ctx.cl = cl;
	ctx.in = &in;
	ctx.flavor = OL_FLAVOR_22;
	ctx.exe_name = "app";
	g.triple = triple;
	g.arch = arch;
	g.target = ol_target_for(triple);
	g.kinds = OL_OFK_OPENMP;
	ol_group_prepare(&g, &ctx);
	ol_group_job_key(NULL, &g, &ctx, key);
	strvec_release(&g.linker_args);
	strvec_release(&g.compiler_args);
	strvec_release(&g.key_args);
	free(g.route_reason);
}

/* The keys of both GPU groups for a line without the record and with it;
 * the value for per-triple records names `value_triple`. */
static void check_record(const struct ol_opt *rec, const char *value_triple, int want_change)
{
	static const char *const triples[][2] = { { AMDGPU, "gfx90a" }, { NVPTX, "sm_90" } };
	/* Options that only exist on a Windows host line. */
	static const char *const windows = "--host-triple=x86_64-pc-windows-msvc";
	struct ol_cmdline base, with;
	const char *words[2], *host = NULL;
	char buf[256];
	size_t n = spell(rec, value_triple, buf, sizeof(buf), words);
	enum ol_opt_id id = parsed_id(rec);

	if (parse(&with, NULL, words, n) < 0 || !has_arg(&with, id)) {
		ol_cmdline_release(&with);
		host = windows;
		if (parse(&with, host, words, n) < 0 || !has_arg(&with, id)) {
			fprintf(stderr, "%s: '%s' does not parse as its own record\n", current_test,
				buf);
			failures++;
			ol_cmdline_release(&with);
			return;
		}
	}
	CHECK(parse(&base, host, NULL, 0) == 0);
	check_views(&base, &with, buf, ol_option_key_role(id));
	for (size_t t = 0; t < sizeof(triples) / sizeof(triples[0]); t++) {
		char before[OL_CACHE_KEY_HEX], after[OL_CACHE_KEY_HEX];
		const char *triple = triples[t][0];
		int changed;

		group_key(&base, triple, triples[t][1], before);
		group_key(&with, triple, triples[t][1], after);
		changed = strcmp(before, after) != 0;
		/* A per-triple value changes the key of its own triple only; a
		 * family's option that of the family named. */
		if ((ol_option_key_role(id) == OL_KEY_KEYED_PER_TRIPLE ||
		     ol_option_key_role(id) == OL_KEY_FAMILY) && want_change)
			want_change = strcmp(value_triple, triple) == 0 ? 1 : 0;
		if (changed != want_change) {
			fprintf(stderr, "%s: '%s' %s the key of a %s link\n", current_test, buf,
				changed ? "changes" : "does not change", triple);
			failures++;
		}
		if (ol_option_key_role(id) == OL_KEY_KEYED_PER_TRIPLE ||
		    ol_option_key_role(id) == OL_KEY_FAMILY)
			want_change = 1;
	}
	ol_cmdline_release(&base);
	ol_cmdline_release(&with);
}

/* Options that end the run while the line is parsed (they print and exit). */
static int ends_the_run(enum ol_opt_id id)
{
	return id == OPT_help || id == OPT_help_hidden || id == OPT_version || id == OPT_version_22;
}

static void test_every_record(void)
{
	for (size_t i = 0; i < OL_NOPTS; i++) {
		const struct ol_opt *rec = &ol_opts[i];
		enum ol_opt_id id = parsed_id(rec);
		enum ol_key_role role = ol_option_key_role(id);

		current_test = rec->name[0] ? rec->name : "--";
		/* A record speaks for the option it is parsed as. */
		CHECK(rec->key == role);
		if (ends_the_run(rec->id) || ends_the_run(id)) {
			CHECK(role == OL_KEY_UNKEYED);
			continue;
		}
		switch (role) {
		case OL_KEY_KEYED:
		case OL_KEY_KEYED_DECODED:
			check_record(rec, AMDGPU, 1);
			break;
		case OL_KEY_KEYED_PER_TRIPLE:
			check_record(rec, AMDGPU, 1);
			check_record(rec, NVPTX, 1);
			break;
		case OL_KEY_FAMILY:
			check_record(rec, NVPTX, 1);
			break;
		case OL_KEY_HOST_INPUT:
		case OL_KEY_REMARKS:
		case OL_KEY_UNKEYED:
			check_record(rec, AMDGPU, 0);
			break;
		}
	}
}

/* The per-triple rule in the key: a value for another triple leaves it. */
static void test_key_args(void)
{
	struct ol_cmdline cl;
	struct strvec args = STRVEC_INIT;
	const char *words[] = { "--device-linker=" NVPTX "=-a", "--device-linker=-b", "-mllvm",
				"-c", "--opt-level=O1", "--stats" };

	current_test = "key_args";
	CHECK(parse(&cl, NULL, words, sizeof(words) / sizeof(words[0])) == 0);
	ol_cmdline_key_args(&cl, AMDGPU, OL_FLAVOR_22, &args);
	CHECK(args.nr == 3);
	if (args.nr == 3) {
		CHECK(strcmp(args.v[0], "device-linker=-b") == 0);
		CHECK(strcmp(args.v[1], "mllvm-c") == 0);
		CHECK(strcmp(args.v[2], "opt-level=O1") == 0);
	}
	strvec_release(&args);
	ol_cmdline_key_args(&cl, NVPTX, OL_FLAVOR_22, &args);
	CHECK(args.nr == 4 && strcmp(args.v[0], "device-linker=-a") == 0);
	strvec_release(&args);
	ol_cmdline_release(&cl);
}

/* Every spelling of a remark option, alone and among other options'
 * values, leaves the key of both GPU groups as it is; the other values
 * around them still count. */
static void test_remark_spellings(void)
{
	static const char *spellings[][4] = {
		{ "--pass-remarks=openmp-opt", "--pass-remarks-missed=inline",
		  "--pass-remarks-analysis=.*", NULL },
		{ "--offload-opt=-pass-remarks=openmp-opt", NULL },
		{ "--offload-opt=--pass-remarks-missed=inline", NULL },
		{ "-mllvm", "-pass-remarks=openmp-opt", NULL },
		{ "-mllvm", "--pass-remarks-analysis=openmp-opt", NULL },
		{ "--device-compiler=" AMDGPU "=-Rpass=openmp-opt",
		  "--device-compiler=" NVPTX "=-Rpass-analysis=openmp-opt", NULL },
		{ "--device-compiler=-Rpass-missed=inline", NULL },
		{ "--device-compiler=-fsave-optimization-record",
		  "--device-compiler=-foptimization-record-file=x", NULL },
		{ "--device-compiler=" AMDGPU "=-mllvm", "--device-compiler=" AMDGPU
		  "=-pass-remarks=openmp-opt", NULL },
		{ "--device-linker=-mllvm", "--device-linker=-pass-remarks=openmp-opt", NULL },
		{ "--remarks-file=build/app", NULL },
	};
	static const char *const triples[][2] = { { AMDGPU, "gfx90a" }, { NVPTX, "sm_90" } };
	struct ol_cmdline base, with, other;
	const char *keep[] = { "-mllvm", "-inline-threshold=100" };

	current_test = "remark spellings";
	CHECK(parse(&base, NULL, NULL, 0) == 0);
	for (size_t s = 0; s < sizeof(spellings) / sizeof(spellings[0]); s++) {
		size_t n = 0;

		while (n < 4 && spellings[s][n])
			n++;
		if (parse(&with, NULL, spellings[s], n) < 0) {
			fprintf(stderr, "%s: '%s' does not parse\n", current_test, spellings[s][0]);
			failures++;
			ol_cmdline_release(&with);
			continue;
		}
		for (size_t t = 0; t < sizeof(triples) / sizeof(triples[0]); t++) {
			char before[OL_CACHE_KEY_HEX], after[OL_CACHE_KEY_HEX];

			group_key(&base, triples[t][0], triples[t][1], before);
			group_key(&with, triples[t][0], triples[t][1], after);
			if (strcmp(before, after) != 0) {
				fprintf(stderr, "%s: '%s' changes the key of a %s link\n",
					current_test, spellings[s][n - 1], triples[t][0]);
				failures++;
			}
		}
		ol_cmdline_release(&with);
	}
	/* An -mllvm pair that is not a remark option still keys. */
	CHECK(parse(&other, NULL, keep, 2) == 0);
	{
		char before[OL_CACHE_KEY_HEX], after[OL_CACHE_KEY_HEX];
		group_key(&base, AMDGPU, "gfx90a", before);
		group_key(&other, AMDGPU, "gfx90a", after);
		CHECK(strcmp(before, after) != 0);
	}
	ol_cmdline_release(&other);
	ol_cmdline_release(&base);
	CHECK(ol_is_remark_arg("-pass-remarks=x") && ol_is_remark_arg("pass-remarks-missed=x") &&
	      ol_is_remark_arg("-Rpass-analysis=x") && !ol_is_remark_arg("-Rsanitize") &&
	      !ol_is_remark_arg("-inline-threshold=1"));
}

/* The key of a mixed link's bitcode product (ol_lto_product_job_key):
 * the symbols the native objects need count as a set, the bitcode images
 * in order, and the processor decides. */
static void product_key(const char *cpu, const char *const *preserve, int swap,
			char key[OL_CACHE_KEY_HEX])
{
	static const uint8_t a[] = "BC\xc0\xde one", b[] = "BC\xc0\xde two";
	struct ol_device_image ia, ib, *images[2];
	struct ol_cmdline cl;
	struct ol_inputs in;
	struct ol_link_context ctx;
	struct ol_group g;
	struct ol_lto_request req;

	memset(&ia, 0, sizeof(ia));
	memset(&ib, 0, sizeof(ib));
	ia.bin.image_kind = ib.bin.image_kind = OL_IMG_BITCODE;
	ia.bin.image = a;
	ia.bin.image_size = sizeof(a);
	ib.bin.image = b;
	ib.bin.image_size = sizeof(b);
	images[0] = swap ? &ib : &ia;
	images[1] = swap ? &ia : &ib;
	CHECK(parse(&cl, NULL, NULL, 0) == 0);
	memset(&in, 0, sizeof(in));
	memset(&ctx, 0, sizeof(ctx));
	memset(&g, 0, sizeof(g));
	memset(&req, 0, sizeof(req));
	ctx.cl = &cl;
	ctx.in = &in;
	ctx.flavor = OL_FLAVOR_22;
	ctx.exe_name = "app";
	g.triple = NVPTX;
	g.arch = "sm_90";
	g.target = ol_target_for(NVPTX);
	g.kinds = OL_OFK_OPENMP;
	ol_group_prepare(&g, &ctx);
	g.images = images;
	g.nimages = 2;
	g.image_ids = NULL;
	req.cpu = cpu;
	req.features = "";
	req.preserve = preserve;
	ol_lto_product_job_key(NULL, &g, &ctx, "cubin", &req, key);
	strvec_release(&g.linker_args);
	strvec_release(&g.compiler_args);
	strvec_release(&g.key_args);
	free(g.route_reason);
	ol_cmdline_release(&cl);
}

static void test_product_key(void)
{
	static const char *const ab[] = { "__kmpc_barrier", "__kmpc_target_init", NULL };
	static const char *const ba_twice[] = { "__kmpc_target_init", "__kmpc_barrier",
						"__kmpc_target_init", NULL };
	static const char *const abc[] = { "__kmpc_barrier", "__kmpc_target_init", "printf", NULL };
	char base[OL_CACHE_KEY_HEX], other[OL_CACHE_KEY_HEX];

	current_test = "mixed product key";
	product_key("sm_90", ab, 0, base);
	product_key("sm_90", ba_twice, 0, other);
	CHECK(strcmp(base, other) == 0);
	product_key("sm_90", abc, 0, other);
	CHECK(strcmp(base, other) != 0);
	product_key("sm_90", ab, 1, other);
	CHECK(strcmp(base, other) != 0);
	product_key("sm_80", ab, 0, other);
	CHECK(strcmp(base, other) != 0);
}

int main(void)
{
	/* --builtin-bitcode's sample names a file the group stage maps. */
	FILE *builtins = fopen("builtins.bc", "w");

	CHECK(builtins && fputs("BC\xc0\xde", builtins) >= 0 && fclose(builtins) == 0);
	test_key_args();
	test_remark_spellings();
	test_product_key();
	test_every_record();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures != 0;
}
