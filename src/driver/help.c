/*
 * help: --help, --help-hidden and --version, laid out as upstream's
 * OptTable::printHelp lays them out, for the release being emulated (all
 * releases' options when none is chosen); and the man page, offload-link.1,
 * written from the same records at build time (tools/offload-link-man.c).
 */
#include "driver_internal.h"
#include "offload/commands.h"

#include <stdio.h>
#include <string.h>

/* The companion commands, handed over by the programs that have them: the
 * option parser alone (the fuzzers link it) must not pull in every command. */
static const struct ol_command *listed_commands;

void ol_help_list_commands(const struct ol_command *table)
{
	listed_commands = table;
}

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

/* Two records --help shows alike (22's --wrapper-jobs=<number> and 16's and
 * 19's) are one option to a reader. */
static int shown_alike(const struct ol_opt *a, const struct ol_opt *b)
{
	return a->kind == b->kind && strcmp(a->prefixes[0], b->prefixes[0]) == 0 &&
	       strcmp(a->name, b->name) == 0;
}

/* The releases of clang-linker-wrapper that have the option as `rec` shows
 * it: its own record's and those of every record shown alike. */
static unsigned option_releases(const struct ol_opt *rec)
{
	unsigned versions = rec->versions;

	for (size_t v = 0; v < OL_NOPTS; v++)
		if (shown_alike(rec, &ol_opts[v]))
			versions |= ol_opts[v].versions;
	return versions;
}

/* "16, 19": the releases in `versions`. */
static void add_releases(struct strbuf *sb, unsigned versions)
{
	static const struct {
		unsigned bit;
		const char *name;
	} releases[] = { { OL_V16, "16" }, { OL_V19, "19" }, { OL_V22, "22" } };
	const char *sep = "";

	for (size_t k = 0; k < sizeof(releases) / sizeof(releases[0]); k++) {
		if (versions & releases[k].bit) {
			strbuf_addf(sb, "%s%s", sep, releases[k].name);
			sep = ", ";
		}
	}
}

/* The text --help shows for rec: its help, the releases that have it when
 * not all three ("[16, 19]") at the end of its first line, then the rest
 * (an example). */
static void help_text(const struct ol_opt *rec, const char *help, struct strbuf *out)
{
	const char *nl = strchr(help, '\n');
	unsigned versions = option_releases(rec);

	strbuf_add(out, help, nl ? (size_t)(nl - help) : strlen(help));
	if (versions != OL_VALL) {
		strbuf_addstr(out, " [");
		add_releases(out, versions);
		strbuf_addch(out, ']');
	}
	if (nl)
		strbuf_addstr(out, nl);
}

/* The overview: what offload-link is, how clang comes to run it, and how to
 * read the list. */
static const char overview[] =
	"OVERVIEW: offload-link " OL_VERSION ", the link step of offloading programs\n"
	"(OpenMP target offloading, CUDA and HIP through clang's new offloading driver,\n"
	"SYCL) and a drop-in replacement for clang-linker-wrapper 16, 19 and 22.\n"
	"\n"
	"It finds the device code in the objects, archives and bitcode files of the\n"
	"link, links it for each device target, wraps the linked images in a module\n"
	"that registers them with the offloading runtime when the program starts, and\n"
	"runs the host linker (--linker-path) with that module added. Arguments it\n"
	"does not know go to the host linker as they are.\n"
	"\n"
	"clang looks for clang-linker-wrapper in its -B directories before its own:\n"
	"clang -B <dir> runs <dir>/clang-linker-wrapper. offload-link installs one in\n"
	"PREFIX/libexec/offload-link (PREFIX: where offload-link is installed), so\n"
	"clang -B PREFIX/libexec/offload-link, or clang\n"
	"--config=PREFIX/share/offload-link/clang.cfg, links through offload-link.\n"
	"\n"
	"An option marked [16, 19] is in those releases of clang-linker-wrapper only;\n"
	"--offload-abi=<16|19|22> lists the options of one release.\n\n";

/* OptTable::printHelp's layout: names padded to the widest one of at most
 * 23 characters, longer names on a line of their own. */
