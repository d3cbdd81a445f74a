/*
 * group_plan: the rule that places device images in groups, one group per
 * target ID (upstream-spec 4.1).  It is written here once and followed
 * twice: resolve follows it to know which groups exist while it selects
 * archive members for their device symbols, and the group stage follows it
 * to form the groups.  The plan knows only target IDs and group numbers;
 * what a group holds is its user's.
 */
#ifndef OFFLOAD_GROUP_PLAN_H
#define OFFLOAD_GROUP_PLAN_H

#include <stddef.h>

struct ol_group_plan {
	int exact;              /* 16: an image joins the group of its exact id only */
	struct ol_planned_group {
		const char *triple, *arch;   /* the first image's; borrowed */
	} *v;
	size_t n, cap;
};

/*
 * Places an image of (triple, arch) (NULL reads as "") and writes the
 * numbers of the groups it joins to joins, which has room for n + 1.
 *
 * A primary image (its owner is an input or a loaded member) joins its own
 * group first, made on first sight (so groups are numbered in first-seen
 * order), then every group made before it for a compatible target ID: a
 * "gfx90a" image joins a "gfx90a:xnack+" group made earlier.
 *
 * A device-only image (selected only for its device symbols) joins the
 * groups of the same or a compatible ID that exist, in their order, and
 * makes none.  One that has no such group is placed as a primary one:
 * resolve selects none such, but an image selected some other way is still
 * linked.  Returns how many numbers were written.
 */
size_t ol_group_plan_place(struct ol_group_plan *p, const char *triple, const char *arch,
			   int primary, size_t *joins);

/* The groups a device-only image of (triple, arch) would join, placing
 * nothing.  joins has room for n. */
size_t ol_group_plan_joins(const struct ol_group_plan *p, const char *triple, const char *arch,
			   size_t *joins);

void ol_group_plan_release(struct ol_group_plan *p);

#endif
