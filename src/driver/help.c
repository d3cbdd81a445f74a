/*
 * help: --help, --help-hidden and --version, laid out as upstream's
 * OptTable::printHelp lays them out, for the release being emulated (all
 * releases' options when none is chosen).
 */
#include "driver_internal.h"

#include <stdio.h>
#include <string.h>

/* Longest option name that still shares its help line with the text. */
#define OL_HELP_NAME_WIDTH 23

static int invoked_as_upstream(const char *argv0)
{
	const char *base;

	if (!argv0)
		return 0;
	base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	return strcmp(base, "clang-linker-wrapper") == 0;
}

static int shown_in_help(const struct ol_opt *rec, enum ol_flavor flavor, int show_hidden)
{
	if (flavor == OL_FLAVOR_AUTO ? (rec->flags & OL_OPTF_VARIANT) != 0
				     : !(rec->versions & ol_flavor_mask(flavor)))
		return 0;
	return show_hidden || !(rec->flags & OL_OPTF_HIDDEN);
}

/* OptTable's getOptionHelpName. */
static void help_name(const struct ol_opt *rec, struct strbuf *sb)
{
	const char *meta = rec->metavar ? rec->metavar : "<value>";

	strbuf_addstr(sb, rec->prefixes[0]);
	strbuf_addstr(sb, rec->name);
	switch (rec->kind) {
	case OL_KIND_FLAG:
		break;
	case OL_KIND_SEPARATE:
	case OL_KIND_JOINED_OR_SEPARATE:
		strbuf_addch(sb, ' ');
		strbuf_addstr(sb, meta);
		break;
	case OL_KIND_JOINED:
		strbuf_addstr(sb, meta);
		break;
	}
}

/* OptTable::printHelp's layout: names padded to the widest one of at most
 * 23 characters, longer names on a line of their own. */
void ol_print_help(const char *argv0, enum ol_flavor flavor, int show_hidden)
{
	const unsigned short *order = ol_opts_sorted();
	struct strbuf names[OL_NOPTS];
	const char *texts[OL_NOPTS];
	struct strbuf out = STRBUF_INIT;
	size_t n = 0, width = 0;
	int upstream = invoked_as_upstream(argv0);

	for (size_t k = 0; k < OL_NOPTS; k++) {
		const struct ol_opt *rec = &ol_opts[order[k]];
		const char *text = rec->help;

		if (!shown_in_help(rec, flavor, show_hidden))
			continue;
		/* --help-hidden also shows every alias, with its target's text. */
		if (!text && show_hidden && rec->alias != OPT_COUNT)
			text = ol_opts[rec->alias].help;
		if (!text || !*text)
			continue;
		names[n] = (struct strbuf)STRBUF_INIT;
		help_name(rec, &names[n]);
		texts[n] = text;
		if (names[n].len <= OL_HELP_NAME_WIDTH && names[n].len > width)
			width = names[n].len;
		n++;
	}

	strbuf_addstr(&out, "OVERVIEW: \n"
		      "A wrapper utility over the host linker. It scans the input files\n"
		      "for sections that require additional processing prior to linking.\n"
		      "The will then transparently pass all arguments and input to the\n"
		      "specified host linker to create the final binary.\n");
	strbuf_addstr(&out, "This is offload-link " OL_VERSION
		      ", compatible with clang-linker-wrapper 16, 19 and 22.\n\n\n");
	if (upstream)
		strbuf_addstr(&out, "USAGE: clang-linker-wrapper [options] -- "
			      "<options to passed to the linker>\n\n");
	else
		strbuf_addstr(&out, "USAGE: offload-link [options] -- "
			      "<options to pass to the linker>\n\n");
	strbuf_addstr(&out, "OPTIONS:\n");
	for (size_t k = 0; k < n; k++) {
		size_t pad;

		strbuf_addf(&out, "  %s", names[k].buf);
		if (names[k].len > width) {
			strbuf_addch(&out, '\n');
			pad = width + 2 + 1;
		} else {
			pad = width - names[k].len + 1;
		}
		for (const char *line = texts[k]; line;) {
			const char *nl = strchr(line, '\n');
			size_t llen = nl ? (size_t)(nl - line) : strlen(line);

			strbuf_addf(&out, "%*s%.*s\n", (int)pad, "", (int)llen, line);
			line = nl ? nl + 1 : NULL;
			pad = width + 2 + 1;
		}
		strbuf_release(&names[k]);
	}
	fwrite(strbuf_str(&out), 1, out.len, stdout);
	strbuf_release(&out);
}

void ol_print_version(const char *argv0)
{
	if (invoked_as_upstream(argv0))
		printf("clang-linker-wrapper version %s (offload-link; compatible with "
		       "clang-linker-wrapper 16, 19, 22)\n", OL_VERSION);
	else
		printf("offload-link version %s (compatible with clang-linker-wrapper 16, 19, 22)\n",
		       OL_VERSION);
}
