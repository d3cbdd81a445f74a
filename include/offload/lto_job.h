/*
 * lto_job: one partition of a partitioned device LTO as a job of its own,
 * which any machine with the same offload-link and LLVM release can run
 * ("offload-link device-lto-job", docs/design/distributed-lto.md).  The job
 * reads its partition's bitcode, the builtin bitcode files its settings
 * name and nothing else of the linking machine; it writes what the linking
 * side would have made of that partition in process, byte for byte.
 *
 * The settings common to a group's jobs are a file of arguments, one a
 * line (--settings=<file>): the linking side writes it once
 * (ol_lto_job_write_settings), every job reads it (ol_lto_job_parse).  One
 * module renders and reads that format, so the two sides cannot drift.
 */
#ifndef OFFLOAD_LTO_JOB_H
#define OFFLOAD_LTO_JOB_H

#include "offload/backend.h"
#include "offload/strvec.h"

/* What a job makes of its partition. */
enum ol_lto_job_product {
	OL_JOB_OBJECT = 1,         /* optimized and compiled (the CPU target) */
	OL_JOB_ASSEMBLED,          /* compiled to assembly, assembled by the family's
				      assembler (NVPTX: PTX, ptxas) */
	OL_JOB_BITCODE,            /* optimized bitcode (AMDGPU, compiled together) */
	OL_JOB_BITCODE_AND_OBJECT, /* optimized bitcode, and its own object (AMDGPU,
				      code generation per partition) */
};

/* The most outputs a job writes: its products, then their remarks. */
#define OL_LTO_JOB_MAX_OUTPUTS 2

struct ol_lto_job {
	/* Settings (the group's, in the settings file). */
	const char *offload_link_version;  /* the linking side's OL_VERSION */
	const char *llvm_version;          /* its backend's release, exactly */
	const char *triple, *arch, *cpu, *features;
	int opt_level, debug, verbose;
	enum ol_lto_job_product product;
	struct ol_remark_request remarks;
	struct strvec llvm_args;           /* -mllvm and --offload-opt values, in order */
	struct strvec builtins;            /* --builtin-bitcode files */
	const char *assembler;             /* OL_JOB_ASSEMBLED: its path on the linking side */
	struct strvec assembler_args;      /* the user's assembler options */
	/* This job's own (its command line). */
	const char *input;                 /* the partition's bitcode */
	const char *outputs[OL_LTO_JOB_MAX_OUTPUTS];
	const char *remark_outputs[OL_LTO_JOB_MAX_OUTPUTS];
	size_t noutputs, nremark_outputs;
};

/* How many products a job of this kind writes (1 or 2). */
size_t ol_lto_job_product_count(enum ol_lto_job_product product);

/* Writes the settings of `job` to `path` (a registered temp file when the
 * caller says so).  Returns 0 or -1 (reported). */
int ol_lto_job_write_settings(const struct ol_lto_job *job, const char *path);
/* Appends this job's own arguments (outputs, remark outputs, input). */
void ol_lto_job_push_args(const struct ol_lto_job *job, struct strvec *argv);

/* "offload-link device-lto-job --settings=<file> -o <out>... <input>":
 * reads the settings and the job's arguments into *job (its strings point
 * into argv and into memory that lives as long as the process).  Returns 0,
 * 1 when --help or --version printed, 2 after a usage error, -1 when the
 * settings cannot be read (reported). */
int ol_lto_job_parse(int argc, char **argv, struct ol_lto_job *job);
/* Runs the job: its outputs are written, or none is.  Returns 0 or -1
 * (reported). */
int ol_lto_job_run(const struct ol_lto_job *job);

/* The command: argv[0] is "device-lto-job"; returns the exit status. */
int ol_lto_job_command(int argc, char **argv);

#endif
