/*
 * offload_section: the images of a section of concatenated offload binaries
 * (.llvm.offloading of any object format, or a raw binary file), checked as
 * far as the link can name a place for what is wrong, appended to an
 * object's image list.  The object formats (elf_object.c, coff_object.c)
 * and scan.c call it; it calls none of them.
 */
#include "scan_internal.h"
#include "offload/arena.h"
#include "offload/bitcode_header.h"
#include "offload/diag.h"

#include <stdlib.h>
#include <string.h>

struct ol_loc ol_object_loc(const struct ol_object *obj)
{
	struct ol_loc loc = { .file = obj->path, .member = obj->member };

	return loc;
}

struct section_ctx {
	struct ol_object *obj;
	struct ol_image_vec *vec;
	struct ol_loc base;
	int failed;
};

static void add_image(void *ctx_ptr, const struct ol_offload_binary *bin, uint64_t offset)
{
	struct section_ctx *ctx = ctx_ptr;
	struct ol_image_vec *vec = ctx->vec;
	struct ol_device_image *img;
	struct ol_loc loc = ctx->base;

	loc.offset = offset;
	loc.has_offset = 1;
	/* Version 2 entries may carry metadata for the runtime and no code. */
	if (bin->version >= 2 && (bin->flags & OL_OFFLOAD_FLAG_METADATA))
		return;
	/* An image kind no release defines: what it holds, and so what it
	 * would make of the program, is unknown. */
	if (bin->image_kind > OL_IMG_SPIRV) {
		ol_error_at(&loc, "unknown image kind %u", (unsigned)bin->image_kind);
		ctx->failed = 1;
		return;
	}
	/* Bitcode goes to LLVM's reader, which is not made for hostile input:
	 * its outer layer is checked here, where the place can be named. */
	if (bin->image_kind == OL_IMG_BITCODE && bin->image_size) {
		const char *why;
		uint64_t bad;

		if (ol_bitcode_header_check(bin->image, (size_t)bin->image_size, &why, &bad) < 0) {
			loc.offset += ol_offload_image_offset(bin) + (bin->compressed ? 0 : bad);
			ol_error_at(&loc, "image of kind 'bc': %s", why);
			ctx->failed = 1;
			return;
		}
	}
	/* An empty image carries no code: upstream links it as an empty file
	 * and the program fails when it starts, far from the cause.  clang
	 * never writes one (a unit without target regions still has a module),
	 * so the object is damaged or was packaged wrong: say so here. */
	if (bin->image_size == 0) {
		ol_error_at(&loc, "the device image for '%s'%s%s%s is empty (0 bytes): the object's "
			    "device code is missing", bin->triple, *bin->arch ? " '" : "", bin->arch,
			    *bin->arch ? "'" : "");
		ctx->failed = 1;
		return;
	}
	OL_GROW(vec->v, vec->n + 1, vec->alloc, 4);
	img = &vec->v[vec->n++];
	memset(img, 0, sizeof(*img));
	img->bin = *bin;
	img->owner = ctx->obj;
	img->loc = loc;
}

int ol_scan_offload_section(struct ol_object *obj, struct ol_image_vec *vec,
			    const uint8_t *data, size_t size, const char *section)
{
	struct section_ctx ctx = { .obj = obj, .vec = vec, .base = ol_object_loc(obj) };

	ctx.base.section = section;
	return ol_offload_section_parse(data, size, &ctx.base, &ol_link_arena, add_image, &ctx) < 0 ||
			       ctx.failed
		       ? -1 : 0;
}
