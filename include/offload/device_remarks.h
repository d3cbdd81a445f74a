/*
 * device_remarks: the device LTO's optimization remarks, from the backend
 * to the user (docs/design/remarks.md).  A group collects the
 * remarks of every LTO run of its link (whole or per partition) in
 * g->remark_records; the cache keeps them beside the product they came
 * with, so a relink served from the cache reports what the link that made
 * the product reported; when every device link is done, each image's
 * remarks are printed under a heading naming it, and written as YAML under
 * --remarks-file.
 */
#ifndef OFFLOAD_DEVICE_REMARKS_H
#define OFFLOAD_DEVICE_REMARKS_H

#include "offload/device_link.h"

/* Adds an LTO run's remarks (*more, freed and emptied) to the group's. */
void ol_group_keep_remarks(struct ol_group *g, struct ol_buffer *more);

/* The remark request in a key (sha256 input): its normalized patterns. */
struct ol_sha256;
void ol_key_remark_request(struct ol_sha256 *h, const struct ol_remark_request *r);

/* The cache: remarks are stored under a key derived from their product's
 * and the group's request (ol_key_remark_request), the product's key
 * holding no remark option.
 * get: 1 when the group wants no remarks or they were found (*out, possibly
 * empty, malloc'd), 0 when it wants them and the cache has none (the
 * product must be made again).  put: stores them (nothing when the group
 * wants none). */
int ol_remarks_cache_get(struct ol_cache *c, const struct ol_group *g, const char *key,
			 struct ol_buffer *out);
void ol_remarks_cache_put(struct ol_cache *c, const struct ol_group *g, const char *key,
			  const struct ol_buffer *remarks);

/* Prints every group's shown remarks (stderr) and, when write_files is
 * set, writes the YAML files a group's remarks_file names.  Call when the
 * device links are done.  Returns 0, or -1 after reporting a file that
 * could not be written. */
int ol_device_report_remarks(const struct ol_groups *groups, int write_files);

#endif
