/*
 * The CPU target family: "host offload" images for x86_64, aarch64, ppc64...
 * The device image is a shared object that libomptarget's CPU plugin dlopens.
 *
 * Bitcode goes through in-process LTO; the objects are then linked with
 * -shared -Bsymbolic.  When the device CPU is the host's own architecture we
 * run the host linker (--linker-path) directly with the C runtime's crt files
 * taken from the host link line: one process instead of upstream's clang
 * driver plus linker.  Otherwise (cross "host offload", or a line without a
 * linker path) clang drives the link for the device triple.
 */
#include "target_impl.h"
#include "offload/job_key.h"
#include "offload/key_material.h"
#include "offload/diag.h"
#include "offload/strvec.h"
#include "offload/inputs.h"
#include "offload/spawn.h"
#include "offload/target_id.h"
#include "offload/tempfile.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int same_arch(const char *a, const char *b)
{
	size_t n = ol_triple_arch_len(a);

	return n == ol_triple_arch_len(b) && strncmp(a, b, n) == 0;
}

/* The crt objects a shared object needs, derived from the host line's own:
 * crtbegin.o/crtbeginT.o become crtbeginS.o from the same directory. */
struct crt_files {
	char *crti, *crtbegin, *crtend, *crtn;
};

static char *sibling_if_exists(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	char *candidate = slash ? ol_xasprintf("%.*s/%s", (int)(slash - path), path, name)
				: ol_xstrdup(name);
	if (access(candidate, R_OK) == 0)
		return candidate;
	free(candidate);
	return NULL;
}

static void find_crt_files(const struct ol_cmdline *cl, struct crt_files *crt)
{
	memset(crt, 0, sizeof(*crt));
	for (size_t i = 0; i < cl->nlink_items; i++) {
		const struct ol_link_item *item = &cl->link_items[i];
		const char *base;

		if (item->kind != OL_LINK_FILE)
			continue;
		base = ol_base_name(item->value);
		if (!crt->crti && strcmp(base, "crti.o") == 0)
			crt->crti = sibling_if_exists(item->value, "crti.o");
		else if (!crt->crtn && strcmp(base, "crtn.o") == 0)
			crt->crtn = sibling_if_exists(item->value, "crtn.o");
		else if (!crt->crtbegin && strncmp(base, "crtbegin", 8) == 0)
			crt->crtbegin = sibling_if_exists(item->value, "crtbeginS.o");
		else if (!crt->crtend && strncmp(base, "crtend", 6) == 0)
			crt->crtend = sibling_if_exists(item->value, "crtendS.o");
	}
}

static void release_crt_files(struct crt_files *crt)
{
	free(crt->crti);
	free(crt->crtbegin);
	free(crt->crtend);
	free(crt->crtn);
}

/* The host's own ld links an image for the host's architecture; a compiler
 * driver as the host linker takes a driver's line, so clang links it then. */
static int links_with_host_linker(const struct ol_group *g, const struct ol_cmdline *cl)
{
	return cl->linker_path && !cl->linker_is_driver && same_arch(g->triple, cl->host_triple);
}

static int link_with_host_linker(struct ol_group *g, const struct ol_link_context *ctx,
				 const struct strvec *files, const char *out)
{
	struct strvec argv = STRVEC_INIT;
	struct crt_files crt;
	int rc;

	find_crt_files(ctx->cl, &crt);
	strvec_push(&argv, ctx->cl->linker_path);
	strvec_push(&argv, "-shared");
	strvec_push(&argv, "-Bsymbolic");
	strvec_push(&argv, "--eh-frame-hdr");
	strvec_push(&argv, "-o");
	strvec_push(&argv, out);
	if (crt.crti)
		strvec_push(&argv, crt.crti);
	if (crt.crtbegin)
		strvec_push(&argv, crt.crtbegin);
	/* Only a line that brings the C runtime can promise every symbol resolves. */
	if (crt.crtbegin && crt.crtend)
		strvec_push(&argv, "--no-undefined");
	strvec_push_all(&argv, files);
	ol_group_push_host_libraries(ctx, &argv, 0);
	ol_group_push_device_linker_args(g, ctx, &argv, "");
	if (crt.crtend)
		strvec_push(&argv, crt.crtend);
	if (crt.crtn)
		strvec_push(&argv, crt.crtn);
	rc = ol_spawn_checked(&argv);
	strvec_release(&argv);
	release_crt_files(&crt);
	return rc;
}

