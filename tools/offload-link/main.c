/*
 * offload-link: a drop-in replacement for clang-linker-wrapper.
 *
 * The pipeline, one stage per module (docs/design.md):
 *   parse -> scan -> resolve -> group -> device link -> wrap -> host link
 * Each stage reports every problem it finds; ol_checkpoint() stops between
 * stages, so a failed link runs no further tool and writes no output.
 */
#include "offload/arena.h"
#include "offload/backend.h"
#include "offload/cache.h"
#include "offload/commands.h"
#include "offload/cmdline.h"
#include "offload/device_link.h"
#include "offload/diag.h"
#include "offload/group.h"
#include "offload/host_link.h"
#include "offload/inputs.h"
#include "offload/mapped_file.h"
#include "offload/memory_budget.h"
#include "offload/progress.h"
#include "offload/relocatable.h"
#include "offload/resolve.h"
#include "offload/spawn.h"
#include "offload/stats.h"
#include "offload/temp_names.h"
#include "offload/tempfile.h"
#include "offload/timer.h"
#include "offload/wrap.h"

#include <stdlib.h>
#include <string.h>

/* Which upstream release to behave like, when no --offload-abi= says so:
 * the producer of the fat objects knows best (.comment / llvm.ident), then
 * the wrapper options only some releases have (from_line: the line clang
 * wrote, ol_cmdline_line_flavor), then
 * the 16-only "--" separator, then the entries section the host code uses.
 * AUTO when nothing tells; *why says what decided, for -v. */
static enum ol_flavor decide_flavor(const struct ol_cmdline *cl, const struct ol_inputs *in,
				    enum ol_flavor from_line, const char **why)
{
	*why = "--offload-abi";
	if (cl->flavor_given)
		return cl->flavor;
	*why = "the inputs' producer";
	if (in->clang_major >= 21)
		return OL_FLAVOR_22;
	if (in->clang_major >= 17)
		return OL_FLAVOR_19;
	if (in->clang_major > 0)
		return OL_FLAVOR_16;
	*why = "wrapper options only that release has";
	if (from_line != OL_FLAVOR_AUTO)
		return from_line;
	*why = "the \"--\" separator";
	if (cl->saw_separator)
		return OL_FLAVOR_16;
	*why = "the inputs' offloading entries";
	if (in->entries_abi == 16)
		return OL_FLAVOR_19;
	*why = "nothing tells: the newest";
	return OL_FLAVOR_AUTO;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* argv[0] plus every -mllvm and --offload-opt value, for LLVM's parser. */
static void hand_llvm_options_to_backend(const struct ol_cmdline *cl)
{
	size_t n = 1 + cl->mllvm.nr + cl->offload_opt.nr, k = 0;
	const char **argv = ol_arena_alloc(&ol_link_arena, (n + 1) * sizeof(*argv));

	argv[k++] = cl->argv0;
	for (size_t i = 0; i < cl->mllvm.nr; i++)
		argv[k++] = cl->mllvm.v[i];
	for (size_t i = 0; i < cl->offload_opt.nr; i++)
		argv[k++] = cl->offload_opt.v[i];
	ol_backend_set_llvm_args((int)k, argv);
}

/* An LLVM option that prints and exits (-mllvm --help, --offload-opt=
 * --version): upstream hands every LLVM option to LLVM's parser at start,
 * we do so when the backend loads, so such a request loads it at once. */
static int asks_llvm_to_print(const struct ol_cmdline *cl)
{
	static const char *const printers[] = {
		"help", "help-hidden", "help-list", "help-list-hidden", "version", NULL,
	};
	const struct strvec *lists[] = { &cl->mllvm, &cl->offload_opt };

	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->nr; i++) {
			const char *v = lists[l]->v[i];

			if (v[0] != '-')
				continue;
			v += v[1] == '-' ? 2 : 1;
			for (const char *const *p = printers; *p; p++)
				if (strcmp(v, *p) == 0)
					return 1;
		}
	return 0;
}

/* The inputs stay mapped: unmapping hundreds of files one by one costs
 * about a millisecond that process exit does for free. */
