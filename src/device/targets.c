/*
 * targets: the one table that maps a device triple to the code that links
 * for it.  A target family is its own target_<family>.c, which defines its
 * row (struct ol_target: which triples, how it links, what its cache key
 * takes), and a line here; no other module tests triples.
 */
#include "offload/device_link.h"
#include "target_impl.h"
#include "offload/offload_binary.h"

#include <stdlib.h>
#include <string.h>

/* In the order they are tried: the first whose matches() takes the triple. */
static const struct ol_target *const targets[] = {
	&ol_target_cpu,
	&ol_target_nvptx,
	&ol_target_amdgpu,
	&ol_target_spirv,
};

const struct ol_target *ol_target_for(const char *triple)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (targets[i]->matches(triple))
			return targets[i];
	return NULL;
}

void ol_warn_images_runtime_refuses(const struct ol_groups *groups,
				    const struct ol_link_context *ctx)
{
	char *first = NULL;
	size_t others = 0;

	for (size_t i = 0; i < groups->n; i++) {
		const struct ol_group *g = &groups->v[i];
		char *why;

		/* CUDA and HIP images go to their own runtimes, which the
		 * driver serves; only OpenMP images reach libomptarget. */
		if (!(g->kinds & OL_OFK_OPENMP) || !g->linked.size || !g->target ||
		    !g->target->omp_runtime_refusal)
			continue;
		why = g->target->omp_runtime_refusal(g, ctx);
		if (!why)
			continue;
		if (!first)
			first = why;
		else {
			others++;
			free(why);
		}
	}
	if (!first)
		return;
	/* One warning per link: the same cause, the same ways out. */
	if (others)
		ol_warn("%s. The same goes for %zu more image%s of this link", first, others,
			others == 1 ? "" : "s");
	else
		ol_warn("%s", first);
	free(first);
}