void ol_print_help(const char *argv0, enum ol_flavor flavor, int show_hidden)
{
	const unsigned short *order = ol_opts_sorted();
	struct strbuf names[OL_NOPTS], texts[OL_NOPTS];
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
		texts[n] = (struct strbuf)STRBUF_INIT;
		help_text(rec, text, &texts[n]);
		if (names[n].len <= OL_HELP_NAME_WIDTH && names[n].len > width)
			width = names[n].len;
		n++;
	}

	strbuf_addstr(&out, overview);
	if (upstream)
		strbuf_addstr(&out, "USAGE: clang-linker-wrapper [options] [host linker arguments]\n\n");
	else
		strbuf_addstr(&out, "USAGE: offload-link [options] [host linker arguments]\n"
			      "       offload-link <command> [arguments]\n\n");
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
		for (const char *line = texts[k].buf; line;) {
			const char *nl = strchr(line, '\n');
			size_t llen = nl ? (size_t)(nl - line) : strlen(line);

			strbuf_addf(&out, "%*s%.*s\n", (int)pad, "", (int)llen, line);
			line = nl ? nl + 1 : NULL;
			pad = width + 2 + 1;
		}
		strbuf_release(&names[k]);
		strbuf_release(&texts[k]);
	}
	if (!upstream && listed_commands) {
		strbuf_addstr(&out, "\nCOMMANDS:\n");
		for (const struct ol_command *c = listed_commands; c && c->name; c++)
			strbuf_addf(&out, "  %s\n      %s\n", c->synopsis, c->summary);
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

/* ---- the man page ------------------------------------------------------------ */

/* Text for roff: a backslash doubled, '-' as "\-" (a minus, so the option
 * can be searched for and copied), a leading '.' or '\'' guarded. */
static void roff_text(struct strbuf *out, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (i == 0 && (c == '.' || c == '\''))
			strbuf_addstr(out, "\\&");
		if (c == '\\')
			strbuf_addstr(out, "\\e");
		else if (c == '-')
			strbuf_addstr(out, "\\-");
		else
			strbuf_addch(out, c);
	}
}

static void roff_line(struct strbuf *out, const char *text)
{
	roff_text(out, text, strlen(text));
	strbuf_addch(out, '\n');
}

/* Every option of --help-hidden for every release, with the releases whose
 * table has it; records shown alike are one entry (a VARIANT, another
 * release's record, adds its releases to it), records spelled otherwise
 * ("--sysroot" of 16, "--sysroot=" of 19 and 22) have their own.  An
 * example, the text's second line, gets a line of its own. */
static void man_options(struct strbuf *out)
{
	const unsigned short *order = ol_opts_sorted();

	for (size_t k = 0; k < OL_NOPTS; k++) {
		const struct ol_opt *rec = &ol_opts[order[k]];
		const char *text = rec->help, *nl;
		struct strbuf name = STRBUF_INIT;
		unsigned versions = option_releases(rec);
		int shown_as_another = 0;
		size_t first;

		for (size_t v = 0; v < OL_NOPTS && (rec->flags & OL_OPTF_VARIANT); v++)
			shown_as_another |= !(ol_opts[v].flags & OL_OPTF_VARIANT) &&
					    shown_alike(rec, &ol_opts[v]);
		if (shown_as_another)
			continue;
		if (!text && rec->alias != OPT_COUNT)
			text = ol_opts[rec->alias].help;
		if (!text || !*text)
			continue;
		nl = strchr(text, '\n');
		first = nl ? (size_t)(nl - text) : strlen(text);
		help_name(rec, &name);
		strbuf_addstr(out, ".TP\n.B ");
		roff_line(out, name.buf);
		roff_text(out, text, first);
		if (first == 0 || text[first - 1] != '.')
			strbuf_addch(out, '.');
		if (versions != OL_VALL) {
			strbuf_addstr(out, " In clang\\-linker\\-wrapper ");
			add_releases(out, versions);
			strbuf_addstr(out, " only.");
		}
		if (rec->flags & OL_OPTF_HIDDEN)
			strbuf_addstr(out, " Listed by \\-\\-help\\-hidden.");
		strbuf_addch(out, '\n');
		for (const char *line = nl; line; line = strchr(line + 1, '\n')) {
			const char *end = strchr(line + 1, '\n');

			strbuf_addstr(out, ".br\n");
			roff_text(out, line + 1, end ? (size_t)(end - line - 1) : strlen(line + 1));
			strbuf_addch(out, '\n');
		}
		strbuf_release(&name);
	}
}

/* The sections after OPTIONS: one entry per term; `section` opens one. */
struct man_entry {
	const char *section;
	char font;  /* 'B' for commands and variables, 'I' for files */
	const char *term, *text;
};

