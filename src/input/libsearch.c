/*
 * libsearch: -l<name> resolution, the way GNU ld and lld do it (and the way
 * upstream's searchLibrary does for the cases it knows):
 *   - the -L directories are tried in command-line order;
 *   - "-l:file" looks for exactly <dir>/file;
 *   - otherwise each directory is tried for lib<name>.so, then lib<name>.a,
 *     so a shared library hides the archive in the same directory; under
 *     -Bstatic only lib<name>.a is looked for;
 *   - a directory written "=dir" is taken under --sysroot.
 * The first candidate that exists and is not a directory wins.
 */
#include "scan_internal.h"
#include "offload/arena.h"
#include "offload/cmdline.h"
#include "offload/strvec.h"

#include <string.h>
#include <sys/stat.h>

/* dir + "/" + name into sb, without doubling the separator. */
static void join_path(struct strbuf *sb, const char *dir, const char *name)
{
	size_t len = strlen(dir);

	strbuf_add(sb, dir, len);
	if (len && dir[len - 1] != '/')
		strbuf_addch(sb, '/');
	strbuf_addstr(sb, name);
}

/* A -L value as a directory: "=dir" is under the sysroot. */
static void search_dir(struct strbuf *sb, const struct ol_cmdline *cl, const char *dir)
{
	if (dir[0] == '=') {
		const char *root = cl->sysroot ? cl->sysroot : "";
		const char *rest = dir + 1;
		size_t len = strlen(root);

		while (len > 1 && root[len - 1] == '/')
			len--;
		strbuf_add(sb, root, len);
		if (len && root[len - 1] == '/')
			while (*rest == '/')
				rest++;
		else if (len && *rest && *rest != '/')
			strbuf_addch(sb, '/');
		strbuf_addstr(sb, rest);
		return;
	}
	strbuf_addstr(sb, dir);
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* Tries dir/file; on success returns an arena copy of the path. */
static const char *try_candidate(const struct ol_cmdline *cl, const char *dir, const char *file)
{
	struct strbuf base = STRBUF_INIT, path = STRBUF_INIT;
	const char *found = NULL;

	search_dir(&base, cl, dir);
	join_path(&path, strbuf_str(&base), file);
	if (file_exists(strbuf_str(&path)))
		found = ol_arena_strdup(&ol_link_arena, strbuf_str(&path));
	strbuf_release(&base);
	strbuf_release(&path);
	return found;
}

const char *ol_find_library(const struct ol_cmdline *cl, const char *name, int static_only)
{
	struct strbuf shared = STRBUF_INIT, archive = STRBUF_INIT;
	const char *found = NULL;

	if (name[0] == ':') {
		for (size_t i = 0; i < cl->nlib_paths && !found; i++)
			found = try_candidate(cl, cl->lib_paths[i], name + 1);
		return found;
	}
	strbuf_addf(&shared, "lib%s.so", name);
	strbuf_addf(&archive, "lib%s.a", name);
	for (size_t i = 0; i < cl->nlib_paths && !found; i++) {
		if (!static_only)
			found = try_candidate(cl, cl->lib_paths[i], strbuf_str(&shared));
		if (!found)
			found = try_candidate(cl, cl->lib_paths[i], strbuf_str(&archive));
	}
	strbuf_release(&shared);
	strbuf_release(&archive);
	return found;
}
