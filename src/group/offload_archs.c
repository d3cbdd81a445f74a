/*
 * offload_archs: tell the user when an architecture they compiled for
 * brought no device code to the link.
 *
 * clang passes --should-extract=<arch> for every --offload-arch (22; AMD
 * architectures twice for OpenMP).  An architecture that no group links
 * usually means a mistyped --offload-arch at link time or objects built for
 * another GPU: the program would then fail at run time with "no image for
 * the device", far from the cause.  This is a warning, not an error: the
 * link itself is sound.
 */
#include "offload/device_link.h"
#include "offload/group.h"
#include "offload/target_id.h"
#include "offload/diag.h"

#include <string.h>

/* Does group g link code for `arch`?  Equal target ids, or compatible ones
 * (gfx90a is served by a gfx90a:xnack+ group). */
static int group_serves(const struct ol_group *g, const char *arch)
{
	return strcmp(g->arch, arch) == 0 ||
	       ol_target_ids_compatible(g->triple, g->arch, g->triple, arch);
}

void ol_warn_unused_offload_archs(const struct ol_groups *groups,
				  const struct ol_link_context *ctx)
{
	const struct strvec *archs = &ctx->cl->should_extract;

	for (size_t i = 0; i < archs->nr; i++) {
		const char *arch = archs->v[i];
		int served = 0, repeated = 0;

		for (size_t k = 0; k < i && !repeated; k++)
			repeated = strcmp(archs->v[k], arch) == 0;
		if (repeated || !*arch)
			continue;
		for (size_t g = 0; g < groups->n && !served; g++)
			served = group_serves(&groups->v[g], arch);
		if (!served)
			ol_warn("no input has device code for offload architecture '%s'", arch);
	}
}
