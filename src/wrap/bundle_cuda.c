/*
 * CUDA: the kind's linked images, one per GPU, become one fatbinary made by
 * NVIDIA's `fatbinary` (spec 4.5), which the registration module embeds in
 * .nv_fatbin.  The image files are the device links' own outputs.
 *
 * Every release gets the --image3=kind=,sm=,file= form: CUDA 13's fatbinary
 * rejects the --image=profile= form of upstream 16 and 19, and --image3 has
 * been accepted since CUDA 9 (LLVM made the same change in 22).  A compute_XX
 * "architecture" is PTX for a virtual GPU.
 */
#include "bundle.h"
#include "offload/diag.h"
#include "offload/mapped_file.h"
#include "offload/spawn.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --image3's kind and sm of an architecture: sm_80 -> elf 80, compute_80 -> ptx 80. */
static void image3_spec(const char *arch, const char **kind, const char **sm)
{
	*kind = "elf";
	*sm = arch;
	if (ol_starts_with(arch, "sm_")) {
		*sm = arch + 3;
	} else if (ol_starts_with(arch, "compute_")) {
		*kind = "ptx";
		*sm = arch + 8;
	}
}

/* Upstream names a host's pointer width by its triple: 64-bit unless the
 * architecture is a 32-bit one. */
static int host_is_64bit(const char *triple)
{
	static const char *const narrow[] = { "i386", "i486", "i586", "i686", "arm", "armv7",
					      "thumb", "mips", "mipsel", "ppc", "powerpc", "x86-32" };
	size_t len = strcspn(triple, "-");

	for (size_t i = 0; i < sizeof(narrow) / sizeof(narrow[0]); i++)
		if (strlen(narrow[i]) == len && strncmp(triple, narrow[i], len) == 0)
			return 0;
	return 1;
}

int ol_bundle_cuda(const struct ol_kind_images *images, const struct ol_link_context *ctx,
		   struct ol_bundled *out)
{
	struct strvec argv = STRVEC_INIT;
	char *fatbinary;
	const char *path;
	uint8_t *data;
	size_t size;
	int rc;

	fatbinary = ol_find_cuda_program("fatbinary", images->n ? images->groups[0] : NULL,
					 "the CUDA fatbinary", ctx);
	if (!fatbinary)
		return -1;
	path = ol_temp_create(ctx->exe_name, "fatbin", NULL);
	if (!path) {
		free(fatbinary);
		return -1;
	}
	strvec_push(&argv, fatbinary);
	strvec_push(&argv, host_is_64bit(ctx->cl->host_triple) ? "-64" : "-32");
	strvec_push(&argv, "--create");
	strvec_push(&argv, path);
	for (size_t i = 0; i < images->n; i++) {
		const struct ol_group *g = images->groups[i];
		const char *kind, *sm;

		image3_spec(g->arch, &kind, &sm);
		strvec_pushf(&argv, "--image3=kind=%s,sm=%s,file=%s", kind, sm, g->linked_path);
	}
	rc = ol_spawn_checked(&argv);
	strvec_release(&argv);
	free(fatbinary);
	if (rc < 0)
		return -1;
	out->path = path;
	if (ol_spawn_config()->dry_run) {
		ol_bundled_add(out, NULL, 0);
		return 0;
	}
	if (ol_read_whole_file(path, &data, &size) < 0)
		return ol_error("cannot read the fatbinary '%s': %s", path, strerror(errno));
	ol_bundled_add(out, data, size);
	return 0;
}
