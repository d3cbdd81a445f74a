/* host_link: the final host linker run.  See offload/host_link.h. */
#include "offload/host_link.h"
#include "offload/depfile.h"
#include "offload/diag.h"
#include "offload/spawn.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the output, written under a private name ------------------------------ */

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

	/* Every one starts with '-'; most of a line is paths. */
	if (arg[0] != '-')
		return 0;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (ol_starts_with(arg, prefixes[i]))
			return 1;
	return 0;
}

/*
 * The host link's line (the linker first).  The output is written under a
 * private name beside it (*tmp), renamed over it only when the link
 * succeeded (commit_output), so that no failure, signal or SIGKILL leaves a
 * half-written output (GNU ld writes in place) or a speculative one.  The
 * name is registered for removal and left free: a linker that writes
 * nothing leaves nothing to rename.  *tmp NULL: the linker writes the output
 * itself (--dry-run, no file output such as /dev/null or a symbolic link,
 * no -o (COFF's /out:), or a line whose options name the output in other
 * files they write).  The line is rendered once, the output's place marked.
 */
static void host_line(const struct ol_cmdline *cl, const char *const *wrapper_objs,
		      struct strvec *argv, const char **tmp)
{
	static const char marker[] = "\x01offload-link-output";
	int plain = 1, named = 0;
	struct stat st;

	*tmp = NULL;
	strvec_push(argv, cl->linker_path);
	if (cl->dry_run || !cl->output || !*cl->output ||
	    (lstat(cl->output, &st) == 0 ? !S_ISREG(st.st_mode) : errno != ENOENT)) {
		ol_cmdline_render_host(cl, wrapper_objs, argv);
		return;
	}
	ol_cmdline_render_host_to(cl, marker, wrapper_objs, argv);
	for (size_t i = 1; i < argv->nr; i++) {
		plain &= !writes_side_files(argv->v[i]);
		named |= strcmp(argv->v[i], marker) == 0;
	}
	if (plain && named)
		*tmp = ol_temp_name_beside(cl->output);
	for (size_t i = 1; i < argv->nr; i++) {
		if (strcmp(argv->v[i], marker) == 0) {
			free(argv->v[i]);
			argv->v[i] = ol_xstrdup(*tmp ? *tmp : cl->output);
		}
	}
}

/* A successful link: the private output becomes the output. */
static int commit_output(const char *tmp, const char *output)
{
	struct stat st;

	if (!tmp || lstat(tmp, &st) < 0)   /* nothing written: nothing to rename */
		return 0;
	/* ext4 writes a file renamed over another out at once (auto_da_alloc,
	 * 0.1 ms on every link); the old output goes first, as GNU ld and lld
	 * remove it before they write. */
	if (lstat(output, &st) == 0 && S_ISREG(st.st_mode))
		unlink(output);
	return ol_temp_commit(tmp, output);
}

int ol_host_link(const struct ol_cmdline *cl, const char *const *wrapper_objs)
{
	struct strvec argv = STRVEC_INIT;
	const char *tmp;
	int status;

	if (!cl->linker_path || !*cl->linker_path) {
		ol_error("linker path missing, must pass 'linker-path'");
		return 1;
	}
	host_line(cl, wrapper_objs, &argv, &tmp);
	status = ol_spawn_wait(&argv);
	strvec_release(&argv);
	if (status == 0 && commit_output(tmp, cl->output) < 0)
		status = 1;
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

	memset(spec, 0, sizeof(*spec));
	if (sc->dry_run || sc->verbose || cl->save_temps || cl->time_trace || !cl->output ||
	    cl->emit_fatbin_only ||
	    !cl->linker_path || !*cl->linker_path || cl->nlink_items < SPECULATE_MIN_ITEMS ||
	    links_offload_runtime(cl))
		return 0;
	/* Only under a private name: a link that is dropped, or a tool that is
	 * killed, must leave the output as it was. */
	host_line(cl, NULL, &argv, &spec->output);
	if (!spec->output) {
		strvec_release(&argv);
		return 0;
	}
	spec->active = ol_spawn_captured(&argv, &spec->child) == 0;
	strvec_release(&argv);
	return spec->active;
}

int ol_host_link_adopt(const struct ol_cmdline *cl, struct ol_host_speculation *spec)
{
	int status = ol_child_finish(&spec->child);

	spec->active = 0;
	if (status == 0 && commit_output(spec->output, cl->output) < 0)
		status = 1;
	return status < 0 ? 1 : status;
}

void ol_host_link_abandon(struct ol_host_speculation *spec)
{
	if (!spec->active)
		return;
	/* What it wrote is under the private name, removed with the temp files. */
	ol_child_abandon(&spec->child);
	spec->active = 0;
}