static int cpu_link(struct ol_group *g, const struct ol_link_context *ctx)
{
	struct strvec files = STRVEC_INIT;
	char *prefix = ol_group_output_prefix(g, ctx);
	int direct = links_with_host_linker(g, ctx->cl);
	struct ol_lto_settings lto;
	const char *out;
	int rc;

	memset(&lto, 0, sizeof(lto));
	/* "generic" and "" mean no particular CPU: the backend picks the baseline. */
	lto.cpu = strcmp(g->arch, "generic") == 0 ? "" : g->arch;
	lto.features = "";
	lto.whole_archive_on = direct ? "--whole-archive" : "-Wl,--whole-archive";
	lto.whole_archive_off = direct ? "--no-whole-archive" : "-Wl,--no-whole-archive";
	rc = ol_group_prepare_lto_inputs(g, ctx, &lto, &files);
	out = rc == 0 ? ol_temp_create(prefix, "img", NULL) : NULL;
	if (out) {
		if (direct)
			rc = link_with_host_linker(g, ctx, &files, out);
		else
			rc = ol_group_link_with_clang(g, ctx, &files, out, 0);
		if (rc == 0)
			rc = ol_group_read_result(g, out);
	} else {
		rc = -1;
	}
	strvec_release(&files);
	free(prefix);
	return rc;
}

/* The resolved file of link item `item`, or NULL (the scan found each -l). */
static const char *resolved_path(const struct ol_inputs *in, size_t item)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->v[i].link_item == item && in->v[i].kind != OL_IN_MISSING)
			return in->v[i].path;
	return NULL;
}

/* What the CPU link reads besides the images: the linker (or clang), the crt
 * objects and the host line's libraries, by content, and the flags among
 * them.  (A shared library's own dependencies, such as libc.so.6 behind the
 * libc.so script, are not followed: they do not change the image's bytes.) */
static void cpu_identify(const struct ol_group *g, const struct ol_link_context *ctx,
			 struct ol_cache *c, struct ol_sha256 *h)
{
	const struct ol_cmdline *cl = ctx->cl;
	struct strvec libs = STRVEC_INIT;
	struct crt_files crt;

	if (links_with_host_linker(g, cl)) {
		ol_key_tool(c, h, cl->linker_path);
		find_crt_files(cl, &crt);
		ol_key_file(c, h, crt.crti);
		ol_key_file(c, h, crt.crtbegin);
		ol_key_file(c, h, crt.crtend);
		ol_key_file(c, h, crt.crtn);
		release_crt_files(&crt);
	} else {
		char *clang = ol_group_find_clang(ctx);
		ol_key_tool(c, h, clang);
		free(clang);
	}
	ol_group_push_host_libraries(ctx, &libs, 0);
	for (size_t i = 0; i < libs.nr; i++)
		ol_key_str(h, libs.v[i]);
	for (size_t i = 0; i < cl->driver_runtimes.nr; i++)
		ol_key_str(h, cl->driver_runtimes.v[i]);
	strvec_release(&libs);
	for (size_t i = 0; i < cl->nlink_items; i++) {
		const struct ol_link_item *item = &cl->link_items[i];
		const char *path;

		if (item->kind != OL_LINK_FILE && item->kind != OL_LINK_LIBRARY)
			continue;
		path = resolved_path(ctx->in, i);
		if (item->kind == OL_LINK_FILE) {
			enum ol_input_kind kind = OL_IN_MISSING;
			for (size_t k = 0; k < ctx->in->n; k++)
				if (ctx->in->v[k].link_item == i)
					kind = ctx->in->v[k].kind;
			if (kind != OL_IN_ARCHIVE && kind != OL_IN_SHARED)
				continue;
		}
		ol_key_file(c, h, path);
	}
}

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

const struct ol_target ol_target_cpu = {
	"cpu", matches_cpu, 0, cpu_link, { "-march=", 0, 1, 0 }, cpu_identify, NULL, NULL,
};
