/*
 * The SPIR-V target family (spirv64): SYCL device code, a release-22
 * feature.
 *
 * Upstream 22 links a SYCL group with `clang ... --sycl-link -Xlinker
 * -triple=T -Xlinker -arch=A`, and that clang only runs clang-sycl-linker
 * (IR link, module split, SPIR-V code generation, an Intel AOT compiler for
 * Intel arches) on the images, the values it got through -Xlinker and `-o`.
 * We run clang-sycl-linker ourselves with the same arguments: one process
 * less, and it is found without LLVM's bin directory on PATH (clang looks
 * only there).  Its output is already a SYCL OffloadBinary per device image
 * ("symbols" lists the entry points), which bundle_sycl.c passes through.
 * A group with a --device-compiler option the direct call cannot honour goes
 * through clang_link.c instead, which adds --sycl-link as upstream does; so
 * does a group of kind-less images (upstream: spirv-link).
 *
 * clang-sycl-linker is looked up next to this program, in the release's LLVM
 * bin directory, in this build's LLVM (OL_LLVM_BINDIR), then on $PATH, also
 * under Debian's versioned name.
 */
#include "target_impl.h"
#include "offload/job_key.h"
#include "offload/key_material.h"
#include "offload/diag.h"
#include "offload/offload_binary.h"
#include "offload/spawn.h"
#include "offload/tempfile.h"

#include <stdlib.h>
#include <string.h>

/* What 22's clang gives clang-sycl-linker: its linker inputs in command-line
 * order (--plugin-opt= values, the images, -mllvm= values, the SYCL triple
 * and arch, the --device-linker values), then -o. */
static int run_sycl_linker(const struct ol_group *g, const struct ol_link_context *ctx,
			   const char *linker, const struct strvec *files, const char *out)
{
	const struct ol_cmdline *cl = ctx->cl;
	struct strvec argv = STRVEC_INIT;
	int rc;

	strvec_push(&argv, linker);
	for (size_t i = 0; i < cl->offload_opt.nr; i++)
		strvec_pushf(&argv, "--plugin-opt=%s", cl->offload_opt.v[i]);
	for (size_t i = 0; i < cl->mllvm.nr; i++)
		strvec_pushf(&argv, "--plugin-opt=%s", cl->mllvm.v[i]);
	strvec_push_all(&argv, files);
	for (size_t i = 0; i < cl->mllvm.nr; i++)
		strvec_pushf(&argv, "-mllvm=%s", cl->mllvm.v[i]);
	strvec_pushf(&argv, "-triple=%s", g->triple);
	strvec_pushf(&argv, "-arch=%s", g->arch);
	ol_group_push_device_linker_args(g, ctx, &argv, "");
	strvec_push(&argv, "-o");
	strvec_push(&argv, out);
	rc = ol_spawn_checked(&argv);
	strvec_release(&argv);
	return rc;
}

static int spirv_link(struct ol_group *g, const struct ol_link_context *ctx)
{
	struct strvec files = STRVEC_INIT;
	char *prefix = NULL, *linker = NULL;
	const char *out = NULL;
	int rc;

	if (!(g->kinds & OL_OFK_SYCL))
		return ol_group_link_through_clang(g, ctx, NULL);
	rc = ol_group_write_images(g, 1, NULL, &files);
	if (rc == 0 && !(linker = ol_find_llvm_tool("clang-sycl-linker", ctx->flavor, OL_LLVM_BINDIR)))
		rc = ol_error("cannot find 'clang-sycl-linker' (or 'clang-sycl-linker-%d') to link "
			      "the SYCL device image for '%s'", (int)ctx->flavor, g->triple);
	if (rc == 0) {
		prefix = ol_group_output_prefix(g, ctx);
		out = ol_temp_create(prefix, "img", NULL);
		rc = out ? run_sycl_linker(g, ctx, linker, &files, out) : -1;
		if (out)
			ol_adopt_sycl_linker_files(ctx, out);
	}
	if (rc == 0)
		rc = ol_group_read_result(g, out);
	free(linker);
	free(prefix);
	strvec_release(&files);
	return rc;
}

static void spirv_identify(const struct ol_group *g, const struct ol_link_context *ctx,
			   struct ol_cache *c, struct ol_sha256 *h)
{
	char *linker = ol_find_llvm_tool("clang-sycl-linker", ctx->flavor, OL_LLVM_BINDIR);

	(void)g;
	ol_key_tool(c, h, linker);
	free(linker);
}

/* Triple::spirv64, with or without a SPIR-V version (spirv64v1.5-...). */
static int matches_spirv(const char *triple)
{
	return ol_starts_with(triple, "spirv64-") || ol_starts_with(triple, "spirv64v");
}

/* SYCL only: upstream 22 wraps OpenMP SPIR-V images for Intel GPUs in an
 * inner OffloadBinary, which is not done here. */
const struct ol_target ol_target_spirv = {
	"spirv", matches_spirv, OL_OFK_SYCL, spirv_link, { "-march=", 0, 0, 1 }, spirv_identify,
	NULL, NULL,
};
