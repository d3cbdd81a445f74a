/*
 * bitcode_sandbox: read a host bitcode file (its symbols, offloading sections
 * and producer) with the backend's bitcode_info, in a child process with
 * bounded CPU time and address space, so that LLVM's reader, which is not
 * built for hostile input, can fault, abort or loop on a damaged file without
 * taking the link with it: the child's death becomes an error message.
 *
 * ol_bitcode_info_sandboxed() fills *out as be->bitcode_info would (free it
 * with be->bitcode_info_free) and returns 0; or returns -1 with a malloc'd
 * message in *err ("LLVM's bitcode reader crashed on it (Segmentation
 * fault): the file is damaged").
 */
#ifndef OFFLOAD_BITCODE_SANDBOX_H
#define OFFLOAD_BITCODE_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#include "offload/backend.h"

int ol_bitcode_info_sandboxed(const struct ol_backend *be, const uint8_t *data, size_t size,
			      const char *name, struct ol_bc_info *out, char **err);

#endif
