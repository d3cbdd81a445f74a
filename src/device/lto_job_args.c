/*
 * lto_job_args: a partition job's command line and settings file, written
 * by the linking side (distributed_lto.c) and read by the job (lto_job.c)
 * through this one table, so that the two cannot drift
 * (include/offload/lto_job.h).
 */
#include "offload/lto_job.h"
#include "offload/arena.h"
#include "offload/command_line.h"
#include "offload/diag.h"
#include "offload/mapped_file.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	enum ol_lto_job_product product;
	const char *name;
	size_t outputs;
} products[] = {
	{ OL_JOB_OBJECT, "object", 1 },
	{ OL_JOB_ASSEMBLED, "assembled", 1 },
	{ OL_JOB_BITCODE, "bitcode", 1 },
	{ OL_JOB_BITCODE_AND_OBJECT, "bitcode+object", 2 },
};

size_t ol_lto_job_product_count(enum ol_lto_job_product product)
{
	for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++)
		if (products[i].product == product)
			return products[i].outputs;
	return 0;
}

static const char *product_name(enum ol_lto_job_product product)
{
	for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++)
		if (products[i].product == product)
			return products[i].name;
	return "?";
}

enum {
	OPT_SETTINGS = 1, OPT_OUTPUT, OPT_REMARKS_OUTPUT,
	/* The settings file's. */
	OPT_OFFLOAD_LINK_VERSION, OPT_LLVM_VERSION, OPT_TRIPLE, OPT_ARCH, OPT_CPU, OPT_FEATURES,
	OPT_OPT_LEVEL, OPT_DEBUG, OPT_VERBOSE, OPT_PRODUCT, OPT_PASS_REMARKS,
	OPT_PASS_REMARKS_MISSED, OPT_PASS_REMARKS_ANALYSIS, OPT_REMARKS_ALL, OPT_LLVM_ARG,
	OPT_BUILTIN, OPT_ASSEMBLER, OPT_ASSEMBLER_ARG,
};

static const struct ol_command_option job_options[] = {
	{ OPT_SETTINGS, "settings", "<file>", "The group's settings, one argument a line", 0 },
	{ OPT_OUTPUT, "o", "<file>", "A product (two for --product=bitcode+object)", 0 },
	{ OPT_REMARKS_OUTPUT, "remarks-output", "<file>",
	  "Each product's optimization remarks, in the order of -o", 0 },
	{ OPT_OFFLOAD_LINK_VERSION, "offload-link-version", "<version>",
	  "The release that wrote the job; another one refuses it", 0 },
	{ OPT_LLVM_VERSION, "llvm-version", "<version>",
	  "The LLVM release of the link's backend; the job loads the same one", 0 },
	{ OPT_TRIPLE, "triple", "<triple>", "The device triple", 0 },
	{ OPT_ARCH, "arch", "<arch>", "The device architecture", 0 },
	{ OPT_CPU, "cpu", "<cpu>", "The processor the code is generated for", 0 },
	{ OPT_FEATURES, "features", "<+a,-b>", "Target features", 0 },
	{ OPT_OPT_LEVEL, "opt-level", "<0..3>", "The optimization level", 0 },
	{ OPT_DEBUG, "debug", NULL, "The inputs carry debug information", 0 },
	{ OPT_VERBOSE, "verbose", NULL, "Show the assembler's command and its -v", 0 },
	{ OPT_PRODUCT, "product", "object|assembled|bitcode|bitcode+object",
	  "What the job makes of its partition", 0 },
	{ OPT_PASS_REMARKS, "pass-remarks", "<regex>", "Remarks of the passes it matches", 0 },
	{ OPT_PASS_REMARKS_MISSED, "pass-remarks-missed", "<regex>", "Missed remarks", 0 },
	{ OPT_PASS_REMARKS_ANALYSIS, "pass-remarks-analysis", "<regex>", "Analysis remarks", 0 },
	{ OPT_REMARKS_ALL, "remarks-all", NULL, "Every remark (for --remarks-file)", 0 },
	{ OPT_LLVM_ARG, "llvm-arg", "<option>", "An LLVM option (-mllvm, --offload-opt)", 0 },
	{ OPT_BUILTIN, "builtin-bitcode", "<file>", "A builtin bitcode library to link", 0 },
	{ OPT_ASSEMBLER, "assembler", "<path>",
	  "The assembler (--product=assembled); its name is looked up on PATH where the "
	  "path is not there", 0 },
	{ OPT_ASSEMBLER_ARG, "assembler-arg", "<arg>", "An option for the assembler", 0 },
	{ 0, NULL, NULL, NULL, 0 },
};

static const char *const job_synopsis[] = {
	"--settings=<file> -o <file> [-o <file>] [--remarks-output=<file>]... <partition.bc>",
	NULL,
};

