/*
 * The NVPTX target family (nvptx64-nvidia-cuda, arch sm_XX).  The device
 * image is an executable cubin, what libomptarget's CUDA plugin and the CUDA
 * runtime load.
 *
 * Bitcode (device code built with -foffload-lto, the OpenMP device runtime)
 * goes through in-process LTO to PTX, which ptxas assembles into a
 * relocatable cubin; nvlink then links it with the cubins clang compiled
 * without LTO.  Upstream reaches the same two tools through the device clang
 * and clang-nvlink-wrapper, two extra processes per group; the flags given
 * to ptxas and nvlink are the ones those drivers give.
 *
 * The CUDA tools are looked up in --cuda-path (22 also passes it through
 * --device-compiler), then /usr/local/cuda, then $PATH.
 */
#include "target_impl.h"
#include "offload/job_key.h"
#include "offload/key_material.h"
#include "offload/cubin.h"
#include "offload/elf_cpu.h"
#include "offload/memory_budget.h"
#include "offload/fatbinary.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/spawn.h"
#include "offload/temp_names.h"
#include "offload/tempfile.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The CUDA installation the user named, or NULL: the last --cuda-path= of
 * the group's --device-compiler values (22), else --cuda-path. */
static char *named_cuda_path(const struct ol_group *g, const struct ol_link_context *ctx)
{
	const char *found = ctx->cl->cuda_path;

	for (size_t i = 0; g && i < g->compiler_args.nr; i++)
		if (ol_starts_with(g->compiler_args.v[i], "--cuda-path="))
			found = g->compiler_args.v[i] + strlen("--cuda-path=");
	return found && *found ? ol_xstrdup(found) : NULL;
}

/* The program, or NULL without a word. */
static char *cuda_program_path(const char *name, const struct ol_group *g,
			       const struct ol_link_context *ctx, char **named_bin_out)
{
	char *cuda = named_cuda_path(g, ctx);
	char *named_bin = cuda ? ol_xasprintf("%s/bin", cuda) : NULL;
	char *program = ol_find_cuda_tool(name, cuda);

	free(cuda);
	if (named_bin_out)
		*named_bin_out = named_bin;
	else
		free(named_bin);
	return program;
}

char *ol_find_cuda_program(const char *name, const struct ol_group *g, const char *purpose,
			   const struct ol_link_context *ctx)
{
	char *named_bin;
	char *program = cuda_program_path(name, g, ctx, &named_bin);

	if (!program && named_bin)
		ol_error("cannot find '%s' for %s in '%s', /usr/local/cuda/bin or PATH",
			 name, purpose, named_bin);
	else if (!program)
		ol_error("cannot find '%s' for %s in /usr/local/cuda/bin or PATH; "
			 "pass --cuda-path=<CUDA installation>", name, purpose);
	free(named_bin);
	return program;
}

static char *find_cuda_program(const char *name, const struct ol_group *g,
			       const struct ol_link_context *ctx)
{
	char *purpose = ol_xasprintf("the '%s' '%s' device link", g->triple, g->arch);
	char *program = ol_find_cuda_program(name, g, purpose, ctx);

	free(purpose);
	return program;
}

/* The lowest PTX ISA version (x10) each GPU accepts, as the NVPTX back
 * end's processor table and ptxas require it; 0 for a GPU not listed. */
static int min_ptx_for(const char *arch)
{
	static const struct { int sm, ptx; } table[] = {
		{ 50, 40 }, { 52, 41 }, { 53, 42 }, { 60, 50 }, { 61, 50 }, { 62, 50 },
		{ 70, 60 }, { 72, 61 }, { 75, 63 }, { 80, 70 }, { 86, 71 }, { 87, 74 },
		{ 88, 90 }, { 89, 78 }, { 90, 78 }, { 100, 86 }, { 101, 86 }, { 103, 88 },
		{ 110, 90 }, { 120, 87 }, { 121, 88 },
	};
	char *end;
	long sm;

	if (!ol_starts_with(arch, "sm_"))
		return 0;
	sm = strtol(arch + 3, &end, 10);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].sm != sm)
			continue;
		/* Architecture-specific (sm_90a) and family (sm_100f) variants
		 * came with PTX 8.0 and 8.8. */
		if (strcmp(end, "a") == 0)
			return table[i].ptx > 80 ? table[i].ptx : 80;
		if (strcmp(end, "f") == 0)
			return table[i].ptx > 88 ? table[i].ptx : 88;
		return *end ? 0 : table[i].ptx;
	}
	return 0;
}

