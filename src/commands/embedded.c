/*
 * embedded: the device images in one file, for inspect and package
 * (commands_internal.h).  The link's scanner does the reading
 * (ol_scan_memory); shared libraries, which a link never takes device code
 * from, are read here with the same section walk.
 */
#include "commands_internal.h"
#include "offload/arena.h"
#include "offload/mapped_file.h"
#include "../input/scan_internal.h"

#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void take(struct ol_embedded_images *out, const struct ol_object *obj)
{
	if (!obj || !obj->nimages)
		return;
	out->v = ol_xrealloc(out->v, (out->n + obj->nimages) * sizeof(*out->v));
	for (size_t i = 0; i < obj->nimages; i++) {
		out->v[out->n].bin = obj->images[i].bin;
		out->v[out->n].loc = obj->images[i].loc;
		out->n++;
	}
}

static int scan_shared(const char *path, const uint8_t *data, size_t size,
		       struct ol_embedded_images *out)
{
	struct ol_object *obj = ol_arena_alloc(&ol_link_arena, sizeof(*obj));
	struct ol_image_vec vec = { NULL, 0, 0 };
	int rc;

	obj->display = obj->path = path;
	obj->kind = OL_IN_SHARED;
	obj->data = data;
	obj->size = size;
	rc = ol_elf_scan(obj, &vec);
	obj->images = vec.v;
	obj->nimages = vec.n;
	take(out, obj);
	free(vec.v);
	return rc;
}

int ol_embedded_images(const char *path, struct ol_embedded_images *out)
{
	const struct ol_mapped_file *f = ol_map_file_reported(path, "file to read");
	struct ol_inputs in;
	struct ol_input input;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!f)
		return -1;
	out->data = f->data;
	out->size = f->size;
	out->kind = ol_identify(f->data, f->size);
	if (out->kind == OL_IN_SHARED) {
		rc = scan_shared(path, f->data, f->size, out);
	} else {
		rc = ol_scan_memory(path, f->data, f->size, &in, &input);
		if (input.object)
			take(out, input.object);
		if (input.archive)
			for (size_t i = 0; i < input.archive->nmembers; i++)
				take(out, input.archive->members[i]);
	}
	/* The arrays moved into out: the scan's own go with the arena. */
	if (out->v) {
		struct ol_embedded_image *v = ol_arena_alloc(&ol_link_arena, out->n * sizeof(*v));

		memcpy(v, out->v, out->n * sizeof(*v));
		free(out->v);
		out->v = v;
	}
	return rc;
}
