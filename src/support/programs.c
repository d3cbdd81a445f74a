/*
 * programs: where the programs a link runs are found (include/offload/programs.h):
 * one search order for all of them, the places each kind of tool lives,
 * and this executable's own directory.
 */
#include "offload/programs.h"
#include "offload/diag.h"
#include "offload/spawn.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* name in dir, when it is an executable there; malloc'd. */
static char *in_dir(const char *dir, size_t len, const char *name)
{
	char *candidate = ol_xasprintf("%.*s/%s", (int)len, len ? dir : ".", name);

	if (is_executable(candidate))
		return candidate;
	free(candidate);
	return NULL;
}

/* name in a colon-separated list of directories ($PATH, $COMPILER_PATH). */
static char *in_dir_list(const char *list, const char *name)
{
	while (list && *list) {
		const char *end = strchr(list, ':');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		char *found = in_dir(list, len, name);

		if (found)
			return found;
		list = end ? end + 1 : NULL;
	}
	return NULL;
}

static char *in_dirs(const char *const *dirs, const char *name)
{
	for (; dirs && *dirs; dirs++) {
		char *found = in_dir(*dirs, strlen(*dirs), name);

		if (found)
			return found;
	}
	return NULL;
}

char *ol_find_program(const char *name, const char *const *dirs)
{
	char *found;

	if (strchr(name, '/'))
		return is_executable(name) || ol_spawn_config()->dry_run ? ol_xstrdup(name) : NULL;
	found = in_dirs(dirs, name);
	if (!found)
		found = in_dir_list(getenv("PATH"), name);
	return found || !ol_spawn_config()->dry_run ? found : ol_xstrdup(name);
}

static char parent_clang[PATH_MAX];

/* The clang that runs this link: our parent process, when its executable's
 * name starts with "clang" (clang, clang-19, clang++). */
static void find_parent_clang(void)
{
	char link[64];
	ssize_t n;
	const char *base;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)getppid());
	n = readlink(link, parent_clang, sizeof(parent_clang) - 1);
	parent_clang[n > 0 ? n : 0] = '\0';
	base = strrchr(parent_clang, '/');
	if (!base || strncmp(base + 1, "clang", 5) != 0)
		parent_clang[0] = '\0';
}

static const char *clang_running_us(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_parent_clang);
	return parent_clang;
}

char *ol_find_tool(const char *name, const char *const *named_dirs,
		   const char *const *default_dirs)
{
	const char *clang = clang_running_us();
	const char *where = NULL;
	char *found = NULL;

	if (strchr(name, '/'))
		return ol_find_program(name, NULL);
	if ((found = in_dirs(named_dirs, name))) {
		where = "in the directory named on the command line";
	} else if ((found = in_dir(ol_self_dir(), strlen(ol_self_dir()), name))) {
		where = "beside offload-link";
	} else if ((found = in_dir_list(getenv("COMPILER_PATH"), name))) {
		where = "in COMPILER_PATH";
	} else if (*clang && (found = in_dir(clang, (size_t)(strrchr(clang, '/') - clang), name))) {
		where = "beside the clang that runs the link";
	} else if ((found = in_dirs(default_dirs, name))) {
		where = "in the default directories";
	} else if ((found = in_dir_list(getenv("PATH"), name))) {
		where = "on PATH";
	}
	if (found)
		ol_spawn_note("using %s for '%s' (%s)", found, name, where);
	return found || !ol_spawn_config()->dry_run ? found : ol_xstrdup(name);
}

static char self_dir[PATH_MAX];

static void find_self_dir(void)
{
	ssize_t n = readlink("/proc/self/exe", self_dir, sizeof(self_dir) - 1);
	char *slash;

	if (n <= 0) {
		strcpy(self_dir, ".");
		return;
	}
	self_dir[n] = '\0';
	slash = strrchr(self_dir, '/');
	if (slash)
		*slash = '\0';
}

/* Once: device jobs ask from several threads, and two that both cut the
 * last component off the one buffer cut off two. */
const char *ol_self_dir(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_self_dir);
	return self_dir;
}

char *ol_find_llvm_tool(const char *name, int release, const char *extra_dir)
{
	char *release_dir = ol_xasprintf("/usr/lib/llvm-%d/bin", release);
	char *versioned = ol_xasprintf("%s-%d", name, release);
	const char *const dirs[] = { release_dir, extra_dir, NULL };
	char *tool = ol_find_tool(name, NULL, dirs);

	/* Without --dry-run, a miss above comes back NULL: try Debian's name-N. */
	if (!tool)
		tool = ol_find_tool(versioned, NULL, NULL);
	free(release_dir);
	free(versioned);
	return tool;
}

char *ol_find_lld(void)
{
	static const char *const names[] = { "ld.lld", "ld.lld-22", "ld.lld-19" };
	const char *const dirs[] = { OL_LLVM_BINDIR, NULL };

	/* Under --dry-run a missing program comes back as its bare name, so
	 * the first lookup always answers there. */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *lld = ol_find_tool(names[i], NULL, i == 0 ? dirs : NULL);
		if (lld)
			return lld;
	}
	return NULL;
}

char *ol_find_cuda_tool(const char *name, const char *cuda_dir)
{
	char *named_bin = cuda_dir ? ol_xasprintf("%s/bin", cuda_dir) : NULL;
	const char *const named[] = { named_bin, NULL };
	const char *const usual[] = { "/usr/local/cuda/bin", NULL };
	char *program = ol_find_tool(name, named, usual);

	free(named_bin);
	return program;
}