/* The images' features with one PTX version: the highest any image asks
 * for, but never below what the GPU needs.  The OpenMP device runtime is
 * built with +ptx63 for every GPU, and LLVM 22 stops with a fatal error on
 * a PTX version its target cannot use, so "+ptx63" alone must become
 * "+ptx70" for sm_80.  A GPU missing from the table keeps the features as
 * they are. */
static char *nvptx_features(const struct ol_group *g)
{
	char *merged = ol_group_features(g, NULL);
	int min_ptx = min_ptx_for(g->arch), ptx = 0;
	struct strbuf out = STRBUF_INIT;
	const char *p = merged;

	if (!min_ptx)
		return merged;
	while (*p) {
		size_t len = strcspn(p, ",");
		if (len > 4 && strncmp(p + 1, "ptx", 3) == 0) {
			int version = atoi(p + 4);
			if (*p == '+' && version > ptx)
				ptx = version;
		} else if (len) {
			strbuf_addf(&out, "%s%.*s", out.len ? "," : "", (int)len, p);
		}
		p += len;
		if (*p == ',')
			p++;
	}
	strbuf_addf(&out, "%s+ptx%d", out.len ? "," : "", ptx > min_ptx ? ptx : min_ptx);
	free(merged);
	return strbuf_detach(&out);
}

/* How each non-bitcode image is handed to the CUDA tools: nvlink goes by
 * the file name, so a cubin must be called .cubin and a fat binary .fatbin;
 * PTX text is named .s and assembled by ptxas first. */
static const char *nvptx_image_ext(const struct ol_device_image *img)
{
	const uint8_t *p = img->bin.image;
	uint64_t n = img->bin.image_size;

	switch (img->bin.image_kind) {
	case OL_IMG_PTX:
		return "s";
	case OL_IMG_FATBINARY:
		return "fatbin";
	case OL_IMG_OBJECT:
	case OL_IMG_CUBIN:
		return "cubin";
	default:
		break;
	}
	/* IMG_None: go by the bytes.  0xBA55ED50 is the fat binary magic. */
	if (n >= 4 && p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba)
		return "fatbin";
	if (n >= 4 && memcmp(p, "\177ELF", 4) == 0)
		return "cubin";
	return "s";
}

/* clang's NVPTX assembler job: full debug info only without optimization,
 * line tables otherwise; ptxas optimizes at -O3 unless told.  The spec, not
 * a group: a partition job on another machine (lto_job.c) runs it too. */
static int ptxas_file(const struct ol_assemble_spec *s, const char *ptxas, const char *ptx,
		      const char *cubin)
{
	struct strvec argv = STRVEC_INIT;
	int rc;

	strvec_push(&argv, ptxas);
	strvec_push(&argv, ol_starts_with(s->triple, "nvptx64") ? "-m64" : "-m32");
	if (s->debug && s->opt_level == 0) {
		strvec_push(&argv, "-g");
		strvec_push(&argv, "--dont-merge-basicblocks");
		strvec_push(&argv, "--return-at-end");
	} else {
		strvec_pushf(&argv, "-O%d", s->opt_level);
		if (s->debug)
			strvec_push(&argv, "-lineinfo");
	}
	if (s->verbose)
		strvec_push(&argv, "-v");
	strvec_push(&argv, "--gpu-name");
	strvec_push(&argv, s->arch);
	strvec_push(&argv, "--output-file");
	strvec_push(&argv, cubin);
	strvec_push(&argv, ptx);
	strvec_push(&argv, "-c");
	strvec_push_all(&argv, s->extra);
	rc = ol_spawn_checked(&argv);
	strvec_release(&argv);
	return rc;
}

static void assemble_spec(const struct ol_group *g, const struct ol_link_context *ctx,
			  struct ol_assemble_spec *s)
{
	s->triple = g->triple;
	s->arch = g->arch;
	s->opt_level = g->opt_level;
	s->debug = g->debug;
	s->verbose = ctx->cl->verbose;
	s->extra = &ctx->cl->ptxas_args;
}

