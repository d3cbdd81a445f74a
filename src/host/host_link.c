/* host_link: the final host linker run.  See offload/host_link.h. */
#include "offload/host_link.h"
#include "offload/diag.h"
#include "offload/spawn.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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
	/* The linker has said why it failed; its status passes through as is. */
	return status < 0 ? 1 : status;
}

/* ---- the speculative host link --------------------------------------------- */

/* Fewer inputs than this scan faster than the bookkeeping pays off. */
#define SPECULATE_MIN_ITEMS 16

/* Options with which the linker writes files named after the output or does
 * LTO (temp files, maps, dependency lists, plugins): such a link is not
 * started early under another name. */
static int changes_with_output_name(const char *arg)
{
	static const char *const prefixes[] = {
		"-plugin", "--plugin", "-flto", "--lto", "-Map", "--Map", "--print-map", "-M",
		"--dependency-file", "-save-temps", "--save-temps", "--out-implib", "--pdb",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(arg, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

/* The index of the output path in argv if "-o <output>" occurs exactly once
 * and nothing else on the line stands in the way; 0 otherwise. */
static size_t output_slot(const struct strvec *argv, const char *output)
{
	size_t slot = 0;

	for (size_t i = 1; i < argv->nr; i++) {
		if (changes_with_output_name(argv->v[i]))
			return 0;
		if (strcmp(argv->v[i], "-o") == 0) {
			if (slot || i + 1 >= argv->nr || strcmp(argv->v[i + 1], output) != 0)
				return 0;
			slot = ++i;
		}
	}
	return slot;
}

static int directory_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ok;

	if (!slash)
		return access(".", W_OK) == 0;
	dir = slash == path ? ol_xstrdup("/") : ol_xstrndup(path, (size_t)(slash - path));
	ok = access(dir, W_OK) == 0;
	free(dir);
	return ok;
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
	size_t slot;

	memset(spec, 0, sizeof(*spec));
	if (sc->dry_run || sc->verbose || cl->save_temps || cl->time_trace || !cl->output ||
	    !cl->linker_path || !*cl->linker_path || cl->nlink_items < SPECULATE_MIN_ITEMS ||
	    links_offload_runtime(cl))
		return 0;
	/* Only a regular file (or none) may be replaced by rename(): not a
	 * device such as /dev/null, not a symbolic link. */
	if (lstat(cl->output, &st) == 0 ? !S_ISREG(st.st_mode) : errno != ENOENT)
		return 0;
	/* Nor when the linker would fail to write there: its message would
	 * name the temp file instead of the output. */
	if (!directory_writable(cl->output))
		return 0;
	strvec_push(&argv, cl->linker_path);
	ol_cmdline_render_host(cl, NULL, &argv);
	slot = output_slot(&argv, cl->output);
	if (!slot) {
		strvec_release(&argv);
		return 0;
	}
	/* Next to the output, so that the rename stays on one file system. */
	spec->tmp_output = ol_xasprintf("%s.offload-link-%ld", cl->output, (long)getpid());
	unlink(spec->tmp_output);
	ol_temp_register(spec->tmp_output);
	free(argv.v[slot]);
	argv.v[slot] = ol_xstrdup(spec->tmp_output);
	spec->active = ol_spawn_captured(&argv, &spec->child) == 0;
	if (spec->active)
		ol_temp_set_writer(spec->child.pid);
	strvec_release(&argv);
	if (!spec->active) {
		ol_temp_forget(spec->tmp_output);
		free(spec->tmp_output);
		spec->tmp_output = NULL;
	}
	return spec->active;
}

int ol_host_link_adopt(const struct ol_cmdline *cl, struct ol_host_speculation *spec)
{
	int status = ol_child_finish(&spec->child);

	ol_temp_set_writer(0);
	spec->active = 0;
	if (status == 0 && rename(spec->tmp_output, cl->output) < 0) {
		ol_error("cannot rename '%s' to '%s': %s", spec->tmp_output, cl->output,
			 strerror(errno));
		status = 1;
	}
	if (status == 0)
		ol_temp_forget(spec->tmp_output);   /* it is the output now */
	else
		unlink(spec->tmp_output);
	free(spec->tmp_output);
	spec->tmp_output = NULL;
	return status < 0 ? 1 : status;
}

void ol_host_link_abandon(struct ol_host_speculation *spec)
{
	if (!spec->active)
		return;
	ol_child_abandon(&spec->child);
	ol_temp_set_writer(0);
	unlink(spec->tmp_output);
	free(spec->tmp_output);
	spec->tmp_output = NULL;
	spec->active = 0;
}
