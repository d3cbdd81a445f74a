/* Private to src/device: the per-family link functions and what they share. */
#ifndef OFFLOAD_TARGET_IMPL_H
#define OFFLOAD_TARGET_IMPL_H

#include "offload/device_link.h"
#include "offload/backend.h"
#include "offload/programs.h"
#include "offload/strvec.h"

/* Each family's row of the table (targets.c), defined in its
 * target_<family>.c with the functions it points to. */
extern const struct ol_target ol_target_cpu;
extern const struct ol_target ol_target_nvptx;
extern const struct ol_target ol_target_amdgpu;
extern const struct ol_target ol_target_spirv;
/* clang_link.c: the clang that drives device links (malloc'd, or NULL). */
char *ol_group_find_clang(const struct ol_link_context *ctx);

/* Shared steps of every family. */

/* Temp-file prefix for group outputs: "<exe>.<archname>.<arch>" as upstream. */
char *ol_group_output_prefix(const struct ol_group *g, const struct ol_link_context *ctx); /* caller frees */
/* How a family wants its group's bitcode compiled and its other images
 * written out (ol_group_prepare_lto_inputs). */
struct ol_lto_settings {
	const char *cpu;            /* processor for the backend, "" for none */
	const char *features;       /* "+a,-b" or "" */
	int emit_assembly;          /* NVPTX: LTO writes PTX, "<exe>.<triple>.<arch>.s" */
	/* Extension of a non-bitcode image's file (the device linker may go
	 * by it); NULL: "o". */
	const char *(*image_ext)(const struct ol_device_image *img);
	/* When set, many object images go to the linker as one archive
	 * between these two flags (--whole-archive / --no-whole-archive as
	 * the linker or driver spells them) instead of one file each. */
	const char *whole_archive_on, *whole_archive_off;
	/* --embed-bitcode: LTO stops after optimization and writes bitcode,
	 * "<exe>-jit-<triple>.bc" as upstream 16/19 name it. */
	int emit_bitcode;
	/* Partitioned LTO (partitioned_lto.c).  merge_before_codegen: the
	 * optimized partitions are linked into one module for one codegen,
	 * where the device linker cannot join separately compiled objects
	 * (AMDGPU: ld.lld keeps each object's metadata note, the loader reads
	 * one).  assemble: turns one partition's LTO output (a file) into the
	 * object the device linker takes, returning that temp file's path, or
	 * NULL (reported); NULL: the output is that object. */
	int merge_before_codegen;
	/* With merge_before_codegen: each optimized partition is compiled on
	 * its own (a job and a cache entry), and the objects are linked with
	 * one merged metadata note (AMDGPU), unless they cannot be
	 * (partitioned_lto.c says why under -v): then one codegen as above. */
	int codegen_partitions;
	const char *(*assemble)(const struct ol_group *g, const struct ol_link_context *ctx,
				const char *lto_output);
	/* With assemble: the assembler a partition job on another machine runs
	 * (malloc'd path, NULL reported) and its spec (distributed_lto.c). */
	char *(*assembler)(const struct ol_group *g, const struct ol_link_context *ctx,
			   struct ol_assemble_spec *spec);
	const char *assembled_ext;  /* the extension of what assemble makes */
	/* The e_machine of the family's objects (0: any), which a partition
	 * job's output must have (distributed_lto.c). */
	unsigned object_machine;
};
/* In-process LTO of the group's bitcode images with the family's settings;
 * appends the result's path to `files`.  Returns 0 or -1 (reported). */
int ol_group_run_lto(struct ol_group *g, const struct ol_link_context *ctx,
		     const struct ol_lto_settings *lto, struct strvec *files);
/* The group's bitcode images as an LTO request with the family's settings;
 * its arrays are malloc'd, ol_group_lto_request_release frees them. */
void ol_group_lto_request(struct ol_group *g, const struct ol_link_context *ctx,
			  const struct ol_lto_settings *lto, struct ol_lto_request *req);
void ol_group_lto_request_release(struct ol_lto_request *req);
/* Writes an LTO result to the temp file "<prefix>.<ext>" (described as the
 * group's device LTO output) and appends its path.  Returns 0 or -1. */
int ol_group_add_lto_output(const struct ol_group *g, const char *prefix, const char *ext,
			    const struct ol_buffer *out, struct strvec *files);
/* The memory an in-process LTO of this much bitcode holds at its peak (an
 * estimate, for the memory budget). */
uint64_t ol_lto_memory_estimate(uint64_t bitcode_bytes);
/* be->lto(req, ...) once the memory budget has room for its estimate
 * (memory_budget.h), which it holds until the step ends. */
int ol_lto_within_budget(const struct ol_backend *be, const struct ol_lto_request *req,
			 struct ol_buffer *out, struct ol_buffer *remarks, char **err);
/* Reports a failed LTO step (`what`: "" or " of partition 3"); frees err. */
void ol_group_lto_failed(const struct ol_group *g, const char *what, char *err);
/* partitioned_lto.c: how many partitions the group's bitcode forms (0 under
 * full LTO). */
