/*
 * clang_link: device links driven by clang, in the shape of the command
 * upstream 22 runs for every device link (spec 4.4).
 *
 * clang 22 hands the wrapper the device side of the user's compiler options
 * as --device-compiler=<triple>=<arg>, and upstream appends them to that
 * clang command.  The in-process link honours the ones that matter to a
 * link (-O, -g, -flto, -save-temps, --cuda-path, -march/-mcpu naming the
 * group's own processor, -mllvm values LLVM already has); an option outside
 * that set (a sanitizer, -nostdlib, --rocm-path, -Wl,...) may change what
 * clang links, so such a group is linked by clang with every image as
 * given, and -v says which option caused it.
 */
#include "target_impl.h"
#include "offload/diag.h"
#include "offload/offload_binary.h"
#include "offload/spawn.h"
#include "offload/tempfile.h"

#include <stdlib.h>
#include <string.h>

/* "-Xlinker ARG", as upstream 22 passes linker arguments (no comma splitting). */
static void push_xlinker(struct strvec *argv, const char *prefix, const char *value)
{
	strvec_push(argv, "-Xlinker");
	strvec_pushf(argv, "%s%s", prefix, value);
}

char *ol_group_find_clang(const struct ol_link_context *ctx)
{
	return ol_find_llvm_tool("clang", ctx->flavor, NULL);
}

int ol_group_link_with_clang(struct ol_group *g, const struct ol_link_context *ctx,
			     const struct strvec *files, const char *out, int clang_does_lto)
{
	const struct ol_clang_shape *shape = &g->target->clang;
	const struct ol_cmdline *cl = ctx->cl;
	struct strvec argv = STRVEC_INIT;
	char *clang = ol_find_llvm_tool("clang", ctx->flavor, NULL);
	char *prefix;
	int rc;

	if (!clang)
		return ol_error("cannot find 'clang' (or 'clang-%d') to link the device image for "
				"'%s' '%s'", (int)ctx->flavor, g->triple, g->arch);
	prefix = ol_group_output_prefix(g, ctx);
	strvec_push(&argv, clang);
	strvec_push(&argv, "--no-default-config");
	strvec_push(&argv, "-o");
	strvec_push(&argv, out);
	strvec_push(&argv, "-dumpdir");
	strvec_pushf(&argv, "%s.img.", prefix);
	strvec_pushf(&argv, "--target=%s", g->triple);
	if (*g->arch && strcmp(g->arch, "generic") != 0)
		strvec_pushf(&argv, "%s%s", shape->arch_flag, g->arch);
	if (clang_does_lto) {
		if (shape->lto_flag)
			strvec_push(&argv, "-flto");
		for (size_t i = 0; i < cl->offload_opt.nr; i++)
			push_xlinker(&argv, "--plugin-opt=", cl->offload_opt.v[i]);
		for (size_t i = 0; i < cl->mllvm.nr; i++)
			push_xlinker(&argv, "--plugin-opt=", cl->mllvm.v[i]);
	}
	if (shape->no_undefined)
		strvec_push(&argv, "-Wl,--no-undefined");
	strvec_push_all(&argv, files);
	if (!shape->gpu) {
		strvec_push(&argv, "-Wl,-Bsymbolic");
		strvec_push(&argv, "-shared");
		ol_group_push_host_libraries(ctx, &argv, 1);
	}
	if (clang_does_lto) {
		for (size_t i = 0; i < cl->mllvm.nr; i++)
			push_xlinker(&argv, "-mllvm=", cl->mllvm.v[i]);
		if (cl->save_temps && shape->lto_flag)
			strvec_push(&argv, "-Wl,--save-temps");
	}
	/* clang runs clang-sycl-linker for SYCL and hands it these. */
	if (g->kinds & OL_OFK_SYCL) {
		strvec_push(&argv, "--sycl-link");
		push_xlinker(&argv, "-triple=", g->triple);
		push_xlinker(&argv, "-arch=", g->arch);
	}
	for (size_t i = 0; i < g->linker_args.nr; i++)
		push_xlinker(&argv, "", g->linker_args.v[i]);
	if (clang_does_lto)
		strvec_push_all(&argv, &g->compiler_args);
	rc = ol_spawn_checked(&argv);
	if (g->kinds & OL_OFK_SYCL)
		ol_adopt_sycl_linker_files(ctx, out);
	strvec_release(&argv);
	free(prefix);
	free(clang);
	return rc;
}

int ol_group_link_through_clang(struct ol_group *g, const struct ol_link_context *ctx,
				const char *reason)
{
	struct strvec files = STRVEC_INIT;
	char *prefix = ol_group_output_prefix(g, ctx);
	const char *out;
	int rc;

	if (reason)
		ol_spawn_note("--device-compiler option '%s' for %s: linking %s through clang",
			      reason, g->triple, *g->arch ? g->arch : g->triple);
	rc = ol_group_write_images(g, 1, NULL, &files);
	out = rc == 0 ? ol_temp_create(prefix, "img", NULL) : NULL;
	rc = out ? ol_group_link_with_clang(g, ctx, &files, out, 1) : -1;
	if (rc == 0)
		rc = ol_group_read_result(g, out);
	strvec_release(&files);
	free(prefix);
	return rc;
}
