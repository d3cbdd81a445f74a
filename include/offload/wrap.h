/*
 * wrap: turn the linked device images into the registration objects that join
 * the host link, one per offload kind (OpenMP: __tgt_bin_desc and
 * __tgt_register_lib; CUDA and HIP: a fat binary and its
 * __{cuda,hip}RegisterFatBinary walk of the entries; SYCL: a
 * __sycl.tgt_bin_desc and __sycl_register_lib), in upstream's order: groups in
 * order, a group's kinds by value.  Each kind's images are bundled the kind's
 * way (src/wrap/bundle_*.c); the module is built and compiled in-process by
 * the backend.  Paths returned are temp files (or save-temps names) in the
 * link arena.
 */
#ifndef OFFLOAD_WRAP_H
#define OFFLOAD_WRAP_H

#include "offload/device_link.h"

struct ol_wrapped {
	const char **objects;          /* NULL-terminated */
	size_t nobjects;
};

int ol_wrap_all(const struct ol_groups *groups, const struct ol_link_context *ctx,
		struct ol_wrapped *out);

/* Before any device link runs: reports each offload kind among the grouped
 * images that this tool cannot bundle and register (upstream's "<kind>
 * bundling is not supported", at the first image of that kind, so the file
 * is named).  Returns 0 or -1. */
int ol_wrap_check_kinds(const struct ol_groups *groups);

/* --emit-fatbin-only (22): bundle as for wrapping and write the one bundle
 * (a CUDA fatbinary, a HIP offload bundle, a lone OpenMP OffloadBinary) to
 * the output, atomically; anything but exactly one is upstream's error. */
int ol_wrap_write_fat_binary(const struct ol_groups *groups, const struct ol_link_context *ctx);


#endif