static int assemble_ptx(const struct ol_group *g, const struct ol_link_context *ctx,
			const char *ptxas, const char *ptx, const char *cubin)
{
	struct ol_assemble_spec s;

	assemble_spec(g, ctx, &s);
	return ptxas_file(&s, ptxas, ptx, cubin);
}

static int link_cubins(const struct ol_group *g, const struct ol_link_context *ctx,
		       const char *nvlink, const struct strvec *files, const char *out)
{
	struct strvec argv = STRVEC_INIT;

	strvec_push(&argv, nvlink);
	strvec_push(&argv, ol_starts_with(g->triple, "nvptx64") ? "-m64" : "-m32");
	strvec_push(&argv, "-arch");
	strvec_push(&argv, g->arch);
	if (g->debug && g->opt_level == 0)
		strvec_push(&argv, "-g");
	if (ctx->cl->verbose)
		strvec_push(&argv, "-v");
	return ol_group_run_linker(g, ctx, &argv, out, files);
}

/* The prefix a temp file was created with (tempfile.h): its base name
 * without the extension and, outside --save-temps, without mkstemps'
 * "-XXXXXX".  The cubin of "a.out.nvptx64-nvidia-cuda.sm_80.s" is then
 * "a.out.nvptx64-nvidia-cuda.sm_80.cubin", as upstream's ptxas step. */
static char *temp_prefix_of(const char *path, int save_temps)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);

	if (!save_temps && len > 7 && base[len - 7] == '-')
		len -= 7;
	return ol_xstrndup(base, len);
}

/* What ptxas holds at its peak for a PTX file, for the memory budget:
 * about twenty times the PTX (libtorch's 920 MB of PTX took ptxas to 19 GB,
 * llvm-project #216890), and a floor for its own code. */
static uint64_t ptxas_memory_estimate(const char *ptx)
{
	struct stat st;
	uint64_t size = stat(ptx, &st) == 0 ? (uint64_t)st.st_size : 0;

	return (32ull << 20) + 20 * size;
}

/* The cubin ptxas makes of the PTX file `ptx`, a temp file, or NULL
 * (reported); `ptxas` is looked up when NULL. */
static const char *assemble_one(const struct ol_group *g, const struct ol_link_context *ctx,
				const char *ptxas, const char *ptx)
{
	char *found = ptxas ? NULL : find_cuda_program("ptxas", g, ctx);
	char *prefix;
	const char *cubin;

	if (!ptxas && !found)
		return NULL;
	prefix = temp_prefix_of(ptx, ctx->cl->save_temps);
	cubin = ol_temp_create(prefix, "cubin", NULL);
	ol_temp_name_describe(cubin, "[ptxas output for %s %s]", g->triple, g->arch);
	free(prefix);
	if (cubin) {
		uint64_t held = ol_memory_budget_take(ptxas_memory_estimate(ptx));

		if (assemble_ptx(g, ctx, ptxas ? ptxas : found, ptx, cubin) < 0)
			cubin = NULL;
		ol_memory_budget_give(held);
	}
	free(found);
	return cubin;
}

/* A partition's PTX (partition_products.c). */
static const char *assemble_partition(const struct ol_group *g, const struct ol_link_context *ctx,
				      const char *ptx)
{
	return assemble_one(g, ctx, NULL, ptx);
}

/* What a partition job elsewhere runs in place of assemble_partition
 * (distributed_lto.c): this link's ptxas and the spec. */
static char *partition_assembler(const struct ol_group *g, const struct ol_link_context *ctx,
				 struct ol_assemble_spec *spec)
{
	assemble_spec(g, ctx, spec);
	return find_cuda_program("ptxas", g, ctx);
}

/* Replaces every PTX file of `files` by the cubin ptxas makes of it. */
static int assemble_all_ptx(const struct ol_group *g, const struct ol_link_context *ctx,
			    struct strvec *files)
{
	char *ptxas = NULL;

	for (size_t i = 0; i < files->nr; i++) {
		const char *cubin;

		if (!has_suffix(files->v[i], ".s"))
			continue;
		if (!ptxas && !(ptxas = find_cuda_program("ptxas", g, ctx)))
			return -1;
		cubin = assemble_one(g, ctx, ptxas, files->v[i]);
		if (!cubin) {
			free(ptxas);
			return -1;
		}
		free(files->v[i]);
		files->v[i] = ol_xstrdup(cubin);
	}
	free(ptxas);
	return 0;
}