static const struct ol_command_line job_command_line = {
	"device-lto-job", job_synopsis,
	"Optimizes and compiles one partition of a partitioned device LTO, as the link\n"
	"that wrote the job would have in process: a job of a distributor\n"
	"(--device-lto-distributor).  It reads the partition's bitcode, the settings\n"
	"file and the builtin bitcode files the settings name, and nothing else; it\n"
	"needs the same offload-link and LLVM release as the link, and for NVPTX\n"
	"ptxas.  Exit status: 0, 1 on failure, 2 on a usage error.",
	"the partition jobs of offload-link's own partitioned device LTO",
	job_options, 0,
};

static int take_job_option(void *ctx, int id, const char *value)
{
	struct ol_lto_job *job = ctx;

	switch (id) {
	case OL_COMMAND_INPUT:
		if (job->input)
			return ol_command_usage("device-lto-job", "one partition a job, not '%s' "
						"and '%s'", job->input, value);
		job->input = value;
		break;
	case OPT_SETTINGS:
		break;  /* read first, by take_settings_path */
	case OPT_OUTPUT:
		if (job->noutputs == OL_LTO_JOB_MAX_OUTPUTS)
			return ol_command_usage("device-lto-job", "at most %d outputs (-o)",
						OL_LTO_JOB_MAX_OUTPUTS);
		job->outputs[job->noutputs++] = value;
		break;
	case OPT_REMARKS_OUTPUT:
		if (job->nremark_outputs == OL_LTO_JOB_MAX_OUTPUTS)
			return ol_command_usage("device-lto-job", "at most %d remark outputs",
						OL_LTO_JOB_MAX_OUTPUTS);
		job->remark_outputs[job->nremark_outputs++] = value;
		break;
	case OPT_OFFLOAD_LINK_VERSION:
		job->offload_link_version = value;
		break;
	case OPT_LLVM_VERSION:
		job->llvm_version = value;
		break;
	case OPT_TRIPLE:
		job->triple = value;
		break;
	case OPT_ARCH:
		job->arch = value;
		break;
	case OPT_CPU:
		job->cpu = value;
		break;
	case OPT_FEATURES:
		job->features = value;
		break;
	case OPT_OPT_LEVEL:
		if (value[0] < '0' || value[0] > '3' || value[1])
			return ol_command_usage("device-lto-job", "--opt-level: 0 to 3, not '%s'",
						value);
		job->opt_level = value[0] - '0';
		break;
	case OPT_DEBUG:
		job->debug = 1;
		break;
	case OPT_VERBOSE:
		job->verbose = 1;
		break;
	case OPT_PRODUCT:
		job->product = 0;
		for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++)
			if (strcmp(value, products[i].name) == 0)
				job->product = products[i].product;
		if (!job->product)
			return ol_command_usage("device-lto-job", "unknown product '%s'", value);
		break;
	case OPT_PASS_REMARKS:
		job->remarks.passed = value;
		break;
	case OPT_PASS_REMARKS_MISSED:
		job->remarks.missed = value;
		break;
	case OPT_PASS_REMARKS_ANALYSIS:
		job->remarks.analysis = value;
		break;
	case OPT_REMARKS_ALL:
		job->remarks.all = 1;
		break;
	case OPT_LLVM_ARG:
		strvec_push(&job->llvm_args, value);
		break;
	case OPT_BUILTIN:
		strvec_push(&job->builtins, value);
		break;
	case OPT_ASSEMBLER:
		job->assembler = value;
		break;
	case OPT_ASSEMBLER_ARG:
		strvec_push(&job->assembler_args, value);
		break;
	}
	return 0;
}

/* ---- the settings file ---------------------------------------------------------- */

static void push_opt(struct strvec *v, const char *name, const char *value)
{
	if (value)
		strvec_pushf(v, "--%s=%s", name, value);
}

static void settings_args(const struct ol_lto_job *job, struct strvec *v)
{
	push_opt(v, "offload-link-version", job->offload_link_version);
	push_opt(v, "llvm-version", job->llvm_version);
	push_opt(v, "triple", job->triple);
	push_opt(v, "arch", job->arch);
	push_opt(v, "cpu", job->cpu);
	push_opt(v, "features", job->features);
	strvec_pushf(v, "--opt-level=%d", job->opt_level);
	if (job->debug)
		strvec_push(v, "--debug");
	if (job->verbose)
		strvec_push(v, "--verbose");
	push_opt(v, "product", product_name(job->product));
	push_opt(v, "pass-remarks", job->remarks.passed);
	push_opt(v, "pass-remarks-missed", job->remarks.missed);
	push_opt(v, "pass-remarks-analysis", job->remarks.analysis);
	if (job->remarks.all)
		strvec_push(v, "--remarks-all");
	for (size_t i = 0; i < job->llvm_args.nr; i++)
		push_opt(v, "llvm-arg", job->llvm_args.v[i]);
	for (size_t i = 0; i < job->builtins.nr; i++)
		push_opt(v, "builtin-bitcode", job->builtins.v[i]);
	push_opt(v, "assembler", job->assembler);
	for (size_t i = 0; i < job->assembler_args.nr; i++)
		push_opt(v, "assembler-arg", job->assembler_args.v[i]);
}

