/*
 * render: the host linker's command line, every argument that is not
 * wrapper-only re-rendered as llvm::opt's Arg::render() does (joined-or-
 * separate options separate, aliases as their target, unknown options and
 * inputs verbatim), with the registration objects after each -o and /out:.
 */
#include "driver_internal.h"

#include <stdlib.h>
#include <string.h>

static void push_joined(struct strvec *out, const char *a, size_t alen, const char *b)
{
	strvec_pushf(out, "%.*s%s", (int)alen, a, b ? b : "");
}

/* Arg::render() for one argument; wrapper objects follow each -o and /out:,
 * and output, when not NULL, replaces the value of each -o. */
static void render_arg(const struct ol_arg *a, const struct ol_opt *rec, const char *output,
		       const char *const *wrapper_objs, struct strvec *out)
{
	const struct ol_opt *target;
	const char *spelling;
	size_t spell_len;

	if (!rec) {
		strvec_push(out, a->raw);
		return;
	}
	if (rec->flags & OL_OPTF_WRAPPER_ONLY)
		return;
	if (rec->alias != OPT_COUNT) {
		/* An alias is rendered as its target, in the target's first
		 * spelling: "--library=x" -> "-L x", "-r" -> "--relocatable". */
		target = &ol_opts[rec->alias];
		spelling = target->prefixes[0];
		spell_len = strlen(spelling);
	} else {
		target = rec;
		spelling = a->raw;
		spell_len = ol_opt_spelling_length(rec, a->raw);
	}
	switch (target->kind) {
	case OL_KIND_FLAG:
		if (rec->alias != OPT_COUNT)
			strvec_pushf(out, "%s%s", spelling, target->name);
		else
			push_joined(out, spelling, spell_len, NULL);
		break;
	case OL_KIND_JOINED:
		if (rec->alias != OPT_COUNT)
			strvec_pushf(out, "%s%s%s", spelling, target->name, a->value);
		else
			push_joined(out, spelling, spell_len, a->value);
		break;
	case OL_KIND_SEPARATE:
	case OL_KIND_JOINED_OR_SEPARATE:
		if (rec->alias != OPT_COUNT)
			strvec_pushf(out, "%s%s", spelling, target->name);
		else
			push_joined(out, spelling, spell_len, NULL);
		strvec_push(out, output && target->canon == OPT_o ? output : a->value);
		break;
	}
	if ((target->canon == OPT_o || target->canon == OPT_out) && wrapper_objs)
		strvec_pushv(out, wrapper_objs);
}

/*
 * For a compiler driver (compiler_driver.c): the same, without the options
 * that would make the driver run an offloading link of its own.  With them
 * goes the offloading runtime the driver would have added for OpenMP, which
 * the registration objects call: -lomptarget, at the end of the line, where
 * it serves every object (the driver still adds its -L for -fopenmp).
 */
static void render_for_driver(const struct ol_parsed *parsed, const char *output,
			      const char *const *wrapper_objs, struct strvec *out)
{
	int dropped_offloading = 0, openmp = 0, drops_next = 0;

	for (size_t i = 0; i < parsed->nr; i++) {
		const struct ol_arg *a = &parsed->args[i];

		if (drops_next) {
			drops_next = 0;
			continue;
		}
		if (!parsed->recs[i] && ol_driver_offload_option(a->raw, &drops_next)) {
			dropped_offloading = 1;
			continue;
		}
		openmp |= !parsed->recs[i] && ol_driver_links_runtime(a->raw);
		/* Drivers know -r, not the --relocatable it is an alias of. */
		if (a->id == OPT_relocatable) {
			strvec_push(out, "-r");
			continue;
		}
		render_arg(a, parsed->recs[i], output, wrapper_objs, out);
	}
	if (dropped_offloading && openmp)
		strvec_push(out, "-lomptarget");
}

void ol_cmdline_render_host(const struct ol_cmdline *cl, const char *const *wrapper_objs,
			    struct strvec *out)
{
	ol_cmdline_render_host_to(cl, NULL, wrapper_objs, out);
}

void ol_cmdline_render_host_to(const struct ol_cmdline *cl, const char *output,
			       const char *const *wrapper_objs, struct strvec *out)
{
	struct ol_words words = { NULL, 0, 0 };
	struct ol_parsed parsed = { NULL, NULL, 0, 0 };

	/* Match the words again with the table of the release being emulated:
	 * cl->flavor may have been decided from the inputs after parsing, and
	 * a word one release knows is an unknown option to another.  Unless
	 * --offload-abi= asked for one release exactly, what another release
	 * keeps for itself is kept from the host linker too (cmdline.h). */
	ol_words_of_args(cl, &words);
	ol_match_words(&words, ol_flavor_mask(cl->flavor), cl->flavor_given ? 0 : OL_VALL, &parsed,
		       0);
	if (cl->linker_is_driver) {
		render_for_driver(&parsed, output, wrapper_objs, out);
	} else {
		for (size_t i = 0; i < parsed.nr; i++)
			render_arg(&parsed.args[i], parsed.recs[i], output, wrapper_objs, out);
	}
	ol_parsed_release(&parsed);
	free(words.v);
}
