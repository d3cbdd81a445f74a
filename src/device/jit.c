/*
 * --embed-bitcode (clang's -fopenmp-target-jit, spec 8.1): the image of a
 * group is LLVM bitcode that the offloading runtime compiles for the device
 * it finds.  Its bitcode inputs are linked and optimized in-process for the
 * group's processor, and code generation is left to the JIT; no device
 * linker runs.  Upstream 16/19 do exactly that (22 runs its device link with
 * --lto-emit-llvm, which yields the same optimized module).  A group without
 * bitcode has nothing to optimize: its first image is embedded as it is, as
 * upstream does.
 */
#include "target_impl.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/offload_binary.h"

#include <stdlib.h>
#include <string.h>

int ol_group_link_for_jit(struct ol_group *g, const struct ol_link_context *ctx)
{
	struct ol_lto_settings lto;
	struct strvec files = STRVEC_INIT;
	char *features;
	int has_bitcode = 0, rc;

	for (size_t i = 0; i < g->nimages; i++)
		has_bitcode |= g->images[i]->bin.image_kind == OL_IMG_BITCODE;
	if (!has_bitcode) {
		if (g->nimages == 0)
			return ol_error("no device image to embed for '%s' '%s'", g->triple, g->arch);
		g->linked.size = g->images[0]->bin.image_size;
		g->linked.data = ol_xmalloc(g->linked.size ? g->linked.size : 1);
		memcpy(g->linked.data, g->images[0]->bin.image, g->linked.size);
		return 0;
	}
	features = ol_group_features(g, NULL);
	memset(&lto, 0, sizeof(lto));
	lto.cpu = g->arch;
	lto.features = features;
	lto.emit_bitcode = 1;
	rc = ol_group_run_lto(g, ctx, &lto, &files);
	if (rc == 0)
		rc = ol_group_read_result(g, files.v[0]);
	strvec_release(&files);
	free(features);
	return rc;
}