static const struct man_entry man_entries[] = {
	{ "ENVIRONMENT", 'B', "MAKEFLAGS",
	  "Under make, without --wrapper-jobs, device links follow make's -j: make's jobserver "
	  "when it has one, one at a time under make -j1 or plain make." },
	{ NULL, 'B', "OFFLOAD_LINK_NO_CACHE",
	  "Set to anything but 0 or false: the same as --no-cache." },
	{ NULL, 'B', "OFFLOAD_LINK_CACHE_DIR", "The same as --cache-dir=." },
	{ NULL, 'B', "OFFLOAD_LINK_REMOTE_STORAGE", "The same as --remote-storage=." },
	{ NULL, 'B', "OFFLOAD_LINK_DEVICE_LTO",
	  "The same as --device-lto=, for build systems that cannot change the link line." },
	{ NULL, 'B', "OFFLOAD_LINK_DEVICE_LINK_MEMORY", "The same as --device-link-memory=." },
	{ NULL, 'B', "OFFLOAD_LINK_DEVICE_LTO_DISTRIBUTOR",
	  "The same as --device-lto-distributor=." },
	{ NULL, 'B', "OFFLOAD_LINK_DEVICE_LTO_DISTRIBUTOR_ARGS",
	  "Arguments for the distributor, split at spaces, where no --device-lto-distributor-arg= "
	  "gives any." },
	{ NULL, 'B', "OFFLOAD_LINK_DEVICE_LTO_DISTRIBUTOR_FALLBACK",
	  "Set to anything but 0 or false: the same as --device-lto-distributor-fallback." },
	{ NULL, 'B', "OFFLOAD_LINK_BACKEND",
	  "The LLVM part to load instead of the one beside the tool." },
	{ "FILES", 'I', "PREFIX/libexec/offload-link/clang-linker-wrapper",
	  "The name clang looks for in its -B directories: the same program." },
	{ NULL, 'I', "PREFIX/share/offload-link/clang.cfg",
	  "A clang configuration file that adds that -B directory." },
	{ NULL, 'I', "PREFIX/share/offload-link/clang16.cfg",
	  "The same for clang 16, on its compile and link lines: it adds "
	  "--offload-new-driver, without which clang 16 never runs the wrapper for OpenMP." },
	{ NULL, 'I', "PREFIX/lib/cmake/OffloadLink/OffloadLinkConfig.cmake",
	  "find_package(OffloadLink): the OffloadLink::offload-link executable and "
	  "offload_link_target(<target>)." },
	{ NULL, 'I', "PREFIX/lib/offload-link/offload-link-llvm*.so",
	  "The LLVM part, loaded only when a link has device code or bitcode." },
};

void ol_print_man_page(FILE *out_file)
{
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, ".\\\" Generated from include/offload/options.def by offload-link-man; "
		      "do not edit.\n");
	strbuf_addstr(&out, ".TH OFFLOAD\\-LINK 1 \"\" \"offload-link " OL_VERSION
		      "\" \"User Commands\"\n");
	strbuf_addstr(&out, ".SH NAME\noffload\\-link \\- link offloading programs, "
		      "a drop\\-in replacement for clang\\-linker\\-wrapper\n");
	strbuf_addstr(&out, ".SH SYNOPSIS\n.B offload\\-link\n[\\fIoptions\\fR] "
		      "[\\fIhost linker arguments\\fR]\n.br\n.B offload\\-link\n"
		      "\\fIcommand\\fR [\\fIarguments\\fR]\n"
		      ".br\n.B clang \\-B\\fIprefix\\fB/libexec/offload\\-link\n"
		      "\\fIclang link arguments\\fR\n");
	strbuf_addstr(&out, ".SH DESCRIPTION\n");
	roff_line(&out, "offload-link takes the command line of clang-linker-wrapper 16, 19 and 22: "
		  "it finds the device code in the objects, archives and bitcode on the line, "
		  "links it per device target, wraps the linked images in a registration "
		  "module for the offloading runtime and runs the host linker "
		  "(--linker-path) with that module added.");
	strbuf_addstr(&out, ".PP\n");
	roff_line(&out, "clang runs it as its link step when its directory comes first: "
		  "clang -B PREFIX/libexec/offload-link, or clang "
		  "--config=PREFIX/share/offload-link/clang.cfg.  Run directly, the host linker "
		  "may be ld or a compiler driver (--linker-path=clang-19, cc): a driver's line "
		  "passes through as the driver reads it (-Wl, and -Xlinker included), without "
		  "the options that would make the driver run an offloading link of its own, "
		  "and the driver adds the C runtime and its library paths.");
	strbuf_addstr(&out, ".PP\n");
	roff_line(&out, "Arguments that are not offload-link's own go to the host linker as "
		  "written.  Options are read from @file response files.");
	strbuf_addstr(&out, ".SH OPTIONS\n");
	man_options(&out);
	strbuf_addstr(&out, ".SH COMMANDS\n");
	for (const struct ol_command *c = listed_commands; c && c->name; c++) {
		strbuf_addstr(&out, ".TP\n.B ");
		roff_line(&out, c->synopsis);
		roff_line(&out, c->summary);
	}
	for (size_t k = 0; k < sizeof(man_entries) / sizeof(man_entries[0]); k++) {
		const struct man_entry *e = &man_entries[k];

		if (e->section)
			strbuf_addf(&out, ".SH %s\n", e->section);
		strbuf_addf(&out, ".TP\n.%c ", e->font);
		roff_line(&out, e->term);
		roff_line(&out, e->text);
	}
	strbuf_addstr(&out, ".SH SEE ALSO\n");
	roff_line(&out, "clang(1), ld(1); docs/usage.md and docs/design.md in the sources.");
	fwrite(strbuf_str(&out), 1, out.len, out_file);
	strbuf_release(&out);
}
