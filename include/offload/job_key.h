/*
 * job_key: the key of a device link in the device-link cache: a SHA-256 over
 * everything that decides the linked image (src/device/job_key.c).
 *
 * It covers the bytes and strings of every image of the group in link
 * order, the triple, arch and offload kinds, the release being emulated,
 * every option that reaches the device link or LTO, the LLVM version and
 * file of the backend when there is bitcode, this build of offload-link,
 * and the identity of each external tool the job runs and each other file
 * it reads (the target family says which: struct ol_target's identify).
 */
#ifndef OFFLOAD_JOB_KEY_H
#define OFFLOAD_JOB_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "offload/cache.h"
#include "offload/sha256.h"

struct ol_group;
struct ol_link_context;

/* The key of one group's device link, in hex. */
void ol_group_job_key(struct ol_cache *c, const struct ol_group *g,
		      const struct ol_link_context *ctx, char key[OL_CACHE_KEY_HEX]);

/* The key of one partition's product in partitioned LTO (an object, or
 * optimized bitcode: `product` says which): the group's settings as above,
 * the processor and features it is compiled for, and the partition's
 * bitcode (its local names numbered in order, split()'s keys), which holds
 * everything of the inputs that decides its code. */
void ol_partition_job_key(struct ol_cache *c, const struct ol_group *g,
			  const struct ol_link_context *ctx, const char *product,
			  const char *cpu, const char *features, const uint8_t *bitcode,
			  size_t size, char key[OL_CACHE_KEY_HEX]);

/* The SHA-256 of each bitcode image of the group, in order (the modules of
 * its LTO request), remembered by the images' identities: what a
 * partition's plan key names its bodies by (backend.h, partition_planned). */
void ol_group_bitcode_digests(struct ol_cache *c, const struct ol_group *g,
			      uint8_t (*digests)[OL_SHA256_SIZE]);

/* The key of the product of a group's bitcode when the group also has
 * native objects and its bitcode is optimized as one module (an object,
 * PTX assembled into a cubin: `product` says which): the group's settings,
 * its bitcode images in order, and the set of symbols the native objects
 * need from them.  A relink whose edit is in native code only (CUDA or
 * OpenMP units compiled without -foffload-lto beside a bitcode runtime)
 * takes the runtime's LTO and assembly from the cache. */
struct ol_lto_request;
void ol_lto_product_job_key(struct ol_cache *c, const struct ol_group *g,
			    const struct ol_link_context *ctx, const char *product,
			    const struct ol_lto_request *req, char key[OL_CACHE_KEY_HEX]);

/* For the target families' identify functions.  The identity of a program
 * the job runs: what `<path> --version` prints, remembered by the program's
 * stat identity, so that a changed tool is run again; a missing program
 * hashes as such. */
void ol_key_tool(struct ol_cache *c, struct ol_sha256 *h, const char *path);
/* A file the job reads besides the images (a library, a crt object): the
 * SHA-256 of its bytes, remembered by its stat identity. */
void ol_key_file(struct ol_cache *c, struct ol_sha256 *h, const char *path);

#endif
