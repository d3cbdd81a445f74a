/*
 * The AMDGPU target family (amdgcn-amd-amdhsa, arch gfxNNN with optional
 * target-id features: gfx90a:xnack+:sramecc-).  The device image is an HSA
 * code object: a shared ELF object that ROCr loads.
 *
 * Bitcode is compiled by in-process LTO to one object for the processor,
 * with the target id's features and the images' "feature" strings; ld.lld
 * then links it with any native objects.  Upstream gets the same from the
 * device clang driving ld.lld (LTO inside lld in 22).  The code-object
 * version is whatever the bitcode's "amdhsa_code_object_version" module
 * flag says: nothing here sets it, so the back end reads it from the module.
 *
 * ld.lld is looked up next to this program, then in LLVM's bin directory
 * (OL_LLVM_BINDIR), then on $PATH, also under Debian's versioned names.
 */
#include "target_impl.h"
#include "offload/elf_cpu.h"
#include "offload/job_key.h"
#include "offload/key_material.h"
#include "offload/diag.h"
#include "offload/spawn.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"

#include <stdlib.h>
#include <string.h>

/* "gfx90a:xnack+:sramecc-" -> "+xnack,-sramecc".  A malformed feature
 * (no trailing + or -) is an error: the code object would not say what the
 * target id promised. */
static int target_id_features(const char *arch, struct strbuf *out)
{
	const char *p = strchr(arch, ':');

	while (p) {
		const char *start = p + 1;
		const char *end = strchr(start, ':');
		size_t len = end ? (size_t)(end - start) : strlen(start);
		char sign = len ? start[len - 1] : '\0';

		if (len < 2 || (sign != '+' && sign != '-'))
			return ol_error("invalid AMDGPU target id '%s': feature '%.*s' must end in "
					"'+' or '-'", arch, (int)len, start);
		if (out->len)
			strbuf_addch(out, ',');
		strbuf_addf(out, "%c%.*s", sign, (int)(len - 1), start);
		p = end;
	}
	return 0;
}

static int link_code_object(const struct ol_group *g, const struct ol_link_context *ctx,
			    const char *lld, const struct strvec *files, const char *out)
{
	struct strvec argv = STRVEC_INIT;

	strvec_push(&argv, lld);
	strvec_push(&argv, "-shared");
	strvec_push(&argv, "--no-undefined");
	return ol_group_run_linker(g, ctx, &argv, out, files);
}

static int amdgpu_link(struct ol_group *g, const struct ol_link_context *ctx)
{
	struct strvec files = STRVEC_INIT;
	struct strbuf id_features = STRBUF_INIT;
	struct ol_lto_settings lto;
	const char *colon = strchr(g->arch, ':');
	char *processor = colon ? ol_xstrndup(g->arch, (size_t)(colon - g->arch))
				: ol_xstrdup(g->arch);
	char *features = NULL, *prefix = NULL, *lld = NULL;
	const char *out = NULL;
	int rc;

	rc = target_id_features(g->arch, &id_features);
	if (rc == 0) {
		/* The target id's settings come last so that they win over an
		 * image's own "feature" string. */
		features = ol_group_features(g, strbuf_str(&id_features));
		memset(&lto, 0, sizeof(lto));
		lto.cpu = processor;
		lto.features = features;
		/* ld.lld keeps every object's code object metadata note: the
		 * partitions are compiled apart and their notes merged into one,
		 * or, where a kernel's resources would depend on another
		 * partition's code, they share one codegen. */
		lto.merge_before_codegen = 1;
		lto.codegen_partitions = 1;
		lto.object_machine = OL_EM_AMDGPU;
		rc = ol_group_prepare_lto_inputs(g, ctx, &lto, &files);
	}
	if (rc == 0 && !(lld = ol_find_lld()))
		rc = ol_error("cannot find 'ld.lld' to link the device image for '%s' '%s'",
			      g->triple, g->arch);
	if (rc == 0) {
		prefix = ol_group_output_prefix(g, ctx);
		out = ol_temp_create(prefix, "img", NULL);
		rc = out ? link_code_object(g, ctx, lld, &files, out) : -1;
	}
	if (rc == 0)
		rc = ol_group_read_result(g, out);
	free(lld);
	free(prefix);
	free(features);
	free(processor);
	strbuf_release(&id_features);
	strvec_release(&files);
	return rc;
}

static void amdgpu_identify(const struct ol_group *g, const struct ol_link_context *ctx,
			    struct ol_cache *c, struct ol_sha256 *h)
{
	char *lld = ol_find_lld();

	(void)g;
	(void)ctx;
	ol_key_tool(c, h, lld);
	free(lld);
}

static int matches_amdgpu(const char *triple)
{
	return ol_starts_with(triple, "amdgcn-");
}

const struct ol_target ol_target_amdgpu = {
	"amdgpu", matches_amdgpu, 0, amdgpu_link, { "-mcpu=", 1, 1, 1 }, amdgpu_identify, NULL,
	NULL,
};
