/* host_link: the final host linker run.  See offload/host_link.h. */
#include "offload/host_link.h"
#include "offload/depfile.h"
#include "offload/diag.h"
#include "offload/spawn.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ol_host_link(const struct ol_cmdline *cl, const char *const *wrapper_objs)
{
	struct strvec argv = STRVEC_INIT;
	int status;

	if (!cl->linker_path || !*cl->linker_path) {
		ol_error("linker path missing, must pass 'linker-path'");
		return 1;
	}
	strvec_push(&argv, cl->linker_path);
	ol_cmdline_render_host(cl, wrapper_objs, &argv);
	status = ol_spawn_wait(&argv);
	strvec_release(&argv);
	/* The registration objects are temp files: out of the dependency list,
	 * or every build tool relinks every time. */
	if (status == 0 && wrapper_objs && ol_depfile_path(cl) && !cl->dry_run) {
		size_t n = 0;
		while (wrapper_objs[n])
			n++;
		if (ol_depfile_scrub(ol_depfile_path(cl), wrapper_objs, n) < 0)
			status = 1;
	}
	/* The linker has said why it failed; its status passes through as is. */
	return status < 0 ? 1 : status;
}

/* ---- the speculative host link --------------------------------------------- */

/* Fewer inputs than this scan faster than the bookkeeping pays off. */
#define SPECULATE_MIN_ITEMS 16

/* Options with which the linker writes files besides the output or does
 * LTO (maps, dependency lists, traces, reproducers, plugins and their temp
 * files): an early link that gets killed could leave those half-written. */
static int writes_side_files(const char *arg)
{
	static const char *const prefixes[] = {
		"-plugin", "--plugin", "-flto", "--lto", "-lto", "--thinlto", "-thinlto",
		"-Map", "--Map", "--print-map", "-M", "--dependency-file", "-save-temps",
		"--save-temps", "--time-trace", "-time-trace", "--reproduce", "-reproduce",
		"--separate-debug-file", "--incremental", "--out-implib", "--pdb",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (ol_starts_with(arg, prefixes[i]))
			return 1;
	return 0;
}

/* A line that links the offloading runtime almost surely carries device
 * code: starting the host link early would only take a core from the scan. */
static int links_offload_runtime(const struct ol_cmdline *cl)
{
	for (size_t i = 0; i < cl->nlink_items; i++)
		if (cl->link_items[i].kind == OL_LINK_LIBRARY &&
		    strcmp(cl->link_items[i].value, "omptarget") == 0)
			return 1;
	return 0;
}

int ol_host_link_speculate(const struct ol_cmdline *cl, struct ol_host_speculation *spec)
{
	const struct ol_spawn_config *sc = ol_spawn_config();
	struct strvec argv = STRVEC_INIT;
	struct stat st;

	memset(spec, 0, sizeof(*spec));
	if (sc->dry_run || sc->verbose || cl->save_temps || cl->time_trace || !cl->output ||
	    cl->emit_fatbin_only ||
	    !cl->linker_path || !*cl->linker_path || cl->nlink_items < SPECULATE_MIN_ITEMS ||
	    links_offload_runtime(cl))
		return 0;
	/* Only a regular file (or none) may be removed if the early link is
	 * dropped: not a device such as /dev/null, not a symbolic link. */
	if (lstat(cl->output, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return 0;
		spec->had_output = 1;
		spec->output_dev = (unsigned long long)st.st_dev;
		spec->output_ino = (unsigned long long)st.st_ino;
		spec->output_mtime = st.st_mtim;
	} else if (errno != ENOENT) {
		return 0;
	}
	strvec_push(&argv, cl->linker_path);
	ol_cmdline_render_host(cl, NULL, &argv);
	for (size_t i = 1; i < argv.nr; i++) {
		if (writes_side_files(argv.v[i])) {
			strvec_release(&argv);
			return 0;
		}
	}
	spec->active = ol_spawn_captured(&argv, &spec->child) == 0;
	strvec_release(&argv);
	/* Until the link is adopted, the output is not this link's: a signal
	 * or a crash that ends the tool removes it with the temp files (the
	 * linker, stopped first, may have written all of it or none). */
	if (spec->active) {
		spec->output = cl->output;
		ol_temp_register(spec->output);
	}
	return spec->active;
}

int ol_host_link_adopt(struct ol_host_speculation *spec)
{
	int status = ol_child_finish(&spec->child);

	spec->active = 0;
	/* A failed link leaves no output: the registry removes it at exit. */
	if (status == 0)
		ol_temp_forget(spec->output);
	return status < 0 ? 1 : status;
}

void ol_host_link_abandon(const struct ol_cmdline *cl, struct ol_host_speculation *spec)
{
	struct stat st;

	if (!spec->active)
		return;
	ol_child_abandon(&spec->child);
	spec->active = 0;
	ol_temp_forget(spec->output);
	/* What the stopped link wrote is not this link's output: a new file (or
	 * the old one rewritten) goes, so that no half-written output is left
	 * if the rest of the link fails.  The real host link writes it again. */
	if (lstat(cl->output, &st) == 0 && S_ISREG(st.st_mode) &&
	    (!spec->had_output || (unsigned long long)st.st_dev != spec->output_dev ||
	     (unsigned long long)st.st_ino != spec->output_ino ||
	     st.st_mtim.tv_sec != spec->output_mtime.tv_sec ||
	     st.st_mtim.tv_nsec != spec->output_mtime.tv_nsec))
		unlink(cl->output);
}
