/*
 * resolve: which archive members the link uses, the way a host linker
 * decides, and therefore which device images join the device link.
 *
 * The rule (issue 2, item 6): the device code of an archive member is linked
 * when the host link loads that member, or when the member defines a device
 * symbol that the device link still needs.  Objects on the command line are
 * always loaded; --whole-archive loads every member; shared libraries define
 * symbols but are never loaded for device code.  The scan repeats until
 * nothing changes, so the order of libraries on the line does not matter.
 * A member is identified by (archive file identity, member offset), so a
 * library named twice is still linked once.
 *
 * On return obj->loaded and img->selected are set.  An image may be selected
 * while its owner is not loaded: that member was needed only for a device
 * symbol, and the host link does not load it.
 */
#ifndef OFFLOAD_RESOLVE_H
#define OFFLOAD_RESOLVE_H

#include <stddef.h>

struct ol_inputs;
struct ol_cmdline;

int ol_resolve(struct ol_inputs *in, const struct ol_cmdline *cl);

/* One selected image, in the order grouping sees them. */
struct ol_linked_image {
	struct ol_device_image *image;
	/* 1: its owner is an input or a loaded member, so it may start a
	 * group; 0: selected only for its device symbols, it joins the groups
	 * that exist and never starts one. */
	int primary;
};

/* The selected images, each once: first those of non-archive inputs and of
 * members under --whole-archive, in command-line order; then those of the
 * other loaded members; then the images selected only for device symbols.
 * Returns a malloc'd array (the caller frees it), its length in *n. */
struct ol_linked_image *ol_resolve_link_order(const struct ol_inputs *in, size_t *n);

#endif
