/*
 * group: the group stage (src/group/): the selected device images in one
 * group per target ID (upstream-spec 4.1), each prepared with what its
 * device link needs of the command line (struct ol_group).
 */
#ifndef OFFLOAD_GROUP_H
#define OFFLOAD_GROUP_H

#include "offload/device_link.h"

/* Forms the groups in out (link arena) and prepares each one.  Returns 0,
 * or -1 after reporting every image that cannot be grouped. */
int ol_group_images(struct ol_inputs *in, const struct ol_link_context *ctx,
		    struct ol_groups *out);

/* Works out the group's device arguments, -O level, debug, key arguments,
 * route and remarks, and reads its images' symbols (prepare.c).  Returns
 * 0, or -1 after reporting a setting that cannot be used. */
int ol_group_prepare(struct ol_group *g, const struct ol_link_context *ctx);

/* What remarks the group's LTO collects, from every spelling on the line
 * (remark_options.c): g->remarks.  Returns 0, or -1 after reporting a
 * pattern that is not a regular expression. */
int ol_group_remark_request(struct ol_group *g, const struct ol_cmdline *cl);

/* Warns about each --should-extract architecture (one per --offload-arch)
 * for which no group links device code.  Call after ol_group_images(). */
void ol_warn_unused_offload_archs(const struct ol_groups *groups,
				  const struct ol_link_context *ctx);

/* Frees the linked images and what ol_group_prepare() allocated (the groups
 * themselves live in the link arena). */
void ol_groups_release(struct ol_groups *groups);

#endif
