/*
 * SYCL (22): clang-sycl-linker's output already is what the registration
 * module embeds, an OffloadBinary per device image (spec 4.5), so the linked
 * images pass through unchanged.  Under --dry-run nothing was linked and
 * upstream's stub stands in: {IMG_None, OFK_SYCL, symbols="stub", empty
 * image}.  Each binary is then read here (triple, kinds, entry points, the
 * device code) for the backend's __sycl.tgt_device_image.
 *
 * Upstream 22 wraps the first buffer only (wrapSYCLBinaries gets
 * BuffersToWrap.front()) and so drops the device code of every other SYCL
 * target; we register the images of every group, in upstream's sort order,
 * which gives upstream's module exactly when there is one SYCL target.
 */
#include "bundle.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/spawn.h"

#include <stdlib.h>
#include <string.h>

static void add_device_image(void *ctx, const struct ol_offload_binary *bin, uint64_t offset)
{
	struct ol_bundled *out = ctx;
	const char *symbols = ol_offload_binary_get(bin, "symbols");
	struct ol_wrap_sycl_image *img;
	const char **names;

	(void)offset;
	out->sycl_images = ol_xrealloc(out->sycl_images,
				       (out->nsycl_images + 1) * sizeof(*out->sycl_images));
	img = &out->sycl_images[out->nsycl_images++];
	memset(img, 0, sizeof(*img));
	img->offload_kind = bin->offload_kind_raw;
	img->image_kind = bin->image_kind;
	img->triple = bin->triple;
	/* 22 never fills its SYCLJITOptions: the driver cannot pass them yet. */
	img->compile_options = "";
	img->link_options = "";
	img->nsymbols = ol_offload_symbol_list(symbols ? symbols : "", &ol_link_arena, &names);
	img->symbols = names;
	img->image = bin->image;
	img->image_size = (size_t)bin->image_size;
}

/* The stub OffloadBinary upstream wraps under --dry-run. */
static void add_dry_run_stub(struct ol_bundled *out)
{
	static const struct ol_offload_string symbols = { "symbols", "stub", 0 };
	struct ol_offload_binary_desc desc = {
		.image_kind = OL_IMG_NONE,
		.offload_kind_raw = OL_OFK_SYCL,
		.strings = &symbols,
		.nstrings = 1,
	};
	size_t size;
	uint8_t *stub = ol_offload_binary_write(&desc, &size);

	ol_bundled_add(out, stub, size);
}

int ol_bundle_sycl(const struct ol_kind_images *images, const struct ol_link_context *ctx,
		   struct ol_bundled *out)
{
	int dry_run = ol_spawn_config()->dry_run, failed = 0;

	(void)ctx;
	if (dry_run) {
		add_dry_run_stub(out);
	} else {
		for (size_t i = 0; i < images->n; i++) {
			const struct ol_buffer *linked = &images->groups[i]->linked;
			uint8_t *copy = ol_xmalloc(linked->size ? linked->size : 1);

			if (linked->size)
				memcpy(copy, linked->data, linked->size);
			ol_bundled_add(out, copy, linked->size);
		}
	}
	for (size_t i = 0; i < out->n; i++) {
		struct ol_loc loc = {
			.file = dry_run ? "<dry-run stub>" : images->groups[i]->linked_path,
		};
		int count = ol_offload_section_parse(out->data[i], out->size[i], &loc,
						     &ol_link_arena, add_device_image, out);

		if (count == 0)
			count = ol_error("%s: the SYCL device link wrote no offload binary", loc.file);
		if (count < 0) {
			ol_note("a SYCL device link (clang-sycl-linker) writes one offload binary "
				"per device image");
			failed = 1;
		}
	}
	return failed ? -1 : 0;
}
