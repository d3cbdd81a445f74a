/*
 * decode: the wrapper's own options, from the matched arguments into struct
 * ol_cmdline.  Options upstream reads with getLastArg are checked once, for
 * their last occurrence, with upstream's messages.
 */
#include "driver_internal.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/size_text.h"
#include "offload/programs.h"
#include "offload/spawn.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Digits only, as StringRef::getAsInteger(10, unsigned) wants them. */
static int parse_unsigned(const char *s, unsigned *out)
{
	unsigned long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > UINT_MAX)
			return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (!*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

int ol_decode_offload_abi(const struct ol_parsed *p, enum ol_flavor *flavor)
{
	const struct ol_arg *last = NULL;

	for (size_t i = 0; i < p->nr; i++)
		if (p->args[i].id == OPT_offload_abi)
			last = &p->args[i];
	*flavor = OL_FLAVOR_AUTO;
	if (!last || strcmp(last->value, "auto") == 0)
		return 0;
	if (strcmp(last->value, "16") == 0)
		*flavor = OL_FLAVOR_16;
	else if (strcmp(last->value, "19") == 0)
		*flavor = OL_FLAVOR_19;
	else if (strcmp(last->value, "22") == 0)
		*flavor = OL_FLAVOR_22;
	else
		return ol_error("%s: expected 16, 19, 22 or auto, got '%s'", last->raw, last->value);
	return 0;
}

/* Options whose last occurrence counts are checked once, after the loop,
 * like upstream's getLastArg: an earlier bad value is never looked at. */
struct last_seen {
	const struct ol_arg *opt_level, *compression_level, *jobs, *granularity, *device_lto;
	const struct ol_arg *device_link_memory;
	const struct ol_opt *jobs_rec;
};

/* Input modules in a partition when nothing, or --device-lto=partitioned
 * without a number, says how many: the default device LTO (docs/design/partitioned-lto.md).
 */
#define DEVICE_LTO_DEFAULT_UNITS 8

/* "full" (0), "partitioned" or "partitioned:N" (N >= 1) into *units. */
static int parse_device_lto(const char *v, unsigned *units)
{
	if (strcmp(v, "full") == 0) {
		*units = 0;
		return 0;
	}
	if (strncmp(v, "partitioned", 11) != 0)
		return -1;
	if (v[11] == '\0') {
		*units = DEVICE_LTO_DEFAULT_UNITS;
		return 0;
	}
	return v[11] == ':' && parse_unsigned(v + 12, units) == 0 && *units > 0 ? 0 : -1;
}

/* --device-link-memory=, else OFFLOAD_LINK_DEVICE_LINK_MEMORY, else the
 * machine's default (memory_budget.h). */
static int decode_memory_budget(struct ol_cmdline *cl, const struct ol_arg *arg)
{
	const char *env = getenv("OFFLOAD_LINK_DEVICE_LINK_MEMORY");
	const char *text = arg ? arg->value : env && *env ? env : NULL;

	if (!text)
		return 0;
	cl->device_link_memory_given = 1;
	if (ol_parse_size(text, &cl->device_link_memory) < 0)
		return ol_error("%s: expected a size (a number, maybe with k, M, G or T), got '%s'",
				arg ? arg->raw : "OFFLOAD_LINK_DEVICE_LINK_MEMORY", text);
	return 0;
}

static int check_last_values(struct ol_cmdline *cl, const struct last_seen *last)
{
	const char *device_lto;
	int failed = 0;
	unsigned u;

	if (last->opt_level) {
		const char *v = last->opt_level->value;

		if (v[0] == 'O' && v[1] >= '0' && v[1] <= '3' && !v[2])
			cl->opt_level = v[1] - '0';
		else
			failed |= ol_error("%s: invalid optimization level '%s', expected O0, O1, "
					   "O2 or O3", last->opt_level->raw, v);
	}
	if (last->compression_level &&
	    parse_int(last->compression_level->value, &cl->compression_level))
		failed |= ol_error("%s: expected an integer, got '%s'", last->compression_level->raw,
				   last->compression_level->value);
	if (last->jobs) {
		const char *v = last->jobs->value;
		int jobserver_ok = last->jobs_rec->versions & OL_V22;

		if (jobserver_ok && strcasecmp(v, "jobserver") == 0)
			cl->wrapper_jobserver = 1;
		else if (parse_unsigned(v, &u) == 0 && u > 0 && u <= INT_MAX)
			cl->wrapper_jobs = (int)u;
		else if (jobserver_ok)
			failed |= ol_error("%s: expected a positive integer or 'jobserver', got '%s'",
					   last->jobs->raw, v);
		else
			failed |= ol_error("%s: expected a positive integer, got '%s'",
					   last->jobs->raw, v);
	}
	if (last->granularity) {
		if (parse_unsigned(last->granularity->value, &u) == 0 && u <= INT_MAX)
			cl->time_trace_granularity = (int)u;
		else
			failed |= ol_error("%s: expected a non-negative integer, got '%s'",
					   last->granularity->raw, last->granularity->value);
	}
	/* The option, else the environment (whose empty value is none), else
	 * partitions of the default size, which no message attributes to an
	 * option (device_lto_origin stays NULL). */
	device_lto = last->device_lto ? last->device_lto->value : getenv("OFFLOAD_LINK_DEVICE_LTO");
	cl->device_lto_units = DEVICE_LTO_DEFAULT_UNITS;
	if (last->device_lto || (device_lto && *device_lto)) {
		if (parse_device_lto(device_lto, &u) == 0) {
			cl->device_lto_units = u;
			cl->device_lto_origin = u ? (last->device_lto ? last->device_lto->raw
								    : "OFFLOAD_LINK_DEVICE_LTO")
						  : NULL;
		} else
			failed |= ol_error("%s: expected 'full', 'partitioned' or 'partitioned:<modules "
					   "a partition>', got '%s'",
					   last->device_lto ? last->device_lto->raw : "OFFLOAD_LINK_DEVICE_LTO",
					   device_lto);
	}
	failed |= decode_memory_budget(cl, last->device_link_memory);
	return failed ? -1 : 0;
}

/* The distributor's variables, for build systems that cannot change the
 * link line: each where no option said otherwise.  An empty program is
 * none. */
static void distributor_from_environment(struct ol_cmdline *cl)
{
	const char *program = getenv("OFFLOAD_LINK_DEVICE_LTO_DISTRIBUTOR");
	const char *args = getenv("OFFLOAD_LINK_DEVICE_LTO_DISTRIBUTOR_ARGS");
	const char *fallback = getenv("OFFLOAD_LINK_DEVICE_LTO_DISTRIBUTOR_FALLBACK");

	if (!cl->distributor && program)
		cl->distributor = program;
	if (cl->distributor && !*cl->distributor)
		cl->distributor = NULL;
	if (!cl->distributor_args.nr && args) {
		for (const char *p = args; *p;) {
			size_t n = strcspn(p, " \t");

			if (n)
				strvec_push(&cl->distributor_args, ol_arena_strndup(&ol_link_arena, p, n));
			p += n;
			p += strspn(p, " \t");
		}
	}
	if (fallback && *fallback && strcmp(fallback, "0") != 0 && strcmp(fallback, "false") != 0)
		cl->distributor_fallback = 1;
}

/* Triple::isOSWindows(): the OS component is "windows" or "win32". */
static int triple_is_windows(const char *triple)
{
	return strstr(triple, "-windows") || strstr(triple, "-win32");
}

int ol_decode_wrapper_options(struct ol_cmdline *cl, const struct ol_parsed *p)
{
	struct last_seen last = { NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	const char *output = NULL, *coff_output = NULL;

	for (size_t i = 0; i < p->nr; i++) {
		const struct ol_arg *a = &p->args[i];
		const struct ol_opt *rec = p->recs[i];

		switch (a->id) {
		case OPT_linker_path:
			cl->linker_path = a->value;
			break;
		case OPT_host_triple:
			cl->host_triple = a->value;
			break;
		case OPT_o:
			output = a->value;
			break;
		case OPT_out:
			coff_output = a->value;
			break;
		case OPT_cuda_path:
			cl->cuda_path = a->value;
			break;
		case OPT_dry_run:
			cl->dry_run = 1;
			break;
		case OPT_wrapper_verbose:
			cl->verbose = 1;
			break;
		case OPT_quiet:
			cl->quiet = 1;
			break;
		case OPT_no_cache:
			cl->no_cache = 1;
			break;
		case OPT_cache_dir:
			cl->cache_dir = a->value;
			break;
		case OPT_cache_max_size:
			cl->cache_max_size = a->value;
			break;
		case OPT_remote_storage:
			cl->remote_storage = a->value;
			break;
		case OPT_save_temps:
			cl->save_temps = 1;
			break;
		case OPT_print_wrapped_module:
			cl->print_wrapped_module = 1;
			break;
		case OPT_relocatable:
			cl->relocatable = 1;
			break;
		case OPT_embed_bitcode:
			cl->embed_bitcode = 1;
			break;
		case OPT_device_debug:
			cl->device_debug = 1;
			break;
		case OPT_clang_backend:
			cl->clang_backend = 1;
			break;
		case OPT_compress:
			cl->compress = 1;
			break;
		case OPT_emit_fatbin_only:
			cl->emit_fatbin_only = 1;
			break;
		case OPT_whole_program:
			cl->whole_program = 1;
			break;
		case OPT_separator:
			cl->saw_separator = 1;
			break;
		case OPT_opt_level:
			last.opt_level = a;
			break;
		case OPT_compression_level:
			last.compression_level = a;
			break;
		case OPT_device_lto:
			last.device_lto = a;
			break;
		case OPT_wrapper_jobs:
			last.jobs = a;
			last.jobs_rec = rec;
			break;
		case OPT_wrapper_time_trace:
			cl->time_trace = a->value;
			break;
		case OPT_stats:
			cl->stats = 1;
			break;
		case OPT_stats_eq:
			cl->stats = strcmp(a->value, "json") == 0 ? 2 : 1;
			break;
		case OPT_wrapper_time_trace_granularity:
			last.granularity = a;
			break;
		case OPT_device_linker:
			strvec_push(&cl->device_linker, a->value);
			break;
		case OPT_device_compiler:
			strvec_push(&cl->device_compiler, a->value);
			break;
		case OPT_mllvm:
			strvec_push(&cl->mllvm, a->value);
			break;
		case OPT_offload_opt:
			/* 16/19 matched "--offload-opt=-" and give back the dash. */
			if (rec->id == OPT_offload_opt)
				strvec_push(&cl->offload_opt, a->value);
			else
				strvec_pushf(&cl->offload_opt, "-%s", a->value);
			break;
		case OPT_ptxas_arg:
			strvec_push(&cl->ptxas_args, a->value);
			break;
		case OPT_should_extract:
			strvec_push(&cl->should_extract, a->value);
			break;
		case OPT_bitcode_library:
			strvec_push(&cl->bitcode_library, a->value);
			break;
		case OPT_builtin_bitcode:
			strvec_push(&cl->builtin_bitcode, a->value);
			break;
		case OPT_override_image:
			strvec_push(&cl->override_image, a->value);
			break;
		case OPT_pass_remarks:
		case OPT_pass_remarks_missed:
		case OPT_pass_remarks_analysis:
			strvec_push(&cl->pass_remarks, a->raw);
			break;
		case OPT_remarks_file:
			cl->remarks_file = a->value;
			break;
		case OPT_device_link_memory:
			last.device_link_memory = a;
			break;
		case OPT_device_lto_distributor:
			cl->distributor = a->value;
			break;
		case OPT_device_lto_distributor_arg:
			strvec_push(&cl->distributor_args, a->value);
			break;
		case OPT_device_lto_remote_compiler:
			cl->remote_compiler = a->value;
			break;
		case OPT_device_lto_distributor_fallback:
			cl->distributor_fallback = 1;
			break;
		default:
			break;
		}
	}
	/* "--linker-path=clang-19" or "=ld" is looked up on PATH, as a shell
	 * would (upstream runs the name as a path and fails). */
	if (cl->linker_path && *cl->linker_path && !strchr(cl->linker_path, '/')) {
		char *found = ol_find_program(cl->linker_path, NULL);
		if (found)
			cl->linker_path = ol_arena_strdup(&ol_link_arena, found);
		free(found);
	}
	cl->linker_is_driver = cl->linker_path && ol_is_compiler_driver(cl->linker_path);
	distributor_from_environment(cl);
	/* Upstream's ExecutableName (19, 22): the last -o, else the last
	 * /out:, else what the host's linker would write. */
	if (output)
		cl->output = output;
	else if (coff_output)
		cl->output = coff_output;
	else if (triple_is_windows(cl->host_triple))
		cl->output = "a.exe";
	return check_last_values(cl, &last);
}