/* A fat binary among the images goes to nvlink as it is: check it first, so
 * that a damaged one is reported at its place in the input (file, member,
 * section and offset) rather than by nvlink against a temp file. */
static int check_fatbinaries(const struct ol_group *g)
{
	int rc = 0;

	for (size_t i = 0; i < g->nimages; i++) {
		const struct ol_device_image *img = g->images[i];
		struct ol_fatbin fatbin;
		struct ol_loc loc = img->loc;
		const char *why;
		uint64_t bad;

		if (strcmp(nvptx_image_ext(img), "fatbin") != 0)
			continue;
		if (ol_fatbin_parse(img->bin.image, img->bin.image_size, &fatbin, &why, &bad) == 0) {
			ol_fatbin_release(&fatbin);
			continue;
		}
		loc.offset += ol_offload_image_offset(&img->bin) + (img->bin.compressed ? 0 : bad);
		loc.has_offset = 1;
		rc = ol_error_at(&loc, "fatbinary image for '%s' '%s': %s", g->triple, g->arch, why);
	}
	return rc;
}

static int nvptx_link(struct ol_group *g, const struct ol_link_context *ctx)
{
	struct strvec files = STRVEC_INIT;
	struct ol_lto_settings lto;
	char *features = nvptx_features(g);
	char *prefix = ol_group_output_prefix(g, ctx);
	char *nvlink = NULL;
	const char *out = NULL;
	int rc;

	if (!*g->arch) {
		free(features);
		free(prefix);
		return ol_error("cannot link '%s' device code without an architecture (sm_XX)",
				g->triple);
	}
	memset(&lto, 0, sizeof(lto));
	lto.cpu = g->arch;
	lto.features = features;
	lto.emit_assembly = 1;
	lto.image_ext = nvptx_image_ext;
	lto.assemble = assemble_partition;
	lto.assembler = partition_assembler;
	lto.assembled_ext = "cubin";
	lto.object_machine = OL_EM_CUDA;

	rc = check_fatbinaries(g);
	if (rc == 0)
		rc = ol_group_prepare_lto_inputs(g, ctx, &lto, &files);
	if (rc == 0)
		rc = assemble_all_ptx(g, ctx, &files);
	if (rc == 0 && !(nvlink = find_cuda_program("nvlink", g, ctx)))
		rc = -1;
	if (rc == 0 && !(out = ol_temp_create(prefix, "img", NULL)))
		rc = -1;
	if (rc == 0)
		rc = link_cubins(g, ctx, nvlink, &files, out);
	if (rc == 0)
		rc = ol_group_read_result(g, out);
	free(nvlink);
	free(features);
	free(prefix);
	strvec_release(&files);
	return rc;
}

static void nvptx_identify(const struct ol_group *g, const struct ol_link_context *ctx,
			   struct ol_cache *c, struct ol_sha256 *h)
{
	static const char *const tools[] = { "ptxas", "nvlink" };

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char *path = cuda_program_path(tools[i], g, ctx, NULL);
		ol_key_tool(c, h, path);
		free(path);
	}
	/* --wrapper-verbose (options.def, FAMILY): the -v it gives both tools
	 * is recorded in the cubin's tool notes. */
	ol_key_u64(h, (uint64_t)ctx->cl->verbose);
}

/* How the CUDA plugin of each emulated release's libomptarget reads a cubin's
 * header, from their sources (docs/design/device-links-and-cache-key.md,
 * "Cubins the runtime cannot read"): 16 checks e_machine and the image's "arch" string only; 19
 * (Utils/ELF.cpp checkMachineImpl, cuda/src/rtl.cpp isELFCompatible) takes
 * the SM number from the low byte of e_flags and wants sm_35 to sm_90 with
 * 64-bit addressing there, so a version 8 cubin (low byte 4) is "not
 * compatible"; 22 reads EI_ABIVERSION and both layouts. */
static const struct omp_cubin_reader {
	enum ol_flavor flavor;
	unsigned newest_abi;       /* highest CUDA ELF ABI version it reads; 0: it does not look */
	unsigned newest_sm;        /* highest SM it accepts in any layout; 0: no bound */
} omp_cubin_readers[] = {
	{ OL_FLAVOR_16, 0, 0 },
	{ OL_FLAVOR_19, OL_CUDA_ELF_ABI_V1, 90 },
	{ OL_FLAVOR_22, OL_CUDA_ELF_ABI_V2, 0 },
};

