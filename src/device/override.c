/*
 * --override-image=<kind>=<file> (19, 22): skip scanning and device linking;
 * each file is taken as the linked device image of that offload kind.  The
 * file must be ELF; its machine gives the triple (upstream: makeTriple()) and,
 * for a GPU, its flags the architecture (upstream: tryGetCPUName()).
 */
#include "offload/device_link.h"
#include "offload/arena.h"
#include "offload/elf_cpu.h"
#include "offload/inputs.h"
#include "offload/mapped_file.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *triple_of_machine(unsigned machine)
{
	switch (machine) {
	case EM_X86_64: return "x86_64-unknown-linux-gnu";
	case EM_AARCH64: return "aarch64-unknown-linux-gnu";
	case EM_PPC64: return "powerpc64le-unknown-linux-gnu";
	case EM_S390: return "s390x-unknown-linux-gnu";
	case OL_EM_AMDGPU: return "amdgcn-amd-amdhsa";
	case OL_EM_CUDA: return "nvptx64-nvidia-cuda";
	default: return NULL;
	}
}

int ol_groups_from_override_images(const struct ol_cmdline *cl, struct ol_groups *out)
{
	int rc = 0;

	out->n = 0;
	out->v = ol_arena_alloc(&ol_link_arena, (cl->override_image.nr + 1) * sizeof(*out->v));
	for (size_t i = 0; i < cl->override_image.nr; i++) {
		const char *spec = cl->override_image.v[i];
		const char *eq = strchr(spec, '=');
		struct ol_mapped_file *mf;
		struct ol_group *g;
		enum ol_offload_kind kind;
		char *kind_name;
		const char *triple;
		uint16_t machine;

		if (!eq) {
			rc = ol_error("--override-image=%s: expected <kind>=<file>", spec);
			continue;
		}
		kind_name = ol_arena_strndup(&ol_link_arena, spec, (size_t)(eq - spec));
		kind = ol_offload_kind_from_name(kind_name);
		if (kind == OL_OFK_NONE) {
			rc = ol_error("--override-image=%s: unknown offload kind '%s'", spec, kind_name);
			continue;
		}
		mf = ol_map_file(eq + 1);
		if (!mf) {
			rc = ol_error("%s: %s", eq + 1, strerror(errno));
			continue;
		}
		if (mf->size < sizeof(Elf64_Ehdr) || memcmp(mf->data, ELFMAG, SELFMAG) != 0) {
			rc = ol_error("%s: the file given to --override-image is not an ELF object", eq + 1);
			continue;
		}
		memcpy(&machine, mf->data + offsetof(Elf64_Ehdr, e_machine), sizeof(machine));
		triple = triple_of_machine(machine);
		if (!triple) {
			rc = ol_error("%s: unsupported ELF machine %u for --override-image", eq + 1, machine);
			continue;
		}
		g = &out->v[out->n++];
		memset(g, 0, sizeof(*g));
		g->triple = triple;
		g->target = ol_target_for(triple);
		g->overridden = 1;
		char cpu[24];
		const char *arch = ol_elf_cpu_name(mf->data, mf->size, cpu, sizeof(cpu));
		g->arch = arch ? ol_arena_strdup(&ol_link_arena, arch) : "";
		g->kinds = (unsigned)kind;
		/* The group owns a copy, as every linked image does. */
		g->linked.data = malloc(mf->size);
		if (!g->linked.data)
			ol_fatal("out of memory");
		memcpy(g->linked.data, mf->data, mf->size);
		g->linked.size = mf->size;
		g->linked_path = mf->path;
	}
	return rc;
}
