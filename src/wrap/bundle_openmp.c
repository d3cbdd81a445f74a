/*
 * OpenMP: each linked image becomes one OffloadBinary {triple, arch} (spec
 * 4.5), which the registration module lists in its __tgt_bin_desc.
 */
#include "bundle.h"
#include "offload/diag.h"

#include <stdlib.h>
#include <string.h>

int ol_bundle_openmp(const struct ol_kind_images *images, const struct ol_link_context *ctx,
		     struct ol_bundled *out)
{
	for (size_t i = 0; i < images->n; i++) {
		const struct ol_group *g = images->groups[i];
		/* 22 stores a "generic" architecture as the empty string. */
		const char *arch = ctx->flavor >= OL_FLAVOR_22 && strcmp(g->arch, "generic") == 0 ? ""
											   : g->arch;
		struct ol_offload_string strings[2] = { { "triple", g->triple, 0 }, { "arch", arch, 0 } };
		/* An --override-image file without a CPU name carries no "arch", as upstream. */
		size_t nstrings = g->nimages == 0 && !*arch ? 1 : 2;
		struct ol_offload_binary_desc desc = {
			.image_kind = ctx->cl->embed_bitcode ? OL_IMG_BITCODE : OL_IMG_OBJECT,
			.offload_kind_raw = ol_offload_kind_encode(OL_OFK_OPENMP, ctx->flavor),
			.flags = 0,
			.strings = strings,
			.nstrings = nstrings,
			.image = g->linked.data,
			.image_size = g->linked.size,
		};
		size_t size;
		uint8_t *binary = ol_offload_binary_write(&desc, &size);

		ol_bundled_add(out, binary, size);
	}
	return 0;
}

void ol_bundled_add(struct ol_bundled *b, uint8_t *data, size_t size)
{
	b->data = ol_xrealloc(b->data, (b->n + 1) * sizeof(*b->data));
	b->size = ol_xrealloc(b->size, (b->n + 1) * sizeof(*b->size));
	b->data[b->n] = data;
	b->size[b->n] = size;
	b->n++;
}

void ol_bundled_release(struct ol_bundled *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->data[i]);
	free(b->data);
	free(b->size);
	free(b->sycl_images);
	memset(b, 0, sizeof(*b));
}
