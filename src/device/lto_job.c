/*
 * lto_job: a partition's job, written by one machine and run on another
 * (include/offload/lto_job.h, docs/design/distributed-lto.md).  The run is
 * partition_products.c's build of one partition, step for step: the same
 * request to the same backend, the same assembler spec, so that its
 * outputs are the bytes an in-process build makes.  Its command line is
 * lto_job_args.c's.
 */
#include "offload/lto_job.h"
#include "offload/arena.h"
#include "offload/device_link.h"
#include "offload/diag.h"
#include "offload/mapped_file.h"
#include "offload/programs.h"
#include "offload/spawn.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The backend of the link's LLVM release, with the link's LLVM options. */
static const struct ol_backend *load_backend(const struct ol_lto_job *job)
{
	/* The loader keeps the pointer: the link arena lives until exit. */
	const char **argv = ol_arena_alloc(&ol_link_arena, (job->llvm_args.nr + 2) * sizeof(*argv));
	const struct ol_backend *be;

	argv[0] = "offload-link";
	for (size_t i = 0; i < job->llvm_args.nr; i++)
		argv[i + 1] = job->llvm_args.v[i];
	ol_backend_set_llvm_args((int)job->llvm_args.nr + 1, argv);
	ol_backend_prefer(atoi(job->llvm_version));
	be = ol_backend_get();
	if (be && strcmp(be->llvm_version, job->llvm_version) != 0) {
		ol_error("the job was written by a link with LLVM %s; this machine's offload-link "
			 "runs LLVM %s (a partition's code depends on the release: install the same "
			 "one)", job->llvm_version, be->llvm_version);
		return NULL;
	}
	return be;
}

/* The assembler: the linking side's path, else its name on PATH. */
static char *find_assembler(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *found;

	if (access(path, X_OK) == 0)
		return ol_xstrdup(path);
	found = ol_find_program(slash ? slash + 1 : path, NULL);
	if (!found)
		ol_error("cannot find the assembler '%s', nor '%s' on PATH", path,
			 slash ? slash + 1 : path);
	return found;
}

/* OL_JOB_ASSEMBLED: the assembly in a temp file, assembled into `out`
 * through a temp file beside it. */
static int assemble(const struct ol_lto_job *job, const struct ol_buffer *assembly,
		    const char *out)
{
	const struct ol_target *target = ol_target_for(job->triple);
	struct ol_assemble_spec spec = {
		job->triple, job->arch ? job->arch : "", job->opt_level, job->debug, job->verbose,
		&job->assembler_args,
	};
	const char *in, *tmp;
	char *program;
	int rc;

	if (!target || !target->assemble_file)
		return ol_error("'%s' code is not assembled (--product=assembled)", job->triple);
	if (!(program = find_assembler(job->assembler)))
		return -1;
	in = ol_temp_write("device-lto-job", "s", assembly->data, assembly->size);
	tmp = in ? ol_temp_create_beside(out, NULL) : NULL;
	rc = tmp ? target->assemble_file(&spec, program, in, tmp) : -1;
	if (rc == 0)
		rc = ol_temp_commit(tmp, out);
	free(program);
	return rc;
}

static int write_output(const char *path, const struct ol_buffer *b)
{
	return ol_write_file_atomic(path, b->data ? b->data : (const uint8_t *)"", b->size);
}