static void release_all(void)
{
	ol_arena_release(&ol_link_arena);
}

/* A stage begins: its time-trace scope and its --stats line. */
static void begin_stage(const char *name)
{
	ol_timer_begin(name);
	ol_stats_stage(name);
}

/* Stage boundaries: stop on reported errors, close the stage's time scope. */
static void end_stage(int rc)
{
	ol_timer_end();
	if (rc < 0)
		ol_checkpoint();
}

static int finish(struct ol_cmdline *cl, int status)
{
	ol_stats_report();
	ol_timer_end();  /* "Execute linker wrapper" */
	if (cl->time_trace && ol_timer_write(cl->time_trace, cl->output) < 0 && status == 0)
		status = 1;
	ol_cmdline_release(cl);
	return status;
}

/* The host link with the registration objects; a relocatable output is
 * then finished so that nothing in it is registered twice (relocatable.h).
 * The host line is rendered with the table of the release we behave as. */
static int link_host_wrapped(struct ol_cmdline *cl, const struct ol_wrapped *wrapped,
			     enum ol_flavor flavor)
{
	int status;

	cl->flavor = flavor;
	begin_stage("Execute host linker");
	status = ol_host_link(cl, wrapped->objects);
	ol_timer_end();
	if (status == 0 && cl->relocatable) {
		begin_stage("Finish relocatable output");
		status = ol_relocatable_finish(cl, flavor);
		ol_timer_end();
	}
	return status;
}

/* The end of every link with device images: --emit-fatbin-only writes the
 * bundle; otherwise the images are wrapped and the host link runs with the
 * registration objects. */
static int bundle_or_wrap_and_link(struct ol_cmdline *cl, struct ol_groups *groups,
				   struct ol_link_context *ctx)
{
	struct ol_wrapped wrapped;
	int status;

	if (cl->emit_fatbin_only) {
		begin_stage("Bundle linked output");
		status = ol_wrap_write_fat_binary(groups, ctx) < 0 ? 1 : 0;
		ol_timer_end();
		ol_groups_release(groups);
		return status;
	}
	/* Before wrapping: the registration is where an image meets the runtime. */
	ol_warn_images_runtime_refuses(groups, ctx);
	begin_stage("Wrap bundled images");
	end_stage(ol_wrap_all(groups, ctx, &wrapped));
	ol_groups_release(groups);
	return link_host_wrapped(cl, &wrapped, ctx->flavor);
}

static int link_override_images(struct ol_cmdline *cl)
{
	struct ol_inputs no_inputs;
	struct ol_groups groups;
	struct ol_link_context ctx;

	memset(&no_inputs, 0, sizeof(no_inputs));
	memset(&ctx, 0, sizeof(ctx));
	ctx.cl = cl;
	ctx.in = &no_inputs;
	ctx.flavor = cl->flavor != OL_FLAVOR_AUTO ? cl->flavor : OL_FLAVOR_22;
	ol_backend_prefer((int)ctx.flavor);
	ctx.exe_name = base_name(cl->output);
	if (ol_groups_from_override_images(cl, &groups) < 0)
		ol_checkpoint();
	return bundle_or_wrap_and_link(cl, &groups, &ctx);
}

