/*
 * cmdline: clang-linker-wrapper's command line.  See offload/cmdline.h.
 *
 * The pieces, in the order a command line meets them (driver_internal.h):
 *   1. @file response files are expanded (response_file.c).
 *   2. Every word is matched against the option table exactly as
 *      llvm::opt::OptTable::ParseOneArg does (match.c, option_table.c).
 *   3. --help and --version print and exit (help.c); wrapper options are
 *      decoded into struct ol_cmdline (decode.c).
 *   4. The host linker's view (files, -l, state switches, -L, --sysroot) is
 *      built, knowing the GNU ld options upstream's table does not
 *      (host_view.c).
 * Rendering for the host linker (render.c) re-matches the words with the
 * table of the release being emulated.
 */
#include "driver_internal.h"

#include <stdlib.h>
#include <string.h>

int ol_cmdline_parse_words(const struct ol_words *words, const char *argv0, struct ol_cmdline *cl,
			   enum ol_cmdline_request *request)
{
	struct ol_parsed parsed = { NULL, NULL, 0, 0 };
	enum ol_flavor flavor;
	int help = 0, help_hidden = 0, version = 0;
	int ret = -1;

	memset(cl, 0, sizeof(*cl));
	*request = OL_CMDLINE_LINK;
	cl->argv0 = argv0;
	cl->host_triple = OL_DEFAULT_TRIPLE;
	cl->output = "a.out";
	cl->opt_level = 2;
	cl->compression_level = -1;
	cl->time_trace_granularity = 500;
	cl->flavor = OL_FLAVOR_AUTO;

	/* --offload-abi decides which release's table applies, so match once
	 * with every record to find it, then again with that release's. */
	if (ol_match_words(words, OL_VALL, 0, &parsed, 1))
		goto out;
	if (ol_decode_offload_abi(&parsed, &flavor))
		goto out;
	if (flavor != OL_FLAVOR_AUTO) {
		ol_parsed_release(&parsed);
		if (ol_match_words(words, ol_flavor_mask(flavor), 0, &parsed, 1))
			goto out;
	}
	cl->flavor = flavor;
	cl->flavor_given = flavor != OL_FLAVOR_AUTO;

	for (size_t i = 0; i < parsed.nr; i++) {
		help |= parsed.args[i].id == OPT_help;
		help_hidden |= parsed.args[i].id == OPT_help_hidden;
		/* -v and --v ask 16 and 19 for the version; 22 forwards them
		 * to the host linker (clang 22 turns -Wl,-v into one).  On a
		 * link line whose release is not known yet, main() decides. */
		if (parsed.args[i].id == OPT_v && parsed.recs[i] == &ol_opts[OPT_v] && !cl->flavor_given &&
		    parsed.nr > 1)
			cl->version_unless_22 = 1;
		else
			version |= parsed.args[i].id == OPT_v;
	}
	if (help || help_hidden || version) {
		*request = help_hidden ? OL_CMDLINE_HELP_HIDDEN
			   : help      ? OL_CMDLINE_HELP
				       : OL_CMDLINE_VERSION;
		ret = 0;
		goto out;
	}

	ret = ol_decode_wrapper_options(cl, &parsed);
	cl->args = parsed.args;
	cl->nargs = parsed.nr;
	parsed.args = NULL;
	ol_build_host_view(cl);
out:
	ol_parsed_release(&parsed);
	if (ret)
		ol_cmdline_release(cl);
	return ret;
}

int ol_cmdline_parse(int argc, char **argv, struct ol_cmdline *cl)
{
	struct ol_words words = { NULL, 0, 0 };
	const char *argv0 = argc > 0 && argv[0] ? argv[0] : "offload-link";
	enum ol_cmdline_request request = OL_CMDLINE_LINK;
	int ret = -1;

	memset(cl, 0, sizeof(*cl));
	for (int i = 1; i < argc; i++)
		if (argv[i] && ol_words_expand(&words, argv[i]))
			goto out;
	ret = ol_cmdline_parse_words(&words, argv0, cl, &request);
out:
	free(words.v);
	if (ret == 0 && request != OL_CMDLINE_LINK) {
		if (request == OL_CMDLINE_VERSION)
			ol_print_version(argv0);
		else
			ol_print_help(argv0, cl->flavor, request == OL_CMDLINE_HELP_HIDDEN);
		exit(0);
	}
	return ret;
}

enum ol_flavor ol_cmdline_line_flavor(const struct ol_cmdline *cl)
{
	unsigned releases = OL_VALL;

	for (size_t i = 0; i < cl->nargs; i++)
		if (cl->args[i].id != OPT_INPUT && cl->args[i].id != OPT_UNKNOWN)
			releases &= ol_wrapper_option_releases(cl->args[i].raw);
	if (releases == OL_V22)
		return OL_FLAVOR_22;
	if (releases == 0 || (releases & OL_V22))
		return OL_FLAVOR_AUTO;
	if (releases == OL_V16 || cl->saw_separator)
		return OL_FLAVOR_16;
	return OL_FLAVOR_19;
}

int ol_cmdline_version_request(const struct ol_cmdline *cl, enum ol_flavor flavor)
{
	if (!cl->version_unless_22 || flavor == OL_FLAVOR_22 || flavor == OL_FLAVOR_AUTO)
		return 0;
	ol_print_version(cl->argv0);
	return 1;
}

void ol_cmdline_release(struct ol_cmdline *cl)
{
	free(cl->args);
	free(cl->link_items);
	free(cl->lib_paths);
	strvec_release(&cl->device_linker);
	strvec_release(&cl->device_compiler);
	strvec_release(&cl->mllvm);
	strvec_release(&cl->offload_opt);
	strvec_release(&cl->ptxas_args);
	strvec_release(&cl->should_extract);
	strvec_release(&cl->bitcode_library);
	strvec_release(&cl->builtin_bitcode);
	strvec_release(&cl->override_image);
	strvec_release(&cl->pass_remarks);
	strvec_release(&cl->distributor_args);
	strvec_release(&cl->driver_runtimes);
	memset(cl, 0, sizeof(*cl));
}