/* The oldest libomptarget that reads version 8, and the first CUDA whose
 * ptxas and nvlink write it for GPUs before sm_100 (LLVM's fix for CUDA 13,
 * llvm-project #159354). */
enum { FIRST_RUNTIME_READING_V2 = 22 };
static const char first_cuda_writing_v2[] = "13.0";

/* The tools the image records, each name and release once: "nvlink
 * V13.0.88 and ptxas V13.0.88". */
static void add_recorded_tools(struct strbuf *sb, const struct ol_buffer *image)
{
	struct ol_cubin_tool tools[16];
	size_t n = ol_cubin_tools(image->data, image->size, tools, 16);
	struct strvec shown = STRVEC_INIT;

	for (size_t i = 0; i < n && i < 16; i++) {
		size_t len;
		const char *release = ol_cubin_tool_release(&tools[i], &len);
		int name_len = (int)(tools[i].name_len > 32 ? 32 : tools[i].name_len);
		char *tool = ol_xasprintf("%.*s %.*s", name_len, tools[i].name,
					  (int)(len > 64 ? 64 : len), release);
		int seen = 0;

		for (size_t j = 0; j < shown.nr && !seen; j++)
			seen = strcmp(shown.v[j], tool) == 0;
		if (!seen) {
			strbuf_addf(sb, "%s%s", shown.nr ? " and " : "", tool);
			strvec_push(&shown, tool);
		}
		free(tool);
	}
	if (!shown.nr)
		strbuf_addstr(sb, "CUDA tools that did not record their version");
	strvec_release(&shown);
}

static char *nvptx_omp_refusal(const struct ol_group *g, const struct ol_link_context *ctx)
{
	const struct omp_cubin_reader *reader = NULL;
	struct ol_cubin_header cubin;
	struct strbuf why = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(omp_cubin_readers) / sizeof(omp_cubin_readers[0]); i++)
		if (omp_cubin_readers[i].flavor == ctx->flavor)
			reader = &omp_cubin_readers[i];
	if (!reader || !reader->newest_abi ||
	    ol_cubin_read_header(g->linked.data, g->linked.size, &cubin) < 0 ||
	    cubin.abi_version <= reader->newest_abi)
		return NULL;

	if (g->overridden)
		strbuf_addf(&why, "the --override-image file '%s'", g->linked_path);
	else
		strbuf_addf(&why, "the '%s' '%s' device image of '%s'", g->triple, g->arch,
			    ctx->cl->output ? ctx->cl->output : ctx->exe_name);
	strbuf_addf(&why, " is a cubin of CUDA ELF ABI version %u, made by ", cubin.abi_version);
	add_recorded_tools(&why, &g->linked);
	/* The tools the link uses (a cached image was made by the same ones:
	 * their identity is in its key), for the way out through --cuda-path. */
	if (!g->overridden) {
		char *nvlink = cuda_program_path("nvlink", g, ctx, NULL);

		if (nvlink)
			strbuf_addf(&why, " (this link's nvlink: %s)", nvlink);
		free(nvlink);
	}
	strbuf_addf(&why, "; libomptarget %d, the runtime of the release this link behaves as, "
		    "reads the layout of version %u only and stops the program at start (\"No images "
		    "found compatible with the installed hardware\"). Run the program with "
		    "libomptarget %d or newer",
		    (int)ctx->flavor, reader->newest_abi, FIRST_RUNTIME_READING_V2);
	if (!reader->newest_sm || cubin.sm <= reader->newest_sm)
		strbuf_addf(&why, ", or link with CUDA tools older than %s (--cuda-path=<dir>)",
			    first_cuda_writing_v2);
	else
		strbuf_addf(&why, " (libomptarget %d accepts no GPU after sm_%u in either version)",
			    (int)ctx->flavor, reader->newest_sm);
	return strbuf_detach(&why);
}

static int matches_nvptx(const char *triple)
{
	return ol_starts_with(triple, "nvptx64-") || ol_starts_with(triple, "nvptx-");
}

const struct ol_target ol_target_nvptx = {
	"nvptx", matches_nvptx, 0, nvptx_link, { "-march=", 0, 0, 1 }, nvptx_identify,
	nvptx_omp_refusal, ptxas_file,
};
