/*
 * prepare: what each group's device link needs from the command line,
 * worked out once when the groups are formed (ol_group_images), so that the
 * device stage reads its group and nothing else of the line:
 *
 *   - the --device-linker and --device-compiler values for its triple
 *     (each release's rule, ol_cmdline_device_args);
 *   - the -O level and whether it wants debug info (--opt-level,
 *     --device-debug, or -O<n> and -g among its --device-compiler values);
 *   - its device LTO, whole or in partitions (--device-lto=);
 *   - the arguments that decide its link, for the cache key (the option
 *     table's key column, ol_cmdline_key_args);
 *   - its route: the family's own link, clang (a --device-compiler value
 *     the in-process link cannot honour, named in -v), or the JIT's
 *     bitcode (--embed-bitcode).  The job runner and the cache key read the
 *     same field, so they cannot disagree on the way a group links;
 *   - the optimization remarks its LTO collects (remark_options.c);
 *   - the --builtin-bitcode files for its triple, mapped;
 *   - its images' symbols, read here on the main thread, before any job
 *     thread may need them, and their identities (the cache key's way to
 *     hash no image twice).
 */
#include "offload/arena.h"
#include "offload/cmdline.h"
#include "offload/device_link.h"
#include "offload/diag.h"
#include "offload/group.h"
#include "offload/inputs.h"
#include "offload/key_material.h"
#include "offload/mapped_file.h"

#include <stdlib.h>
#include <string.h>

static int in_list(const struct strvec *list, const char *value)
{
	for (size_t i = 0; i < list->nr; i++)
		if (strcmp(list->v[i], value) == 0)
			return 1;
	return 0;
}

/* -march=/-mcpu=/--offload-arch= naming the group's processor changes nothing. */
static int names_own_processor(const char *arg, const struct ol_group *g)
{
	static const char *const flags[] = { "-march=", "-mcpu=", "--offload-arch=" };

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (ol_starts_with(arg, flags[i])) {
			const char *value = arg + strlen(flags[i]);
			size_t len = strcspn(g->arch, ":");
			return strlen(value) == len && strncmp(value, g->arch, len) == 0;
		}
	}
	return 0;
}

/* Arguments the in-process link takes (the -O level, -g, the CUDA lookup)
 * or that mean nothing to a link (-D, -I, warnings). */
static int honoured(const char *arg)
{
	static const char *const prefixes[] = {
		"-O", "-g", "-save-temps", "--cuda-path=", "-flto-partitions=", "-D", "-U", "-I",
		"-R", /* remarks: the LTO collects those of -Rpass* (remark_options.c) */
		"-foptimization-record-file=",
	};
	static const char *const exact[] = { "-flto", "-flto=full", "-v", "-fopenmp" };

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(arg, exact[i]) == 0)
			return 1;
	if (ol_is_records_flag(arg))
		return 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (ol_starts_with(arg, prefixes[i]))
			return 1;
	/* Warning flags, but not -Wl, -Wa, -Wp, which pass options on. */
	return arg[0] == '-' && arg[1] == 'W' && arg[2] && arg[3] != ',';
}

/* -pass-remarks*=: the LTO collects those remarks itself. */
static int is_remark_option(const char *arg)
{
	return ol_starts_with(arg, "-pass-remarks") || ol_starts_with(arg, "--pass-remarks");
}

/* The first --device-compiler value the in-process link cannot honour
 * (malloc'd), or NULL. */
static char *foreign_compiler_arg(const struct ol_group *g, const struct ol_cmdline *cl)
{
	const struct strvec *dev = &g->compiler_args;

	for (size_t i = 0; i < dev->nr; i++) {
		const char *arg = dev->v[i];

		if (strcmp(arg, "-mllvm") == 0 && i + 1 < dev->nr) {
			/* The backend parsed the wrapper's LLVM options once for
			 * the process; one it has not seen needs clang. */
			i++;
			if (!in_list(&cl->mllvm, dev->v[i]) && !in_list(&cl->offload_opt, dev->v[i]) &&
			    !is_remark_option(dev->v[i]))
				return ol_xasprintf("-mllvm %s", dev->v[i]);
		} else if (!honoured(arg) && !names_own_processor(arg, g)) {
			return ol_xstrdup(arg);
		}
	}
	return NULL;
}

/* The value of the last argument starting with `prefix`, or NULL. */
static const char *last_value(const struct strvec *args, const char *prefix)
{
	const char *found = NULL;
	size_t n = strlen(prefix);

	for (size_t i = 0; i < args->nr; i++)
		if (strncmp(args->v[i], prefix, n) == 0)
			found = args->v[i] + n;
	return found;
}

/* --opt-level (16/19), or -O<n> among the --device-compiler values (22). */
static int opt_level(const struct ol_group *g, const struct ol_cmdline *cl)
{
	const char *o = last_value(&g->compiler_args, "-O");

	if (!o)
		return cl->opt_level;
	if (*o == '\0' || strcmp(o, "1") == 0 || strcmp(o, "g") == 0)
		return 1;
	if (strcmp(o, "s") == 0 || strcmp(o, "z") == 0)
		return 2;
	if (*o >= '0' && *o <= '3' && o[1] == '\0')
		return *o - '0';
	if (strcmp(o, "fast") == 0)
		return 3;
	return cl->opt_level;
}

