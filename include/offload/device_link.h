/*
 * device_link: group the selected device images by target and link each group
 * into one device image, every group a job on a thread pool.
 *
 * Groups are keyed by (triple, arch) in first-seen order (19/22 rules, with
 * AMDGPU target-id compatibility), images of archives after objects.  Each
 * target family's behaviour sits behind struct ol_target (targets.c); no
 * caller tests a triple by hand.
 *
 * Ownership: groups and their image arrays live in the link arena; a job's
 * result (linked image) is a malloc'd buffer owned by the group until exit.
 */
#ifndef OFFLOAD_DEVICE_LINK_H
#define OFFLOAD_DEVICE_LINK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "offload/cmdline.h"
#include "offload/backend.h"
#include "offload/diag.h"

struct ol_inputs;
struct ol_device_image;
struct ol_target;
struct ol_pool;
struct ol_cache;
struct ol_sha256;

/* How a group's device link runs (ol_group_prepare decides it, once). */
enum ol_link_route {
	OL_ROUTE_FAMILY,               /* the family's own link (struct ol_target) */
	OL_ROUTE_CLANG,                /* clang links the images as given (route_reason) */
	OL_ROUTE_JIT,                  /* --embed-bitcode: the bitcode, for the runtime's JIT */
};

struct ol_group {
	const char *triple;
	const char *arch;              /* as in the first image; 22: "" for generic */
	const struct ol_target *target;
	struct ol_device_image **images;
	size_t nimages;
	unsigned kinds;                /* OR of enum ol_offload_kind of the images */
	/* What its link needs of the command line, prepared by the group stage
	 * (src/group/prepare.c) so that the device stage reads nothing else. */
	struct strvec linker_args;     /* --device-linker values for its triple */
	struct strvec compiler_args;   /* --device-compiler values for its triple */
	struct strvec key_args;        /* the arguments that decide its link (options.def) */
	int opt_level;                 /* 0..3 */
	int debug;                     /* device debug info wanted */
	/* Its device LTO: input modules a partition, 0 for one module (full
	 * LTO, --device-lto=full); and the option or variable that asked for
	 * partitions, NULL when they are the default (for messages). */
	unsigned lto_partition_units;
	const char *lto_partition_origin;
	enum ol_link_route route;
	char *route_reason;            /* OL_ROUTE_CLANG: the argument that needs clang */
	struct ol_remark_request remarks; /* what its LTO collects (patterns in the link arena) */
	const char *remarks_file;      /* the YAML records' prefix, or NULL (remark_options.c) */
	/* --builtin-bitcode files for its triple: views of the mapped files,
	 * the arrays in the link arena. */
	const uint8_t **builtins;
	size_t *builtin_sizes;
	const char **builtin_names;
	size_t nbuiltins;
	/* Each image's identity, parallel to images: the SHA-256 of its file's
	 * stat identity, the offset of its object in the file and its index
	 * there, by which the cache remembers the digest of its bytes; all
	 * zero when it has none (an image not in a mapped file). */
	uint8_t (*image_ids)[32];
	/* Result of the device link. */
	struct ol_buffer linked;       /* the device image bytes (malloc'd) */
	/* The remarks its LTO made, encoded (remark_records.h; malloc'd),
	 * printed and written by ol_device_report_remarks. */
	struct ol_buffer remark_records;
	const char *linked_path;       /* where it was written (temp or save-temps) */
	struct ol_diag_buffer diag;
	int failed;
	int cached;                    /* linked came from the device-link cache */
	int overridden;                /* linked is an --override-image file, not our link */
};

struct ol_groups {
	struct ol_group *v;
	size_t n;
};

/* Settings shared by all jobs of one link. */
struct ol_link_context {
	const struct ol_cmdline *cl;
	const struct ol_inputs *in;
	enum ol_flavor flavor;         /* resolved, never AUTO */
	const char *exe_name;          /* basename of -o, for temp names */
	struct ol_cache *cache;        /* the device-link cache, or NULL */
	struct ol_pool *pool;          /* the device stage's threads (pool.h), or NULL */
};

