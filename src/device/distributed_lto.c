/*
 * distributed_lto: the partitions a link must build, handed to a
 * distributor as jobs (--device-lto-distributor, docs/design/distributed-lto.md).
 *
 * The interface is lld's for distributed ThinLTO (DTLTO): a JSON file
 *
 *   {"common": {"linker_output": "<-o>", "args": [...], "inputs": [...]},
 *    "jobs": [{"args": [...], "inputs": [...], "outputs": [...]}, ...]}
 *
 * whose job i runs the command common.args + jobs[i].args, given to the
 * distributor program as its last argument; the distributor runs every job
 * somewhere and returns when the outputs are in place.  A job is
 * "offload-link device-lto-job" (lto_job.c) on one partition's bitcode and
 * the group's settings file, which every job reads and so lists.  The
 * files live beside the link's output, as lld's do: on a cluster that is
 * the build tree, which the machines share.
 *
 * What comes back is checked (present, the right kind of file) before the
 * link uses it or the cache keeps it.  A failed distributor or a bad output
 * fails the link, naming the job; with --device-lto-distributor-fallback
 * the link builds those partitions itself, with a warning.
 */
#include "target_impl.h"
#include "offload/arena.h"
#include "offload/bitcode_header.h"
#include "offload/diag.h"
#include "offload/elf_object.h"
#include "offload/lto_job.h"
#include "offload/mapped_file.h"
#include "offload/programs.h"
#include "offload/spawn.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"
#include "offload/timer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a job makes, by the family's table row. */
static enum ol_lto_job_product job_product(const struct ol_lto_settings *lto)
{
	if (lto->merge_before_codegen)
		return lto->codegen_partitions ? OL_JOB_BITCODE_AND_OBJECT : OL_JOB_BITCODE;
	return lto->assemble ? OL_JOB_ASSEMBLED : OL_JOB_OBJECT;
}

/* The directory of the link's output ("." for a bare name), where lld puts
 * its DTLTO files too. */
static char *job_directory(const struct ol_link_context *ctx)
{
	const char *out = ctx->cl->output ? ctx->cl->output : "a.out";
	const char *slash = strrchr(out, '/');

	if (!slash)
		return ol_xstrdup(".");
	return slash == out ? ol_xstrdup("/") : ol_xstrndup(out, (size_t)(slash - out));
}

/* The offload-link the jobs run: the option's, else this program (the
 * name commands answer to, whatever name the link runs under). */
static char *remote_compiler(const struct ol_link_context *ctx)
{
	if (ctx->cl->remote_compiler && *ctx->cl->remote_compiler)
		return ol_xstrdup(ctx->cl->remote_compiler);
	return ol_xasprintf("%s/offload-link", ol_self_dir());
}

/* The group's settings, as the in-process build would use them. */
static int fill_settings(const struct ol_group *g, const struct ol_link_context *ctx,
			 const struct ol_lto_settings *lto, const struct ol_lto_request *req,
			 struct ol_lto_job *job)
{
	const struct ol_backend *be = ol_backend_get();

	if (!be)
		return -1;
	job->offload_link_version = OL_VERSION;
	job->llvm_version = be->llvm_version;
	job->triple = req->triple;
	job->arch = g->arch;
	job->cpu = req->cpu;
	job->features = req->features;
	job->opt_level = req->opt_level;
	job->debug = req->debug;
	job->verbose = ctx->cl->verbose;
	job->product = job_product(lto);
	job->remarks = req->remarks;
	/* The LLVM options as the link hands them to its backend (main.c). */
	strvec_push_all(&job->llvm_args, &ctx->cl->mllvm);
	strvec_push_all(&job->llvm_args, &ctx->cl->offload_opt);
	for (size_t i = 0; i < req->nbuiltins; i++)
		strvec_push(&job->builtins, req->builtin_names[i]);
	if (job->product == OL_JOB_ASSEMBLED) {
		struct ol_assemble_spec spec;
		char *program = lto->assembler ? lto->assembler(g, ctx, &spec) : NULL;

		if (!program)
			return -1;
		job->assembler = ol_arena_strdup(&ol_link_arena, program);
		free(program);
		strvec_push_all(&job->assembler_args, spec.extra);
	}
	return 0;
}

