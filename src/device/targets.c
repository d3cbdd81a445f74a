/*
 * targets: the one table that maps a device triple to the code that links
 * for it.  Adding a target family means adding a row here and its own
 * target_<family>.c; no other module tests triples.
 */
#include "offload/device_link.h"
#include "target_impl.h"
#include "offload/offload_binary.h"

#include <stdlib.h>
#include <string.h>

/* CPUs that can run "host offload" images through libomptarget's CPU plugin
 * (upstream's list: x86, x86_64, aarch64, aarch64_be, ppc64, ppc64le,
 * systemz, loongarch64). */
static int matches_cpu(const char *triple)
{
	static const char *const arches[] = {
		"x86_64-", "i386-", "i686-", "aarch64-", "aarch64_be-", "powerpc64-",
		"powerpc64le-", "ppc64-", "ppc64le-", "s390x-", "systemz-", "loongarch64-",
	};
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (ol_starts_with(triple, arches[i]))
			return 1;
	return 0;
}

static int matches_nvptx(const char *triple)
{
	return ol_starts_with(triple, "nvptx64-") || ol_starts_with(triple, "nvptx-");
}

static int matches_amdgpu(const char *triple)
{
	return ol_starts_with(triple, "amdgcn-");
}

/* Triple::spirv64, with or without a SPIR-V version (spirv64v1.5-...). */
static int matches_spirv(const char *triple)
{
	return ol_starts_with(triple, "spirv64-") || ol_starts_with(triple, "spirv64v");
}

static const struct ol_target targets[] = {
	{ "cpu", matches_cpu, 0, ol_target_cpu_link, { "-march=", 0, 1, 0 }, ol_target_cpu_identify,
	  NULL },
	{ "nvptx", matches_nvptx, 0, ol_target_nvptx_link, { "-march=", 0, 0, 1 },
	  ol_target_nvptx_identify, ol_target_nvptx_omp_refusal },
	{ "amdgpu", matches_amdgpu, 0, ol_target_amdgpu_link, { "-mcpu=", 1, 1, 1 },
	  ol_target_amdgpu_identify, NULL },
	/* SYCL only: upstream 22 wraps OpenMP SPIR-V images for Intel GPUs in
	 * an inner OffloadBinary, which is not done here. */
	{ "spirv", matches_spirv, OL_OFK_SYCL, ol_target_spirv_link, { "-march=", 0, 0, 1 },
	  ol_target_spirv_identify, NULL },
};

const struct ol_target *ol_target_for(const char *triple)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (targets[i].matches(triple))
			return &targets[i];
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
