/*
 * target_id: target IDs (upstream-spec 4.1), as pure functions over strings.
 */
#ifndef OFFLOAD_TARGET_ID_H
#define OFFLOAD_TARGET_ID_H

#include <stddef.h>

/* The architecture component of a triple, as Triple::getArchName() reads
 * it: everything before the first '-'. */
size_t ol_triple_arch_len(const char *triple);

/* Upstream's areTargetsCompatible (19/22): two different target IDs of one
 * triple where either arch is "generic", or AMDGPU ids of one processor
 * whose xnack/sramecc settings do not conflict.  Equal ids are not
 * "compatible": they are the same group.  16 groups by exact id only. */
int ol_target_ids_compatible(const char *triple_a, const char *arch_a,
			     const char *triple_b, const char *arch_b);

#endif
