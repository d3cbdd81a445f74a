/* Steps every target family shares: inputs to files, options, reading results back
 * (the LTO step is device_lto.c). */
#include "target_impl.h"
#include "offload/ar_writer.h"
#include "offload/bitcode_header.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/mapped_file.h"
#include "offload/spawn.h"
#include "offload/temp_names.h"
#include "offload/target_id.h"
#include "offload/tempfile.h"
#include "offload/timer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The part of "triple" before the first '-' ("x86_64", "nvptx64"). */
static char *arch_name(const char *triple)
{
	return ol_xstrndup(triple, ol_triple_arch_len(triple));
}

char *ol_group_output_prefix(const struct ol_group *g, const struct ol_link_context *ctx)
{
	char *arch = arch_name(g->triple);
	char *prefix = ol_xasprintf("%s.%s.%s", ctx->exe_name, arch, g->arch);
	free(arch);
	return prefix;
}

/* Name stem of an image's input, for upstream-like temp names. */
static char *image_stem(const struct ol_device_image *img)
{
	const char *name = img->owner && img->owner->member ? img->owner->member
			 : img->owner ? img->owner->path : "image";
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	const char *dot = strrchr(base, '.');
	return ol_xstrndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

static void push_feature_list(struct strvec *out, const char *list)
{
	while (list && *list) {
		size_t len = strcspn(list, ",");
		if (len)
			strvec_pushf(out, "%.*s", (int)len, list);
		list += len;
		if (*list == ',')
			list++;
	}
}

/* "+xnack" and "-xnack" name the same feature. */
static const char *feature_name(const char *feature)
{
	return *feature == '+' || *feature == '-' ? feature + 1 : feature;
}

char *ol_group_features(const struct ol_group *g, const char *extra)
{
	struct strvec all = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;

	for (size_t i = 0; i < g->nimages; i++)
		if (ol_image_is_bitcode(g->images[i]))
			push_feature_list(&all, ol_offload_binary_get(&g->images[i]->bin, "feature"));
	push_feature_list(&all, extra);
	/* One entry per feature name, the last occurrence winning, as upstream
	 * de-duplicates the LTO attributes. */
	for (size_t i = 0; i < all.nr; i++) {
		int overridden = 0;
		for (size_t k = i + 1; k < all.nr && !overridden; k++)
			overridden = strcmp(feature_name(all.v[i]), feature_name(all.v[k])) == 0;
		if (overridden)
			continue;
		if (out.len)
			strbuf_addch(&out, ',');
		strbuf_addstr(&out, all.v[i]);
	}
	strvec_release(&all);
	return strbuf_detach(&out);
}

int ol_group_add_lto_output(const struct ol_group *g, const char *prefix, const char *ext,
			    const struct ol_buffer *out, struct strvec *files)
{
	const char *path = ol_temp_write(prefix, ext, out->data, out->size);

	ol_temp_name_describe(path, "[device LTO output for %s%s%s]", g->triple,
			      *g->arch ? " " : "", g->arch);
	if (!path)
		return -1;
	strvec_push(files, path);
	return 0;
}

void ol_group_lto_failed(const struct ol_group *g, const char *what, char *err)
{
	ol_error("device LTO%s for '%s%s%s' failed: %s", what, g->triple, *g->arch ? "' '" : "",
		 g->arch, err ? err : "unknown error");
	free(err);
}

int ol_group_pack_images(struct ol_group *g, const struct ol_link_context *ctx,
			 const struct ol_lto_settings *lto, struct strvec *files)
{
	struct ol_ar_entry *members = ol_xcalloc(g->nimages, sizeof(*members));
	struct strbuf archive = STRBUF_INIT;
	size_t n = 0;
	char *prefix;
	const char *path;

	for (size_t i = 0; i < g->nimages; i++) {
		const struct ol_device_image *img = g->images[i];
		char *stem;

		if (ol_image_is_bitcode(img))
			continue;
		stem = image_stem(img);
		/* The index keeps names unique: ld names members in messages. */
		members[n].name = ol_xasprintf("%s-%zu.o", stem, i);
		members[n].data = img->bin.image;
		members[n].size = img->bin.image_size;
		n++;
		free(stem);
	}
	if (!ol_spawn_config()->dry_run)   /* only the name is printed */
		ol_ar_write(members, n, &archive);
	prefix = ol_xasprintf("%s.%s%s%s.objects", ctx->exe_name, g->triple, *g->arch ? "." : "",
			      g->arch);
	path = ol_temp_write(prefix, "a", archive.buf, archive.len);
	ol_temp_name_describe(path, "[%s%s%s object images]", g->triple, *g->arch ? " " : "",
			      g->arch);
	for (size_t i = 0; i < n; i++)
		free((char *)members[i].name);
	free(members);
	free(prefix);
	strbuf_release(&archive);
	if (!path)
		return -1;
	strvec_push(files, lto->whole_archive_on);
	strvec_push(files, path);
	strvec_push(files, lto->whole_archive_off);
	return 0;
}

/* The image's place, as messages name it, in place of its temp file:
 * "libk.a(k2.o): .llvm.offloading+0x0 [x86_64-unknown-linux-gnu generic image]". */
static void describe_image_file(const char *path, const struct ol_group *g,
				const struct ol_device_image *img)
{
	char where[1024];

	ol_temp_name_describe(path, "%s [%s%s%s image]",
			      ol_loc_format(&img->loc, where, sizeof(where)), g->triple,
			      *g->arch ? " " : "", g->arch);
}

static int write_images(struct ol_group *g, int with_bitcode,
			const char *(*image_ext)(const struct ol_device_image *img),
			struct strvec *files)
{
	for (size_t i = 0; i < g->nimages; i++) {
		const struct ol_device_image *img = g->images[i];
		char *stem, *prefix;
		const char *path;

		if (ol_image_is_bitcode(img) && !with_bitcode)
			continue;
		/* The device linker reads files: this is where an image is first copied. */
		stem = image_stem(img);
		prefix = ol_xasprintf("%s-%s-%s", stem, g->triple, g->arch);
		path = ol_temp_write(prefix, image_ext ? image_ext(img) : "o",
				     img->bin.image, img->bin.image_size);
		describe_image_file(path, g, img);
		free(stem);
		free(prefix);
		if (!path)
			return -1;
		strvec_push(files, path);
	}
	return 0;
}

int ol_group_write_images(struct ol_group *g, int with_bitcode,
			  const char *(*image_ext)(const struct ol_device_image *img),
			  struct strvec *files)
{
	return write_images(g, with_bitcode, image_ext, files);
}

static enum ol_input_kind kind_of_item(const struct ol_inputs *in, size_t item)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->v[i].link_item == item)
			return in->v[i].kind;
	return OL_IN_MISSING;
}