/* The group's files: "<dir>/<prefix>.<pid>.<what>". */
static char *group_file(const char *dir, const char *prefix, const char *what)
{
	const char *slash = strrchr(prefix, '/'), *base = slash ? slash + 1 : prefix;
	size_t len = strlen(base);

	/* "a.out.x86_64-unknown-linux-gnu." for a group without an arch. */
	while (len && base[len - 1] == '.')
		len--;
	return ol_xasprintf("%s/%.*s.%ld.%s", dir, (int)len, base, (long)getpid(), what);
}

/* Each partition's files: "<dir>/<prefix>.<pid>.part<p>.<what>", in the
 * link arena (the jobs name them until the link ends). */
static const char *job_file(const char *dir, const char *prefix, size_t p, const char *what)
{
	char *part = ol_xasprintf("part%zu.%s", p, what);
	char *path = group_file(dir, prefix, part);
	const char *kept = ol_arena_strdup(&ol_link_arena, path);

	free(part);
	free(path);
	return kept;
}

/* A file the jobs read, removed at exit (one a killed link of the same
 * process number left is replaced). */
static int write_job_input(const char *path, const void *data, size_t size)
{
	if (ol_write_file_atomic(path, data, size) < 0)
		return -1;
	ol_temp_register(path);
	return 0;
}

/* A file a job writes: removed at exit, whoever wrote it, and now, so that
 * one a killed link of the same process number left is not taken for it. */
static void expect_output(const char *path)
{
	unlink(path);
	ol_temp_register(path);
}

static void add_json_array(struct strbuf *json, const char *const *v, size_t n)
{
	strbuf_addch(json, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(json, ", ");
		strbuf_add_json_string(json, v[i]);
	}
	strbuf_addch(json, ']');
}

/* The DTLTO job file: common args and inputs, then one entry a job. */
static char *job_file_json(const struct ol_link_context *ctx, const struct strvec *common,
			   const struct ol_lto_job *settings, const char *settings_path,
			   const struct ol_lto_job *jobs, size_t n)
{
	struct strbuf json = STRBUF_INIT;

	strbuf_addstr(&json, "{\n  \"common\": {\n    \"linker_output\": ");
	strbuf_add_json_string(&json, ctx->cl->output ? ctx->cl->output : "a.out");
	strbuf_addstr(&json, ",\n    \"args\": ");
	add_json_array(&json, (const char *const *)common->v, common->nr);
	strbuf_addstr(&json, ",\n    \"inputs\": ");
	add_json_array(&json, (const char *const *)settings->builtins.v, settings->builtins.nr);
	strbuf_addstr(&json, "\n  },\n  \"jobs\": [");
	for (size_t i = 0; i < n; i++) {
		struct strvec args = STRVEC_INIT;
		const char *inputs[2] = { jobs[i].input, settings_path };
		const char *outputs[2 * OL_LTO_JOB_MAX_OUTPUTS];
		size_t k = 0;

		ol_lto_job_push_args(&jobs[i], &args);
		for (size_t o = 0; o < jobs[i].noutputs; o++)
			outputs[k++] = jobs[i].outputs[o];
		for (size_t o = 0; o < jobs[i].nremark_outputs; o++)
			outputs[k++] = jobs[i].remark_outputs[o];
		strbuf_addstr(&json, i ? ",\n    {\"args\": " : "\n    {\"args\": ");
		add_json_array(&json, (const char *const *)args.v, args.nr);
		strbuf_addstr(&json, ", \"inputs\": ");
		add_json_array(&json, inputs, 2);
		strbuf_addstr(&json, ", \"outputs\": ");
		add_json_array(&json, outputs, k);
		strbuf_addch(&json, '}');
		strvec_release(&args);
	}
	strbuf_addstr(&json, "\n  ]\n}\n");
	return strbuf_detach(&json);
}

