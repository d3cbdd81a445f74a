/*
 * HIP: the kind's linked images, one per target id, become one offload
 * bundle, the `.hipfb` that clang-offload-bundler writes for upstream's
 * command (spec 4.5, 8.5), made here by src/format/offload_bundle.c with the
 * bundle ids of the release being emulated.  Under --compress it is wrapped
 * in a CCOB (19: v2, 22: v3; zstd level 3 unless --compression-level says),
 * and, as the bundler would, OFFLOAD_BUNDLER_COMPRESS=1 and
 * OFFLOAD_BUNDLER_COMPRESSION_LEVEL=N count too unless
 * OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1.  The HIP registration module embeds it in
 * .hip_fatbin.  No clang-offload-bundler process runs.
 */
#include "bundle.h"
#include "offload/diag.h"
#include "offload/offload_bundle.h"
#include "offload/spawn.h"
#include "offload/tempfile.h"

#include <stdlib.h>
#include <string.h>

static int env_says(const char *name, const char *value)
{
	const char *v = getenv(name);
	return v && strcmp(v, value) == 0;
}

/* Whether to compress, and how: the wrapper's -compress and
 * -compression-level=, or the bundler's environment variables. */
static const struct ol_ccob_options *compression(const struct ol_link_context *ctx,
						 struct ol_ccob_options *opts)
{
	int use_env = !env_says("OFFLOAD_BUNDLER_IGNORE_ENV_VAR", "1");
	const char *env_level = use_env ? getenv("OFFLOAD_BUNDLER_COMPRESSION_LEVEL") : NULL;

	if (!ctx->cl->compress && !(use_env && env_says("OFFLOAD_BUNDLER_COMPRESS", "1")))
		return NULL;
	if (ol_ccob_default_options((int)ctx->flavor, opts) < 0)
		return NULL;   /* 16 has no compressed bundles */
	if (ctx->cl->compression_level >= 0)
		opts->level = ctx->cl->compression_level;
	else if (env_level && *env_level)
		opts->level = atoi(env_level);
	return opts;
}

int ol_bundle_hip(const struct ol_kind_images *images, const struct ol_link_context *ctx,
		  struct ol_bundled *out)
{
	struct ol_hip_image *hip = ol_xcalloc(images->n ? images->n : 1, sizeof(*hip));
	struct ol_ccob_options opts;
	const struct ol_ccob_options *compress = compression(ctx, &opts);
	const char *why = NULL;
	uint8_t *data;
	size_t size;

	/* --dry-run links nothing: like upstream, whose bundler does not run
	 * then, the module embeds an empty fat binary. */
	if (ol_spawn_config()->dry_run) {
		free(hip);
		ol_bundled_add(out, NULL, 0);
		return 0;
	}
	for (size_t i = 0; i < images->n; i++) {
		const struct ol_group *g = images->groups[i];
		hip[i].triple = g->triple;
		hip[i].target_id = g->arch;
		hip[i].data = g->linked.data;
		hip[i].size = g->linked.size;
	}
	data = ol_hip_bundle_write((int)ctx->flavor, hip, images->n, compress, &size, &why);
	free(hip);
	if (!data)
		return ol_error("cannot write the HIP offload bundle: %s", why ? why : "unknown error");
	ol_spawn_note("HIP offload bundle of %zu image%s, %zu bytes%s", images->n,
		      images->n == 1 ? "" : "s", size, compress ? ", compressed" : "");
	/* Upstream's bundler writes <exe>.hipfb; keep it under --save-temps. */
	if (ctx->cl->save_temps && !ol_temp_write(ctx->exe_name, "hipfb", data, size)) {
		free(data);
		return -1;
	}
	ol_bundled_add(out, data, size);
	return 0;
}