int main(int argc, char **argv)
{
	struct ol_cmdline cl;
	struct ol_inputs in;
	struct ol_groups groups;
	struct ol_link_context ctx;
	struct ol_host_speculation speculation;
	const struct ol_command *command;
	int status, speculating;
	const char *why;
	enum ol_flavor from_line, decided;

	ol_diag_init(argv[0]);
	atexit(release_all);
	/* "offload-link cache|inspect|package|wrap ...": a companion command. */
	ol_help_list_commands(ol_commands);
	command = ol_command_find(argc, argv);
	if (command)
		return command->run(argc - 1, argv + 1);
	if (ol_cmdline_parse(argc, argv, &cl) < 0 || ol_relocatable_check(&cl) < 0)
		ol_checkpoint();
	ol_temp_init(cl.save_temps, cl.dry_run);
	ol_temp_names_enable(!cl.save_temps);
	ol_spawn_configure(cl.dry_run, cl.verbose);
	if (cl.device_link_memory_given)
		ol_memory_budget_set(cl.device_link_memory);
	else
		ol_memory_budget_set_default();
	if (cl.time_trace)
		ol_timer_enable(cl.time_trace_granularity);
	ol_stats_configure(cl.stats != 0, cl.stats == 2);
	ol_progress_configure(cl.quiet || cl.dry_run);
	ol_timer_begin("Execute linker wrapper");
	hand_llvm_options_to_backend(&cl);
	/* LLVM prints and exits while it loads; it returns only on failure. */
	if (asks_llvm_to_print(&cl))
		return finish(&cl, ol_backend_get() ? 0 : 1);

	/* --override-image replaces scanning and device linking (19, 22). */
	if (cl.override_image.nr)
		return finish(&cl, link_override_images(&cl));

	begin_stage("Scan inputs");
	/* Before the inputs are read only the line can say which release it
	 * was written for; AUTO knows every release's options. */
	from_line = ol_cmdline_line_flavor(&cl);
	if (!cl.flavor_given)
		cl.flavor = from_line;
	speculating = !cl.version_unless_22 && ol_host_link_speculate(&cl, &speculation);
	status = ol_inputs_scan(&cl, &in, speculating);
	if (speculating) {
		/* Nothing to offload: the host link that ran meanwhile is the link. */
		if (status == 0 && in.nimages == 0) {
			ol_timer_end();
			return finish(&cl, ol_host_link_adopt(&cl, &speculation));
		}
		ol_host_link_abandon(&speculation);
	}
	end_stage(status);

	/* Nothing to offload: the host link alone, with nothing loaded or
	 * written.  A relocatable output then has nothing of ours to take out:
	 * entries without images (-fopenmp-targets objects whose device code
	 * comes later) keep their names for the link that registers them. */
	if (in.nimages == 0 && !cl.emit_fatbin_only) {
		cl.flavor = decide_flavor(&cl, &in, from_line, &why);
		if (ol_cmdline_version_request(&cl, cl.flavor))
			return finish(&cl, 0);
		begin_stage("Execute host linker");
		status = ol_host_link(&cl, NULL);
		ol_timer_end();
		return finish(&cl, status);
	}

	memset(&ctx, 0, sizeof(ctx));
	ctx.cl = &cl;
	ctx.in = &in;
	decided = decide_flavor(&cl, &in, from_line, &why);
	if (ol_cmdline_version_request(&cl, decided))
		return finish(&cl, 0);
	/* A device link needs one release: the newest when nothing decides. */
	ctx.flavor = decided != OL_FLAVOR_AUTO ? decided : OL_FLAVOR_22;
	cl.flavor = ctx.flavor;
	ol_backend_prefer((int)ctx.flavor);
	ctx.exe_name = base_name(cl.output);
	ctx.cache = ol_cache_open(&(struct ol_cache_options){ cl.no_cache, cl.cache_dir,
							      cl.cache_max_size, cl.remote_storage });
	ol_spawn_note("behaving as clang-linker-wrapper %d (%s)", (int)ctx.flavor, why);

	begin_stage("Resolve archive members");
	end_stage(ol_resolve(&in, &cl));
	begin_stage("Group device images");
	end_stage(ol_group_images(&in, &ctx, &groups));
	/* A kind that cannot be registered fails the link before any device link. */
	if (ol_wrap_check_kinds(&groups) < 0)
		ol_checkpoint();
	ol_stats_images(in.nimages, groups.n);
	ol_warn_unused_offload_archs(&groups, &ctx);
	ol_mapped_drop_pages();
	begin_stage("Link device input");
	status = ol_device_link_all(&groups, &ctx);
	ol_stats_cache(ol_cache_counters(ctx.cache));
	ol_cache_close(ctx.cache);
	end_stage(status);

	return finish(&cl, bundle_or_wrap_and_link(&cl, &groups, &ctx));
}