/* Whether an output is the kind of file its job makes: NULL, or what it is
 * instead. */
static const char *check_output(const struct ol_lto_settings *lto, enum ol_lto_job_product product,
				size_t which, const struct ol_buffer *b)
{
	const char *why = NULL;
	int bitcode = which == 0 && (product == OL_JOB_BITCODE ||
				     product == OL_JOB_BITCODE_AND_OBJECT);

	if (bitcode)
		return ol_bitcode_magic(b->data, b->size) ? NULL : "not LLVM bitcode";
	return ol_elf_object_check(b->data, b->size, lto->object_machine, &why) == 0 ? NULL : why;
}

/* Reads one job's outputs into its slot.  Returns 0, or -1 with *why (a
 * malloc'd sentence naming the file) when one is missing or wrong. */
static int collect(const struct ol_lto_settings *lto, const struct ol_lto_job *job,
		   struct ol_partition_job *slot, char **why)
{
	struct ol_buffer *products[OL_LTO_JOB_MAX_OUTPUTS] = { &slot->product, &slot->object };
	struct ol_buffer *remarks[OL_LTO_JOB_MAX_OUTPUTS] = { &slot->remarks,
							       &slot->object_remarks };

	for (size_t o = 0; o < job->noutputs; o++) {
		const char *wrong;

		if (ol_read_whole_file(job->outputs[o], &products[o]->data, &products[o]->size) < 0) {
			*why = ol_xasprintf("'%s' %s", job->outputs[o],
					    errno == ENOENT ? "is missing" : strerror(errno));
			return -1;
		}
		if ((wrong = check_output(lto, job->product, o, products[o]))) {
			*why = ol_xasprintf("'%s' is %s", job->outputs[o], wrong);
			return -1;
		}
	}
	for (size_t o = 0; o < job->nremark_outputs; o++)
		if (ol_read_whole_file(job->remark_outputs[o], &remarks[o]->data,
				       &remarks[o]->size) < 0) {
			*why = ol_xasprintf("'%s' %s", job->remark_outputs[o],
					    errno == ENOENT ? "is missing" : strerror(errno));
			return -1;
		}
	return 0;
}

static void release_slot(struct ol_partition_job *slot)
{
	free(slot->product.data);
	free(slot->object.data);
	free(slot->remarks.data);
	free(slot->object_remarks.data);
	memset(&slot->product, 0, sizeof(slot->product));
	memset(&slot->object, 0, sizeof(slot->object));
	memset(&slot->remarks, 0, sizeof(slot->remarks));
	memset(&slot->object_remarks, 0, sizeof(slot->object_remarks));
}

/* Each job's files, named and the input written.  Returns 0 or -1. */
static int prepare_jobs(const char *dir, const char *prefix, const struct ol_lto_job *settings,
			struct ol_partition_job *slots, size_t n, struct ol_lto_job *jobs)
{
	static const char *const product_ext[] = { "", "o", "cubin", "opt.bc", "opt.bc" };
	size_t products = ol_lto_job_product_count(settings->product);
	int remarks = ol_remarks_wanted(&settings->remarks);

	for (size_t i = 0; i < n; i++) {
		size_t p = slots[i].partition;
		struct ol_lto_job *job = &jobs[i];

		job->input = job_file(dir, prefix, p, "bc");
		if (write_job_input(job->input, slots[i].bitcode->data, slots[i].bitcode->size))
			return -1;
		for (size_t o = 0; o < products; o++) {
			job->outputs[o] = job_file(dir, prefix, p, o ? "o" : product_ext[settings->product]);
			expect_output(job->outputs[o]);
			job->noutputs++;
			if (!remarks)
				continue;
			job->remark_outputs[o] = job_file(dir, prefix, p, o ? "o.remarks" : "remarks");
			expect_output(job->remark_outputs[o]);
			job->nremark_outputs++;
		}
	}
	return 0;
}

/* Runs the distributor on the job file: its exit status, or -1 when it
 * could not run (reported). */