/* "nvptx64-nvidia-cuda sm_90", or the triple alone for a group without an
 * arch: how messages, timers and statistics name a group's image.  Inline:
 * every file of the device stage names images, and none should depend on
 * another for it. */
static inline void ol_group_image_name(const struct ol_group *g, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", g->triple, *g->arch ? " " : "", g->arch);
}

/* Runs every group's link, in parallel (cl->wrapper_jobs, jobserver).
 * Returns 0, or -1 after every failing job's diagnostics were printed. */
int ol_device_link_all(struct ol_groups *groups, const struct ol_link_context *ctx);

/* Warns, once for the whole link, when the OpenMP runtime of the release
 * being emulated cannot load a linked image that will be registered with it
 * (struct ol_target's omp_runtime_refusal).  Call after the device links. */
void ol_warn_images_runtime_refuses(const struct ol_groups *groups,
				   const struct ol_link_context *ctx);

/* --override-image: groups whose linked image is the given file (no scan,
 * no device link). */
int ol_groups_from_override_images(const struct ol_cmdline *cl, struct ol_groups *out);

/* A CUDA program (ptxas, nvlink, fatbinary): in the CUDA installation
 * named by --cuda-path (22: also --device-compiler=[<triple>=]--cuda-path=,
 * among the values of group g, which may be NULL), then
 * /usr/local/cuda/bin, then PATH.  Reports an error naming `purpose` ("the
 * 'nvptx64-nvidia-cuda' 'sm_80' device link") and returns NULL when it is
 * nowhere. */
char *ol_find_cuda_program(const char *name, const struct ol_group *g, const char *purpose,
			   const struct ol_link_context *ctx);

/* A target family. */
/* How upstream 22's device clang command treats a target family (spec
 * 4.4), for links that clang drives (src/device/clang_link.c). */
struct ol_clang_shape {
	const char *arch_flag;         /* "-mcpu=" or "-march=" */
	unsigned lto_flag : 1;         /* -flto: the device linker does LTO (AMDGPU) */
	unsigned no_undefined : 1;     /* -Wl,--no-undefined */
	unsigned gpu : 1;              /* 0: a shared object with the host's libraries */
};

/* What a family's assembler step needs to know, without a group: a
 * partition job on another machine (lto_job.h) runs it from its command
 * line. */
struct ol_assemble_spec {
	const char *triple, *arch;
	int opt_level, debug, verbose;
	const struct strvec *extra;    /* the user's assembler options (--ptxas-arg) */
};

struct ol_target {
	const char *name;              /* "cpu", "nvptx", "amdgpu", "spirv" */
	int (*matches)(const char *triple);
	/* Offload kinds the family links (enum ol_offload_kind bits), 0 for
	 * every kind; ol_group_images() rejects the others. */
	unsigned kinds;
	/* Link one group; runs on a worker thread.  Fills g->linked. */
	int (*link)(struct ol_group *g, const struct ol_link_context *ctx);
	struct ol_clang_shape clang;
	/* For the cache key: the programs link() runs and the files it reads
	 * besides the images (ol_key_tool, ol_key_file in job_key.h). */
	void (*identify)(const struct ol_group *g, const struct ol_link_context *ctx,
			 struct ol_cache *c, struct ol_sha256 *h);
	/* Why libomptarget of the release being emulated would refuse the
	 * group's linked image: one malloc'd sentence naming the image, what
	 * made it and the ways out; NULL when it loads it.  A NULL hook: the
	 * runtime loads whatever the family links. */
	char *(*omp_runtime_refusal)(const struct ol_group *g, const struct ol_link_context *ctx);
	/* Turns the family's LTO output (assembly, the file `in`) into the
	 * object its device linker takes (`out`) with `program`; NULL for a
	 * family whose LTO writes that object itself.  Returns 0 or -1. */
	int (*assemble_file)(const struct ol_assemble_spec *s, const char *program, const char *in,
			     const char *out);
};
const struct ol_target *ol_target_for(const char *triple);

#endif