int ol_lto_job_write_settings(const struct ol_lto_job *job, const char *path)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf text = STRBUF_INIT;
	int rc = 0;

	settings_args(job, &v);
	for (size_t i = 0; i < v.nr; i++) {
		/* One argument a line: a value with a newline cannot be said. */
		if (strchr(v.v[i], '\n'))
			rc = ol_error("cannot write '%s' into a job's settings: it holds a newline",
				      v.v[i]);
		strbuf_addf(&text, "%s\n", v.v[i]);
	}
	if (rc == 0)
		rc = ol_write_file_atomic(path, text.buf, text.len);
	strbuf_release(&text);
	strvec_release(&v);
	return rc;
}

void ol_lto_job_push_args(const struct ol_lto_job *job, struct strvec *argv)
{
	for (size_t i = 0; i < job->noutputs; i++) {
		strvec_push(argv, "-o");
		strvec_push(argv, job->outputs[i]);
	}
	for (size_t i = 0; i < job->nremark_outputs; i++)
		strvec_pushf(argv, "--remarks-output=%s", job->remark_outputs[i]);
	strvec_push(argv, job->input);
}

/* The settings file's arguments, as an argv (argv[0] the command's name);
 * the strings live as long as the process. */
static int read_settings(const char *path, int *argc_out, char ***argv_out)
{
	uint8_t *data;
	size_t size, n = 1;
	char **argv, *text, *p;
	int argc = 1;

	if (ol_read_whole_file(path, &data, &size) < 0)
		return ol_error("cannot read the job settings '%s': %s", path, strerror(errno));
	/* In the link arena: the job's strings point into it until exit. */
	text = ol_arena_alloc(&ol_link_arena, size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	free(data);
	for (size_t i = 0; i < size; i++)
		n += text[i] == '\n';
	argv = ol_arena_alloc(&ol_link_arena, (n + 2) * sizeof(*argv));
	argv[0] = (char *)"device-lto-job";
	for (p = text; *p;) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		if (*p)
			argv[argc++] = p;
		if (!nl)
			break;
		p = nl + 1;
	}
	argv[argc] = NULL;
	*argc_out = argc;
	*argv_out = argv;
	return 0;
}

/* The first reading of the command line: only where the settings are, so
 * that they are read before the job's own arguments, which come after. */
static int take_settings_path(void *ctx, int id, const char *value)
{
	if (id == OPT_SETTINGS)
		*(const char **)ctx = value;
	return 0;
}

int ol_lto_job_parse(int argc, char **argv, struct ol_lto_job *job)
{
	const char *settings = NULL;
	int rc, sargc = 0;
	char **sargv = NULL;

	memset(job, 0, sizeof(*job));
	job->opt_level = 2;
	rc = ol_command_line_read(&job_command_line, argc, argv, take_settings_path, &settings);
	if (rc)
		return rc;
	if (settings) {
		if (read_settings(settings, &sargc, &sargv) < 0)
			return -1;
		rc = ol_command_line_read(&job_command_line, sargc, sargv, take_job_option, job);
		if (rc)
			return rc;
	}
	rc = ol_command_line_read(&job_command_line, argc, argv, take_job_option, job);
	if (rc)
		return rc;
	if (!settings)
		return ol_command_usage("device-lto-job", "no settings (--settings=<file>)");
	if (!job->triple || !job->llvm_version || !job->offload_link_version || !job->product)
		return ol_command_usage("device-lto-job", "the settings '%s' lack %s", settings,
					!job->triple		     ? "--triple"
					: !job->llvm_version	     ? "--llvm-version"
					: !job->offload_link_version ? "--offload-link-version"
								     : "--product");
	if (!job->input)
		return ol_command_usage("device-lto-job", "no partition bitcode");
	if (job->noutputs != ol_lto_job_product_count(job->product))
		return ol_command_usage("device-lto-job", "--product=%s writes %zu output%s, "
					"not %zu", product_name(job->product),
					ol_lto_job_product_count(job->product),
					ol_lto_job_product_count(job->product) == 1 ? "" : "s",
					job->noutputs);
	if (job->nremark_outputs && job->nremark_outputs != job->noutputs)
		return ol_command_usage("device-lto-job", "one --remarks-output for each -o");
	if (job->product == OL_JOB_ASSEMBLED && !job->assembler)
		return ol_command_usage("device-lto-job", "--product=assembled needs --assembler");
	return 0;
}
