/*
 * targets: the one table that maps a device triple to the code that links
 * for it.  Adding a target family means adding a row here and its own
 * target_<family>.c; no other module tests triples.
 */
#include "offload/device_link.h"
#include "target_impl.h"
#include "offload/offload_binary.h"

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
	{ "cpu", matches_cpu, 0, ol_target_cpu_link, { "-march=", 0, 1, 0 }, ol_target_cpu_identify },
	{ "nvptx", matches_nvptx, 0, ol_target_nvptx_link, { "-march=", 0, 0, 1 },
	  ol_target_nvptx_identify },
	{ "amdgpu", matches_amdgpu, 0, ol_target_amdgpu_link, { "-mcpu=", 1, 1, 1 },
	  ol_target_amdgpu_identify },
	/* SYCL only: upstream 22 wraps OpenMP SPIR-V images for Intel GPUs in
	 * an inner OffloadBinary, which is not done here. */
	{ "spirv", matches_spirv, OL_OFK_SYCL, ol_target_spirv_link, { "-march=", 0, 0, 1 },
	  ol_target_spirv_identify },
};

const struct ol_target *ol_target_for(const char *triple)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (targets[i].matches(triple))
			return &targets[i];
	return NULL;
}