/* --device-debug, or the last -g<...> among the --device-compiler values. */
static int wants_debug(const struct ol_group *g, const struct ol_cmdline *cl)
{
	int debug = cl->device_debug;

	for (size_t i = 0; i < g->compiler_args.nr; i++)
		if (strncmp(g->compiler_args.v[i], "-g", 2) == 0)
			debug = strcmp(g->compiler_args.v[i], "-g0") != 0;
	return debug;
}

/*
 * --builtin-bitcode=<triple>=<path> (19): the files for the group's triple,
 * mapped here, on the main thread, for the LTO to link (backend.h).
 * Returns 0, or -1 after reporting a value without '=' or a file that
 * cannot be read.
 */
static int builtin_bitcode(struct ol_group *g, const struct ol_cmdline *cl)
{
	const struct strvec *values = &cl->builtin_bitcode;
	size_t n = values->nr ? values->nr : 1;
	int rc = 0;

	g->builtins = ol_arena_alloc(&ol_link_arena, n * sizeof(*g->builtins));
	g->builtin_sizes = ol_arena_alloc(&ol_link_arena, n * sizeof(*g->builtin_sizes));
	g->builtin_names = ol_arena_alloc(&ol_link_arena, n * sizeof(*g->builtin_names));
	for (size_t i = 0; i < values->nr; i++) {
		const char *value = values->v[i], *eq = strchr(value, '=');
		struct ol_mapped_file *mf;

		if (!eq || eq == value || !eq[1]) {
			rc = ol_error("--builtin-bitcode=%s: expected <triple>=<file>", value);
			continue;
		}
		if (strlen(g->triple) != (size_t)(eq - value) ||
		    strncmp(g->triple, value, (size_t)(eq - value)) != 0)
			continue;
		mf = ol_map_file_reported(eq + 1, "builtin bitcode");
		if (!mf) {
			rc = -1;
			continue;
		}
		g->builtins[g->nbuiltins] = mf->data;
		g->builtin_sizes[g->nbuiltins] = mf->size;
		g->builtin_names[g->nbuiltins++] = eq + 1;
	}
	return rc;
}

/*
 * An image's identity: its file's stat identity, its object's offset in the
 * file and its index there.  The cache remembers the digest of the image's
 * bytes under it, so a relink hashes no image again (24 MiB for a 100-unit,
 * 4-GPU program).  0, or -1 when the image is not in a mapped file.
 */
static int image_identity(const struct ol_device_image *img, uint8_t id[32])
{
	const struct ol_object *obj = img->owner;
	struct ol_mapped_file *mf = obj && obj->path ? ol_map_file(obj->path) : NULL;
	struct ol_sha256 h;

	if (!mf || !mf->data || obj->data < mf->data || obj->data > mf->data + mf->size ||
	    img < obj->images || img >= obj->images + obj->nimages)
		return -1;
	ol_sha256_init(&h);
	ol_key_str(&h, "image");
	ol_key_u64(&h, mf->dev);
	ol_key_u64(&h, mf->ino);
	ol_key_u64(&h, mf->size);
	ol_key_u64(&h, (uint64_t)mf->mtime_ns);
	ol_key_u64(&h, (uint64_t)(obj->data - mf->data));
	ol_key_u64(&h, obj->nimages);
	ol_key_u64(&h, (uint64_t)(img - obj->images));
	ol_sha256_final(&h, id);
	return 0;
}

int ol_group_prepare(struct ol_group *g, const struct ol_link_context *ctx)
{
	const struct ol_cmdline *cl = ctx->cl;
	int rc;

	ol_cmdline_device_args(cl, &cl->device_linker, g->triple, ctx->flavor, &g->linker_args);
	ol_cmdline_device_args(cl, &cl->device_compiler, g->triple, ctx->flavor,
			       &g->compiler_args);
	ol_cmdline_key_args(cl, g->triple, ctx->flavor, &g->key_args);
	g->opt_level = opt_level(g, cl);
	g->debug = wants_debug(g, cl);
	g->lto_partition_units = cl->device_lto_units;
	g->lto_partition_origin = cl->device_lto_origin;
	rc = ol_group_remark_request(g, cl);
	if (builtin_bitcode(g, cl) < 0)
		rc = -1;
	g->route = OL_ROUTE_FAMILY;
	if (cl->embed_bitcode)
		g->route = OL_ROUTE_JIT;
	else if ((g->route_reason = foreign_compiler_arg(g, cl)))
		g->route = OL_ROUTE_CLANG;
	/* In the link arena, as the group (this runs on the main thread). */
	g->image_ids = ol_arena_alloc(&ol_link_arena, (g->nimages ? g->nimages : 1) *
							      sizeof(*g->image_ids));
	/* An image without an identity keeps the arena's zeros (none). */
	for (size_t k = 0; k < g->nimages; k++) {
		ol_image_symbols(g->images[k]);
		(void)image_identity(g->images[k], g->image_ids[k]);
	}
	return rc;
}

void ol_groups_release(struct ol_groups *groups)
{
	for (size_t i = 0; i < groups->n; i++) {
		struct ol_group *g = &groups->v[i];

		free(g->linked.data);
		g->linked.data = NULL;
		g->linked.size = 0;
		free(g->remark_records.data);
		g->remark_records.data = NULL;
		g->remark_records.size = 0;
		strvec_release(&g->linker_args);
		strvec_release(&g->compiler_args);
		strvec_release(&g->key_args);
		free(g->route_reason);
		g->route_reason = NULL;
	}
}