int ol_lto_job_run(const struct ol_lto_job *job)
{
	const struct ol_backend *be = load_backend(job);
	const uint8_t *module;
	uint8_t *input = NULL, **builtins = NULL;
	size_t size, *builtin_sizes = NULL;
	struct ol_lto_request req;
	struct ol_buffer out = { NULL, 0 }, object = { NULL, 0 };
	struct ol_buffer remarks = { NULL, 0 }, object_remarks = { NULL, 0 };
	char *err = NULL;
	int rc = -1;

	if (!be)
		return -1;
	/* -v of the link: the assembler's command line, as the link shows it. */
	ol_spawn_configure(0, job->verbose);
	if (strcmp(job->offload_link_version, OL_VERSION) != 0)
		return ol_error("the job was written by offload-link %s; this is %s (install the "
				"same release on every machine that runs jobs)",
				job->offload_link_version, OL_VERSION);
	if (ol_read_whole_file(job->input, &input, &size) < 0)
		return ol_error("cannot read the partition '%s': %s", job->input, strerror(errno));
	builtins = ol_xcalloc(job->builtins.nr + 1, sizeof(*builtins));
	builtin_sizes = ol_xcalloc(job->builtins.nr + 1, sizeof(*builtin_sizes));
	for (size_t i = 0; i < job->builtins.nr; i++)
		if (ol_read_whole_file(job->builtins.v[i], &builtins[i], &builtin_sizes[i]) < 0) {
			ol_error("cannot read the builtin bitcode '%s': %s", job->builtins.v[i],
				 strerror(errno));
			goto out;
		}

	/* partition_products.c's build_partition: the same request. */
	module = input;
	memset(&req, 0, sizeof(req));
	req.triple = job->triple;
	req.cpu = job->cpu ? job->cpu : "";
	req.features = job->features ? job->features : "";
	req.opt_level = job->opt_level;
	req.debug = job->debug;
	req.modules = &module;
	req.sizes = &size;
	req.nmodules = 1;
	req.mode = OL_LTO_PARTITION;
	req.emit_bitcode = job->product == OL_JOB_BITCODE ||
			   job->product == OL_JOB_BITCODE_AND_OBJECT;
	req.emit_assembly = job->product == OL_JOB_ASSEMBLED;
	req.remarks = job->remarks;
	req.builtins = (const uint8_t *const *)builtins;
	req.builtin_sizes = builtin_sizes;
	req.builtin_names = (const char *const *)job->builtins.v;
	req.nbuiltins = job->builtins.nr;
	rc = be->lto(&req, &out, &remarks, &err);
	if (rc != 0) {
		ol_error("device LTO of the partition '%s' failed: %s", job->input,
			 err ? err : "unknown error");
		rc = -1;
		goto out;
	}
	if (job->product == OL_JOB_BITCODE_AND_OBJECT) {
		/* codegen_product: that module compiled alone. */
		module = out.data;
		size = out.size;
		req.mode = OL_LTO_CODEGEN_ONLY;
		req.emit_bitcode = 0;
		if (be->lto(&req, &object, &object_remarks, &err) != 0) {
			ol_error("code generation of the partition '%s' failed: %s", job->input,
				 err ? err : "unknown error");
			goto out;
		}
	}
	rc = job->product == OL_JOB_ASSEMBLED ? assemble(job, &out, job->outputs[0])
					      : write_output(job->outputs[0], &out);
	if (rc == 0 && job->noutputs > 1)
		rc = write_output(job->outputs[1], &object);
	if (rc == 0 && job->nremark_outputs)
		rc = write_output(job->remark_outputs[0], &remarks);
	if (rc == 0 && job->nremark_outputs > 1)
		rc = write_output(job->remark_outputs[1], &object_remarks);
out:
	free(err);
	free(input);
	for (size_t i = 0; i < job->builtins.nr; i++)
		free(builtins[i]);
	free(builtins);
	free(builtin_sizes);
	free(out.data);
	free(object.data);
	free(remarks.data);
	free(object_remarks.data);
	return rc ? -1 : 0;
}

/* "offload-link device-lto-job ...": exit 0, 1 or 2. */
int ol_lto_job_command(int argc, char **argv)
{
	struct ol_lto_job job;
	int rc = ol_lto_job_parse(argc, argv, &job);

	if (rc == 0)
		rc = ol_lto_job_run(&job) == 0 ? 0 : 1;
	else
		rc = rc == 1 ? 0 : rc < 0 ? 1 : rc;
	strvec_release(&job.llvm_args);
	strvec_release(&job.builtins);
	strvec_release(&job.assembler_args);
	return rc;
}
