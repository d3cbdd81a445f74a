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
 * On return obj->loaded and img->selected are set.  Images whose owner is not
 * loaded are not selected.
 */
#ifndef OFFLOAD_RESOLVE_H
#define OFFLOAD_RESOLVE_H

struct ol_inputs;
struct ol_cmdline;

int ol_resolve(struct ol_inputs *in, const struct ol_cmdline *cl);

#endif
