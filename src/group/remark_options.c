/*
 * remark_options: which optimization remarks a group's device LTO collects
 * (docs/design/remarks.md), from every spelling a link line
 * can carry them in:
 *
 *   --pass-remarks=, --pass-remarks-missed=, --pass-remarks-analysis=
 *       the wrapper's own options (16, 19);
 *   --offload-opt=-pass-remarks=... and -mllvm -pass-remarks=...
 *       LLVM's options, as clang 19 writes them for -Rpass on a link line;
 *   --device-compiler=[<triple>=]-Rpass=...  (22: clang's own flags, for
 *       the group's triple), and -mllvm -pass-remarks=... there;
 *   -mllvm -pass-remarks=... among the --device-linker values
 *       (-Xoffload-linker);
 *   --remarks-file=<prefix>: every remark, for the YAML files;
 *   --device-compiler=[<triple>=]-fsave-optimization-record[=yaml] (22:
 *       clang's flag on a link line) the same, the files named after the
 *       output (-o) unless -foptimization-record-file=<prefix> names them.
 *
 * Patterns of one kind are joined into one alternative ("(a)|(b)"), so
 * that each spelling adds what it names instead of the last one winning;
 * sorted and each once, so that the request, and the key the remarks are
 * cached under (src/device/remarks.c), do not depend on the spelling or
 * the order: -Rpass=x and --offload-opt=-pass-remarks=x ask alike.
 * Each is checked as a POSIX extended regular expression, the syntax
 * llvm::Regex implements, before any link runs.
 */
#include "offload/arena.h"
#include "offload/cmdline.h"
#include "offload/device_link.h"
#include "offload/diag.h"
#include "offload/group.h"
#include "offload/strvec.h"

#include <regex.h>
#include <string.h>

enum remark_kind { PASSED, MISSED, ANALYSIS, NKINDS };

struct spellings {
	struct strvec pattern[NKINDS];
	int failed;
};

/* The kind an LLVM option (-pass-remarks*=, one or two dashes) or a
 * clang flag (-Rpass*=) names, and where its pattern starts; -1 if it
 * names none. */
static int remark_option(const char *arg, const char **pattern)
{
	static const struct { const char *prefix; enum remark_kind kind; } forms[] = {
		{ "-pass-remarks=", PASSED },           { "-pass-remarks-missed=", MISSED },
		{ "-pass-remarks-analysis=", ANALYSIS }, { "-Rpass=", PASSED },
		{ "-Rpass-missed=", MISSED },            { "-Rpass-analysis=", ANALYSIS },
	};

	if (arg[0] == '-' && arg[1] == '-' && arg[2] == 'p')
		arg++;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (ol_starts_with(arg, forms[i].prefix)) {
			*pattern = arg + strlen(forms[i].prefix);
			return (int)forms[i].kind;
		}
	}
	return -1;
}

static void add_pattern(struct spellings *s, const char *arg, const char *origin)
{
	const char *pattern;
	int kind = remark_option(arg, &pattern);
	regex_t re;

	if (kind < 0)
		return;
	if (!*pattern || regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
		ol_error("%s%s: '%s' is not a regular expression of pass names", origin, arg,
			 pattern);
		s->failed = 1;
		return;
	}
	regfree(&re);
	strvec_push(&s->pattern[kind], pattern);
}

/* LLVM options among a group's values: "-mllvm <opt>" pairs. */
static void add_mllvm_values(struct spellings *s, const struct strvec *args, const char *origin)
{
	for (size_t i = 0; i + 1 < args->nr; i++)
		if (!strcmp(args->v[i], "-mllvm"))
			add_pattern(s, args->v[++i], origin);
}

static int compare_patterns(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "(a)|(b)": the kind's patterns sorted, each once; NULL for none. */
static const char *take(struct strvec *patterns)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s;

	if (patterns->nr)
		qsort(patterns->v, patterns->nr, sizeof(patterns->v[0]), compare_patterns);
	for (size_t i = 0; i < patterns->nr; i++) {
		if (i && !strcmp(patterns->v[i], patterns->v[i - 1]))
			continue;
		strbuf_addf(&sb, "%s(%s)", sb.len ? "|" : "", patterns->v[i]);
	}
	s = sb.len ? ol_arena_strdup(&ol_link_arena, strbuf_str(&sb)) : NULL;
	strbuf_release(&sb);
	strvec_release(patterns);
	return s;
}

/* The YAML files' prefix: --remarks-file, or clang's flags among the
 * group's --device-compiler values; NULL for none. */
static const char *records_prefix(const struct ol_group *g, const struct ol_cmdline *cl)
{
	const char *prefix = cl->remarks_file;
	int save = prefix != NULL;

	for (size_t i = 0; i < g->compiler_args.nr; i++) {
		const char *arg = g->compiler_args.v[i];

		if (ol_is_records_flag(arg)) {
			save = 1;
		} else if (ol_starts_with(arg, "-foptimization-record-file=")) {
			save = 1;
			prefix = arg + strlen("-foptimization-record-file=");
		}
	}
	return save ? (prefix && *prefix ? prefix : cl->output) : NULL;
}

int ol_group_remark_request(struct ol_group *g, const struct ol_cmdline *cl)
{
	struct spellings s = { { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT }, 0 };

	for (size_t i = 0; i < cl->pass_remarks.nr; i++)
		add_pattern(&s, cl->pass_remarks.v[i], "");
	for (size_t i = 0; i < cl->offload_opt.nr; i++)
		add_pattern(&s, cl->offload_opt.v[i], "--offload-opt=");
	for (size_t i = 0; i < cl->mllvm.nr; i++)
		add_pattern(&s, cl->mllvm.v[i], "-mllvm ");
	for (size_t i = 0; i < g->compiler_args.nr; i++)
		if (ol_starts_with(g->compiler_args.v[i], "-R"))
			add_pattern(&s, g->compiler_args.v[i], "--device-compiler=");
	add_mllvm_values(&s, &g->compiler_args, "--device-compiler=-mllvm ");
	add_mllvm_values(&s, &g->linker_args, "--device-linker=-mllvm ");
	g->remarks.passed = take(&s.pattern[PASSED]);
	g->remarks.missed = take(&s.pattern[MISSED]);
	g->remarks.analysis = take(&s.pattern[ANALYSIS]);
	g->remarks_file = records_prefix(g, cl);
	g->remarks.all = g->remarks_file != NULL;
	return s.failed ? -1 : 0;
}