static int run_distributor(const struct ol_link_context *ctx, const char *json_path)
{
	struct strvec argv = STRVEC_INIT;
	int status;

	strvec_push(&argv, ctx->cl->distributor);
	strvec_push_all(&argv, &ctx->cl->distributor_args);
	strvec_push(&argv, json_path);
	status = ol_spawn_wait(&argv);
	strvec_release(&argv);
	return status;
}

int ol_distribute_partitions(const struct ol_group *g, const struct ol_link_context *ctx,
			     const struct ol_lto_settings *lto, const struct ol_lto_request *req,
			     const char *prefix, struct ol_partition_job *slots, size_t n)
{
	struct ol_lto_job settings, *jobs = ol_xcalloc(n ? n : 1, sizeof(*jobs));
	struct strvec common = STRVEC_INIT, failures = STRVEC_INIT;
	char *dir = job_directory(ctx), *settings_path = NULL, *json_path = NULL, *json = NULL;
	char *compiler = NULL, image[160];
	int status = -1, rc = -1;

	ol_group_image_name(g, image, sizeof(image));
	memset(&settings, 0, sizeof(settings));
	if (fill_settings(g, ctx, lto, req, &settings) < 0)
		goto out;
	settings_path = group_file(dir, prefix, "settings");
	ol_temp_register(settings_path);
	if (ol_lto_job_write_settings(&settings, settings_path) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		jobs[i] = settings;
		jobs[i].noutputs = jobs[i].nremark_outputs = 0;
	}
	if (prepare_jobs(dir, prefix, &settings, slots, n, jobs) < 0)
		goto out;
	compiler = remote_compiler(ctx);
	strvec_push(&common, compiler);
	strvec_push(&common, "device-lto-job");
	strvec_pushf(&common, "--settings=%s", settings_path);
	json = job_file_json(ctx, &common, &settings, settings_path, jobs, n);
	json_path = group_file(dir, prefix, "jobs.json");
	if (write_job_input(json_path, json, strlen(json)) < 0)
		goto out;

	ol_spawn_note("partitioned LTO for %s: %zu partition%s to the distributor '%s' (%s)",
		      image, n, n == 1 ? "" : "s", ctx->cl->distributor, json_path);
	ol_timer_begin_detail("Distributed partitions", prefix);
	status = run_distributor(ctx, json_path);
	ol_timer_end();

	for (size_t i = 0; i < n; i++) {
		char *why = NULL;

		if (collect(lto, &jobs[i], &slots[i], &why) == 0) {
			slots[i].done = 1;
			continue;
		}
		release_slot(&slots[i]);
		strvec_pushf(&failures, "partition %zu: %s", slots[i].partition, why);
		free(why);
	}
	if (status == 0 && !failures.nr) {
		rc = 0;
		goto out;
	}
	{
		struct strbuf what = STRBUF_INIT;

		if (status != 0)
			strbuf_addf(&what, "the distributor '%s' %s", ctx->cl->distributor,
				    status < 0 ? "did not run" : "failed");
		if (status > 0)
			strbuf_addf(&what, " (exit status %d)", status);
		for (size_t i = 0; i < failures.nr; i++)
			strbuf_addf(&what, "%s%s", what.len ? "; " : "", failures.v[i]);
		if (ctx->cl->distributor_fallback) {
			ol_warn("partitioned LTO for %s: %s; %zu of %zu partition%s built here "
				"(--device-lto-distributor-fallback)", image, strbuf_str(&what),
				failures.nr, n, n == 1 ? "" : "s");
			rc = 0;
		} else {
			ol_error("partitioned LTO for %s: %s (job file '%s'; "
				 "--device-lto-distributor-fallback builds what is missing here)",
				 image, strbuf_str(&what), json_path);
		}
		strbuf_release(&what);
	}
out:
	strvec_release(&common);
	strvec_release(&failures);
	strvec_release(&settings.llvm_args);
	strvec_release(&settings.builtins);
	strvec_release(&settings.assembler_args);
	free(jobs);
	free(dir);
	free(settings_path);
	free(json_path);
	free(json);
	free(compiler);
	return rc;
}
