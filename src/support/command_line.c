/*
 * command_line: the one option reader of the companion commands, driven by
 * each command's table (include/offload/command_line.h), as the link's own
 * options are by options.def.  The table also writes --help.
 *
 * Spellings follow LLVM's tools, whose command lines these commands take:
 * one dash or two; a value as "-name=value" or "-name value", and for a
 * one-letter name also "-nvalue".
 */
#include "offload/command_line.h"
#include "offload/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ol_command_usage(const char *command, const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	ol_error("%s: %s (offload-link %s --help lists the options)", command, message, command);
	return 2;
}

/* The length of the spelling in `names` ("target|triple") that `word`
 * (dashes removed) starts with, followed by '\0' or '=' (or anything, for a
 * one-letter name that takes a value); 0 when none. */
static size_t spelling_match(const struct ol_command_option *opt, const char *word)
{
	const char *name = opt->names;

	while (*name) {
		size_t n = strcspn(name, "|");

		if (strncmp(word, name, n) == 0 &&
		    (word[n] == '\0' || (word[n] == '=' && opt->metavar) ||
		     (n == 1 && opt->metavar && !opt->value_optional)))
			return n;
		name += n + (name[n] == '|');
	}
	return 0;
}

/* "--target=<triple>, --triple=<triple>": every spelling of an option. */
static void spell(const struct ol_command_option *o, char *buf, size_t size)
{
	const char *name = o->names;
	size_t used = 0;

	buf[0] = '\0';
	while (*name && used < size) {
		size_t n = strcspn(name, "|");
		const char *joiner = !o->metavar ? "" : o->value_optional ? "[=" : n == 1 ? " " : "=";

		used += (size_t)snprintf(buf + used, size - used, "%s%s%.*s%s%s%s", used ? ", " : "",
					 n == 1 ? "-" : "--", (int)n, name, joiner,
					 o->metavar ? o->metavar : "", o->value_optional ? "]" : "");
		name += n + (name[n] == '|');
	}
}

static void print_help(const struct ol_command_line *cl)
{
	char spelled[160];

	printf("usage: ");
	for (size_t i = 0; cl->synopsis[i]; i++)
		printf("%soffload-link %s%s%s\n", i ? "       " : "", cl->command,
		       *cl->synopsis[i] ? " " : "", cl->synopsis[i]);
	printf("\n%s\n\nOptions (one dash or two):\n", cl->description);
	for (const struct ol_command_option *o = cl->options; o->id; o++) {
		spell(o, spelled, sizeof(spelled));
		if (strlen(spelled) > 28)
			printf("  %s\n  %-28s  %s\n", spelled, "", o->help);
		else
			printf("  %-28s  %s\n", spelled, o->help);
	}
	printf("  %-28s  %s\n", "--help, --version", "This text; the version");
}

int ol_command_line_read(const struct ol_command_line *cl, int argc, char **argv,
			 int (*take)(void *ctx, int id, const char *value), void *ctx)
{
	int only_inputs = 0, status;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *word, *value = NULL;
		const struct ol_command_option *opt = NULL;
		size_t n = 0;

		if (only_inputs || arg[0] != '-' || !arg[1]) {
			if ((status = take(ctx, OL_COMMAND_INPUT, arg)))
				return status;
			continue;
		}
		if (cl->separator && strcmp(arg, "--") == 0) {
			only_inputs = 1;
			continue;
		}
		word = arg + 1 + (arg[1] == '-');
		if (!strcmp(word, "help") || !strcmp(word, "h")) {
			print_help(cl);
			return 1;
		}
		if (!strcmp(word, "version")) {
			printf("offload-link %s %s (%s)\n", cl->command, OL_VERSION, cl->version_note);
			return 1;
		}
		/* The longest spelling wins, as in LLVM: "-offload-arch" is not
		 * "-o ffload-arch". */
		for (const struct ol_command_option *o = cl->options; o->id; o++) {
			size_t len = spelling_match(o, word);

			if (len > n) {
				n = len;
				opt = o;
			}
		}
		if (!opt)
			return ol_command_usage(cl->command, "unknown option '%s'", arg);
		if (word[n] == '=')
			value = word + n + 1;
		else if (word[n])
			value = word + n;   /* "-ofile" */
		else if (opt->metavar && !opt->value_optional) {
			if (i + 1 >= argc)
				return ol_command_usage(cl->command, "%s needs a value (%s)", arg,
							opt->metavar);
			value = argv[++i];
		}
		if ((status = take(ctx, opt->id, value)))
			return status;
	}
	return 0;
}