/* What the host link line contributes to a CPU device link (upstream 19/22:
 * archives and shared objects given as inputs, -l, -L, --whole-archive),
 * in the line's order.  `wl` prefixes each with -Wl, for a compiler driver. */
void ol_group_push_host_libraries(const struct ol_link_context *ctx, struct strvec *argv, int wl)
{
	const struct ol_cmdline *cl = ctx->cl;
	const char *prefix = wl ? "-Wl," : "";

	if (cl->sysroot)
		strvec_pushf(argv, "--sysroot=%s", cl->sysroot);
	/* A driver's line names the OpenMP runtime as -fopenmp, which brings
	 * -lomp and its -L: the driver (clang) linking the image needs it too. */
	if (wl)
		strvec_push_all(argv, &cl->driver_runtimes);
	for (size_t i = 0; i < cl->nlib_paths; i++)
		strvec_pushf(argv, "-L%s", cl->lib_paths[i]);
	for (size_t i = 0; i < cl->nlink_items; i++) {
		const struct ol_link_item *item = &cl->link_items[i];
		enum ol_input_kind kind;

		switch (item->kind) {
		case OL_LINK_FILE:
			kind = kind_of_item(ctx->in, i);
			if (kind == OL_IN_ARCHIVE || kind == OL_IN_SHARED)
				strvec_push(argv, item->value);
			break;
		case OL_LINK_LIBRARY:
			strvec_pushf(argv, "-l%s", item->value);
			break;
		case OL_LINK_WHOLE_ARCHIVE:
			strvec_pushf(argv, "%s--whole-archive", prefix);
			break;
		case OL_LINK_NO_WHOLE_ARCHIVE:
			strvec_pushf(argv, "%s--no-whole-archive", prefix);
			break;
		case OL_LINK_BSTATIC:
			strvec_pushf(argv, "%s-Bstatic", prefix);
			break;
		case OL_LINK_BDYNAMIC:
			strvec_pushf(argv, "%s-Bdynamic", prefix);
			break;
		case OL_LINK_START_GROUP:
			strvec_pushf(argv, "%s--start-group", prefix);
			break;
		case OL_LINK_END_GROUP:
			strvec_pushf(argv, "%s--end-group", prefix);
			break;
		case OL_LINK_AS_NEEDED:
			strvec_pushf(argv, "%s--as-needed", prefix);
			break;
		case OL_LINK_NO_AS_NEEDED:
			strvec_pushf(argv, "%s--no-as-needed", prefix);
			break;
		}
	}
}

int ol_group_read_result(struct ol_group *g, const char *path)
{
	g->linked_path = path;
	g->linked.data = NULL;
	g->linked.size = 0;
	if (ol_spawn_config()->dry_run)
		return 0;
	if (ol_read_whole_file(path, &g->linked.data, &g->linked.size) < 0)
		return ol_error("cannot read the linked device image '%s': %s", path, strerror(errno));
	return 0;
}

int ol_group_run_linker(const struct ol_group *g, const struct ol_link_context *ctx,
			struct strvec *argv, const char *out, const struct strvec *files)
{
	int rc;

	strvec_push(argv, "-o");
	strvec_push(argv, out);
	strvec_push_all(argv, files);
	ol_group_push_device_linker_args(g, ctx, argv, "");
	rc = ol_spawn_checked(argv);
	strvec_release(argv);
	return rc;
}

void ol_group_push_device_linker_args(const struct ol_group *g, const struct ol_link_context *ctx,
				      struct strvec *argv, const char *prefix)
{
	(void)ctx;
	for (size_t i = 0; i < g->linker_args.nr; i++)
		strvec_pushf(argv, "%s%s", prefix, g->linker_args.v[i]);
}

/* Shared by the SYCL family and by a SYCL link that clang runs (clang_link.c). */
void ol_adopt_sycl_linker_files(const struct ol_link_context *ctx, const char *out)
{
	static const char *const exts[] = { "spv", "out" };
	const char *dot = strrchr(out, '.');
	int stem = dot ? (int)(dot - out) : (int)strlen(out);
	int found = 1;

	if (ctx->cl->save_temps || ol_spawn_config()->dry_run)
		return;
	for (unsigned n = 0; found; n++) {
		found = 0;
		for (size_t e = 0; e < sizeof(exts) / sizeof(exts[0]); e++) {
			char *path = ol_xasprintf("%.*s_%u.%s", stem, out, n, exts[e]);

			if (access(path, F_OK) == 0) {
				ol_temp_register(path);
				found = 1;
			}
			free(path);
		}
	}
}