size_t ol_group_partition_count(const struct ol_group *g);
/* partitioned_lto.c: --device-lto=partitioned, in place of one LTO of `req`:
 * appends the partitions' objects (or the one object of their merged
 * codegen) to `files`.  Returns 0, -1 (reported), or 1 when no partition
 * holds code and the caller links the module whole. */
int ol_group_run_partitioned_lto(struct ol_group *g, const struct ol_link_context *ctx,
				 const struct ol_lto_settings *lto,
				 const struct ol_lto_request *req, struct strvec *files);
/* distributed_lto.c: one partition a distributor builds, and what came back. */
struct ol_partition_job {
	size_t partition;                  /* its number, for the files' names */
	const struct ol_buffer *bitcode;   /* what split() made of it */
	/* Filled when done: the product (an optimized bitcode, a cubin, an
	 * object), with codegen_partitions the object too, and the remarks of
	 * each. */
	struct ol_buffer product, object, remarks, object_remarks;
	int done;
};
/* Hands the partitions to the distributor (--device-lto-distributor) as
 * jobs in lld's DTLTO job file and reads back what each made, checked.
 * prefix: "<exe>.<triple>.<arch>".  Returns 0 when every job is done, or,
 * with --device-lto-distributor-fallback, when some are not (the caller
 * builds those; warned); -1 (reported) when the link fails. */
int ol_distribute_partitions(const struct ol_group *g, const struct ol_link_context *ctx,
			     const struct ol_lto_settings *lto, const struct ol_lto_request *req,
			     const char *prefix, struct ol_partition_job *slots, size_t n);
/* jit.c: the --embed-bitcode "link" of a group (spec 8.1). */
int ol_group_link_for_jit(struct ol_group *g, const struct ol_link_context *ctx);
/* device_lto.c.  Splits a group's images: bitcode goes to in-process LTO
 * with the family's settings, whose result comes first in `files`
 * ("<exe>.<triple>.<arch>.s" with emit_assembly); every other image is
 * written to a temp file (or packed, see whole_archive_on) and appended.
 * Returns 0 or -1 (reported). */
int ol_group_prepare_lto_inputs(struct ol_group *g, const struct ol_link_context *ctx,
				const struct ol_lto_settings *lto, struct strvec *files);
/* The "feature" strings of the group's bitcode images, then `extra` (may be
 * NULL), merged: one entry per feature name, the last occurrence winning.
 * Returns a malloc'd "+a,-b" ("" for none). */
char *ol_group_features(const struct ol_group *g, const char *extra);
/* Append the --device-linker values for the group's triple, each after prefix
 * ("" for a linker, "-Wl," for a compiler driver). */
void ol_group_push_device_linker_args(const struct ol_group *g, const struct ol_link_context *ctx,
				      struct strvec *argv, const char *prefix);
/* Write the group's images to temp files (with_bitcode: bitcode too, else
 * only the others), named with image_ext (NULL: "o"), appending their
 * paths.  Returns 0 or -1 (reported). */
int ol_group_write_images(struct ol_group *g, int with_bitcode,
			  const char *(*image_ext)(const struct ol_device_image *img),
			  struct strvec *files);
/* The group's object images as one archive between the settings'
 * whole-archive flags, appended to `files`.  Returns 0 or -1 (reported). */
int ol_group_pack_images(struct ol_group *g, const struct ol_link_context *ctx,
			 const struct ol_lto_settings *lto, struct strvec *files);
/* The host line's libraries for a CPU device image: --sysroot, -L, archives
 * and shared objects, -l and the flags between them, in order; with wl,
 * linker flags as "-Wl,..." for a compiler driver. */
void ol_group_push_host_libraries(const struct ol_link_context *ctx, struct strvec *argv, int wl);
/* Finish a device linker command begun in argv (program and its own flags)
 * with "-o out", the files and the --device-linker values, run it and
 * release argv.  Returns 0 or -1 (reported). */
int ol_group_run_linker(const struct ol_group *g, const struct ol_link_context *ctx,
			struct strvec *argv, const char *out, const struct strvec *files);
/* Read a linked image back into g->linked (empty under --dry-run). */
int ol_group_read_result(struct ol_group *g, const char *path);

/* clang-sycl-linker writes each device image's code to "<stem>_<N>.spv"
 * ("<stem>_<N>.out" after an AOT compiler), stem being its output `out` up
 * to the last '.', and leaves them there: make them temp files of ours
 * (kept under --save-temps, as upstream leaves them). */
void ol_adopt_sycl_linker_files(const struct ol_link_context *ctx, const char *out);

/* clang_link.c. */
/* Run clang on `files` to make the image `out`, in upstream 22's command
 * shape for the family; clang_does_lto: the files are the images as given
 * (clang does the LTO and gets the --device-compiler arguments), else they
 * are already compiled objects. */
int ol_group_link_with_clang(struct ol_group *g, const struct ol_link_context *ctx,
			     const struct strvec *files, const char *out, int clang_does_lto);
/* The whole device link of a group through clang; `reason` is the option
 * that needs it, noted under -v (NULL: the family's own choice, no note). */
int ol_group_link_through_clang(struct ol_group *g, const struct ol_link_context *ctx,
				const char *reason);

#endif
