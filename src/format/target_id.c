/*
 * target_id: which target IDs (a triple and an arch such as
 * "gfx90a:xnack+") may share one device link.  Pure functions over strings:
 * grouping (group/group.c), archive resolution (input/resolve.c) and the
 * --offload-arch check (group/offload_archs.c) all ask it, the first two
 * through the grouping rule of input/group_plan.c.
 */
#include "offload/target_id.h"

#include <string.h>

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

size_t ol_triple_arch_len(const char *triple)
{
	const char *dash = strchr(triple, '-');

	return dash ? (size_t)(dash - triple) : strlen(triple);
}

static int triple_is_amdgpu(const char *triple)
{
	size_t n = ol_triple_arch_len(triple);

	return (n == 6 && !strncmp(triple, "amdgcn", 6)) || (n == 4 && !strncmp(triple, "r600", 4));
}

/* The processor of an AMDGPU target ID: the text before the first ':'. */
static size_t processor_len(const char *arch)
{
	const char *colon = strchr(arch, ':');

	return colon ? (size_t)(colon - arch) : strlen(arch);
}

int ol_target_ids_compatible(const char *triple_a, const char *arch_a,
			     const char *triple_b, const char *arch_b)
{
	size_t pa, pb;

	triple_a = str_or_empty(triple_a);
	triple_b = str_or_empty(triple_b);
	arch_a = str_or_empty(arch_a);
	arch_b = str_or_empty(arch_b);
	if (strcmp(triple_a, triple_b))
		return 0;
	if (!strcmp(arch_a, arch_b))
		return 0;
	if (!strcmp(arch_a, "generic") || !strcmp(arch_b, "generic"))
		return 1;
	if (!triple_is_amdgpu(triple_a))
		return 0;
	pa = processor_len(arch_a);
	pb = processor_len(arch_b);
	if (pa != pb || strncmp(arch_a, arch_b, pa))
		return 0;
	/* Upstream tests substrings of the whole target ID, and so do we. */
	if ((strstr(arch_a, "xnack+") && strstr(arch_b, "xnack-")) ||
	    (strstr(arch_a, "xnack-") && strstr(arch_b, "xnack+")))
		return 0;
	if ((strstr(arch_a, "sramecc+") && strstr(arch_b, "sramecc-")) ||
	    (strstr(arch_a, "sramecc-") && strstr(arch_b, "sramecc+")))
		return 0;
	return 1;
}
