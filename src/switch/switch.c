/*
 * switch: "offload-link enable|disable|status", the one switch that makes
 * the clang already on the machine run offload-link as its linker wrapper,
 * and takes it back (docs/usage.md, "The switch"; docs/design/switch.md).
 *
 * clang 16 and later read default configuration files from the directory of
 * the clang binary, /usr/lib/llvm-<N>/bin for Debian's; Debian builds clang
 * with no system or user configuration directory, so that directory is the
 * only place.  For driver <d> (clang, clang++) and the default triple <t>,
 * clang reads <t>-<d>.cfg if it is there, else <d>.cfg and <t>.cfg.  enable
 * writes clang.cfg and clang++.cfg there naming offload-link's -B directory
 * (clang 16's also --offload-new-driver: without it clang 16 runs no linker
 * wrapper for OpenMP); disable removes them.  Only a file whose first line
 * is the marker below is ours: any other file at those paths is never
 * replaced or removed.
 *
 * OFFLOAD_LINK_SWITCH_ROOT, for the tests only, stands for the file
 * system's root, so that the logic runs without root on a made-up tree.
 */
#include "offload/diag.h"
#include "offload/programs.h"
#include "offload/spawn.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"
#include "offload/command_line.h"
#include "offload/switch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SWITCH_FAILED = 1 };

/* The releases whose wrapper offload-link replaces (--offload-abi). */
static const int switchable_majors[] = { 16, 19, 22 };
/* The drivers that link: clang-cpp and clang-cl never run the wrapper. */
static const char *const drivers[] = { "clang", "clang++" };
#define NDRIVERS (sizeof(drivers) / sizeof(drivers[0]))

static const char marker[] = "# Written by offload-link enable; offload-link disable removes it.";

/* A configuration file is read whole; a bigger one is not ours anyway. */
#define MAX_CONFIG_SIZE 65536

struct clang_release {
	int major;
	char *bindir;        /* <root>/usr/lib/llvm-<major>/bin */
	int installed;       /* its clang is there */
};

struct clang_releases {
	struct clang_release *v;
	size_t n;
};

static int switchable(int major)
{
	for (size_t i = 0; i < sizeof(switchable_majors) / sizeof(switchable_majors[0]); i++)
		if (switchable_majors[i] == major)
			return 1;
	return 0;
}

static const char *switch_root(void)
{
	const char *root = getenv("OFFLOAD_LINK_SWITCH_ROOT");

	return root ? root : "";
}

static char *release_bindir(int major)
{
	return ol_xasprintf("%s/usr/lib/llvm-%d/bin", switch_root(), major);
}

static int by_major(const void *a, const void *b)
{
	const struct clang_release *x = a, *y = b;

	return (x->major > y->major) - (x->major < y->major);
}

static void add_release(struct clang_releases *list, int major)
{
	struct clang_release *r;
	char *clang;

	list->v = ol_xrealloc(list->v, (list->n + 1) * sizeof(*list->v));
	r = &list->v[list->n++];
	r->major = major;
	r->bindir = release_bindir(major);
	clang = ol_xasprintf("%s/clang", r->bindir);
	r->installed = access(clang, X_OK) == 0;
	free(clang);
}

/* Every /usr/lib/llvm-<N> directory, installed clang or not (a file of ours
 * may outlive the clang it was for), by release. */
static void find_releases(struct clang_releases *list)
{
	char *libdir = ol_xasprintf("%s/usr/lib", switch_root());
	DIR *dir = opendir(libdir);
	struct dirent *e;

	memset(list, 0, sizeof(*list));
	free(libdir);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char *end;
		long major;

		if (strncmp(e->d_name, "llvm-", 5) != 0 || !(e->d_name[5] >= '0' && e->d_name[5] <= '9'))
			continue;
		major = strtol(e->d_name + 5, &end, 10);
		if (*end || major <= 0 || major > 999)
			continue;
		add_release(list, (int)major);
	}
	closedir(dir);
	qsort(list->v, list->n, sizeof(*list->v), by_major);
}

static void release_releases(struct clang_releases *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->v[i].bindir);
	free(list->v);
	memset(list, 0, sizeof(*list));
}

static struct clang_release *find_release(struct clang_releases *list, int major)
{
	for (size_t i = 0; i < list->n; i++)
		if (list->v[i].major == major)
			return &list->v[i];
	return NULL;
}

/* OURS_CHANGED: enable wrote it, and a user added options to it since. */
enum owner { NO_FILE, OURS, OURS_CHANGED, NOT_OURS };

/* Whether a configuration file holds an option line enable does not write
 * (its own are -B<dir> and clang 16's --offload-new-driver; comments are
 * words, which other versions of offload-link word otherwise). */
static int has_options_of_users(const char *text)
{
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len && line[0] != '#' && strncmp(line, "-B", 2) != 0 &&
		    !(len == 20 && strncmp(line, "--offload-new-driver", 20) == 0))
			return 1;
		line = end ? end + 1 : NULL;
	}
	return 0;
}

/* The -B directories a configuration file names, in order ("-B<dir>" and
 * "-B <dir>", one option a line as clang's configuration files have them). */
static void config_b_dirs(const char *text, struct strvec *dirs)
{
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len > 2 && strncmp(line, "-B", 2) == 0) {
			const char *dir = line + 2;

			while (dir < line + len && (*dir == ' ' || *dir == '\t'))
				dir++;
			if (dir < line + len) {
				char *copy = ol_xstrndup(dir, (size_t)(line + len - dir));

				strvec_push(dirs, copy);
				free(copy);
			}
		}
		line = end ? end + 1 : NULL;
	}
}

/* Whether the file's text names -B<dir> for exactly this directory. */
static int names_b_dir(const char *text, const char *dir)
{
	struct strvec dirs = STRVEC_INIT;
	int found = 0;

	config_b_dirs(text, &dirs);
	for (size_t i = 0; i < dirs.nr && !found; i++)
		found = strcmp(dirs.v[i], dir) == 0;
	strvec_release(&dirs);
	return found;
}

/* Whose file `path` is.  Ours is a regular file starting with the marker
 * line (OURS_CHANGED when options of a user's were added to it); its text
 * goes to *text (the caller frees it) when text is given, ours or not.
 * Whatever cannot be read is not ours: it is left alone. */
static enum owner file_owner(const char *path, char **text)
{
	struct stat st;
	struct strbuf content = STRBUF_INIT;
	char chunk[4096];
	size_t n, marker_len = strlen(marker);
	FILE *f;
	enum owner owner;

	if (text)
		*text = NULL;
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return NO_FILE;
		ol_warn("cannot look at '%s': %s", path, strerror(errno));
		return NOT_OURS;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MAX_CONFIG_SIZE)
		return NOT_OURS;
	if (!(f = fopen(path, "r"))) {
		ol_warn("cannot read '%s': %s", path, strerror(errno));
		return NOT_OURS;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && content.len <= MAX_CONFIG_SIZE)
		strbuf_add(&content, chunk, n);
	fclose(f);
	owner = content.len > marker_len && strncmp(strbuf_str(&content), marker, marker_len) == 0 &&
		content.buf[marker_len] == '\n' ? OURS : NOT_OURS;
	if (owner == OURS && has_options_of_users(strbuf_str(&content)))
		owner = OURS_CHANGED;
	if (text)
		*text = strbuf_detach(&content);
	strbuf_release(&content);
	return owner;
}

/* <bindir>/<driver>.cfg, the file enable writes. */
static char *switch_file(const struct clang_release *r, const char *driver)
{
	return ol_xasprintf("%s/%s.cfg", r->bindir, driver);
}

/* <bindir>/<triple>-<driver>.cfg: when there, clang reads it instead. */
static char *shadowing_file(const struct clang_release *r, const char *driver)
{
	return ol_xasprintf("%s/%s-%s.cfg", r->bindir, OL_DEFAULT_TRIPLE, driver);
}

/* <bindir>/<triple>.cfg: read besides <driver>.cfg. */
static char *triple_file(const struct clang_release *r)
{
	return ol_xasprintf("%s/%s.cfg", r->bindir, OL_DEFAULT_TRIPLE);
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* What the file gives clang, for the messages that ask a user to add it to
 * a file of theirs. */
static char *switch_options(const struct clang_release *r, const char *wrapper_dir)
{
	return ol_xasprintf("%s-B%s", r->major == 16 ? "--offload-new-driver " : "", wrapper_dir);
}

static char *switch_file_text(const struct clang_release *r, const char *driver,
			      const char *wrapper_dir)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(&text, "%s\n", marker);
	strbuf_addf(&text,
		    "# %s-%d reads this file whenever it runs (a default configuration file\n"
		    "# beside the binary): a link with offloading runs the clang-linker-wrapper\n"
		    "# of the -B directory below, which is offload-link.\n", driver, r->major);
	if (r->major == 16)
		strbuf_addstr(&text,
			      "# clang 16 runs a linker wrapper for OpenMP only with the new offloading\n"
			      "# driver (later releases use it by default).\n"
			      "--offload-new-driver\n");
	strbuf_addf(&text, "-B%s\n", wrapper_dir);
	return strbuf_detach(&text);
}

/* <prefix>/libexec/offload-link, the directory holding this offload-link
 * under clang's name (the installed layout and the build tree's alike), or
 * NULL once reported. */
static char *own_wrapper_dir(void)
{
	char *dir = ol_xasprintf("%s/../libexec/offload-link", ol_self_dir());
	char *real = realpath(dir, NULL);
	char *wrapper;
	int usable;

	if (!real) {
		ol_error("enable: no directory '%s' beside offload-link: %s (the installed "
			 "layout has libexec/offload-link/clang-linker-wrapper)", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	free(dir);
	wrapper = ol_xasprintf("%s/clang-linker-wrapper", real);
	usable = access(wrapper, X_OK) == 0;
	free(wrapper);
	if (!usable) {
		ol_error("enable: '%s/clang-linker-wrapper' is missing: it is the name clang runs",
			 real);
		free(real);
		return NULL;
	}
	/* A configuration file splits its words at blanks and reads quotes
	 * and backslashes: the path must not need them. */
	if (strpbrk(real, " \t\n\"'\\")) {
		ol_error("enable: '%s' has a blank, quote or backslash, which a clang "
			 "configuration file cannot name as it is; install offload-link elsewhere",
			 real);
		free(real);
		return NULL;
	}
	return real;
}

/* What a failed write in a system directory needs. */
static const char *root_hint(int err)
{
	return err == EACCES || err == EPERM || err == EROFS ? " (the switch changes the system's "
		"clang: run it as root)" : "";
}

static int enable_release(const struct clang_release *r, const char *wrapper_dir)
{
	char *path[NDRIVERS], *have[NDRIVERS], *want[NDRIVERS], *options;
	enum owner owner[NDRIVERS];
	int blocked = 0, changed = 0, theirs = 0, rc = 0, err;

	if (!r->installed)
		return ol_error("enable: clang %d is not installed (no %s/clang)", r->major, r->bindir);
	options = switch_options(r, wrapper_dir);
	for (size_t d = 0; d < NDRIVERS; d++) {
		char *shadow = shadowing_file(r, drivers[d]);

		path[d] = switch_file(r, drivers[d]);
		want[d] = switch_file_text(r, drivers[d], wrapper_dir);
		owner[d] = file_owner(path[d], &have[d]);
		if (exists(shadow)) {
			ol_error("enable: %s-%d reads '%s' instead of %s.cfg: the switch would do "
				 "nothing; add %s to that file yourself", drivers[d], r->major,
				 shadow, drivers[d], options);
			blocked = 1;
		}
		if ((owner[d] == NOT_OURS || owner[d] == OURS_CHANGED) && have[d] &&
		    names_b_dir(have[d], wrapper_dir)) {
			/* A file of the user's that already names offload-link. */
			theirs = 1;
		} else if (owner[d] == OURS_CHANGED) {
			ol_error("enable: '%s' was written by offload-link enable and options were "
				 "added to it since: left as it is; change its -B line to -B%s yourself",
				 path[d], wrapper_dir);
			blocked = 1;
		} else if (owner[d] == NOT_OURS) {
			ol_error("enable: '%s' is there and offload-link did not write it: left as it "
				 "is; add %s to it yourself, or move it away and enable again",
				 path[d], options);
			blocked = 1;
		}
		free(shadow);
	}
	/* All of a release or none: a half-switched clang (clang but not
	 * clang++) would link C and C++ programs differently. */
	for (size_t d = 0; d < NDRIVERS && !blocked; d++) {
		if ((owner[d] == OURS && strcmp(have[d], want[d]) == 0) || owner[d] == NOT_OURS ||
		    owner[d] == OURS_CHANGED)
			continue;
		if (access(r->bindir, W_OK) < 0) {
			err = errno;
			rc = ol_error("enable: cannot write in '%s': %s%s", r->bindir, strerror(err),
				      root_hint(err));
			break;
		}
		/* Ours with other text (another offload-link's directory, an
		 * older version's words): replaced.  None there: created,
		 * never over a file that appeared meanwhile. */
		rc = owner[d] == OURS ? ol_write_file_atomic(path[d], want[d], strlen(want[d]))
				      : ol_write_file_new(path[d], want[d], strlen(want[d]));
		if (rc < 0)
			break;
		changed = 1;
	}
	if (blocked)
		rc = -1;
	if (rc == 0)
		printf("clang %d: %s (%s, %s%s)\n", r->major,
		       changed ? "enabled: its links run offload-link" : "already enabled",
		       path[0], path[1], theirs ? "; a file of yours names -B" : "");
	if (rc == 0 && theirs)
		printf("  a file of yours already names -B%s: left as it is\n", wrapper_dir);
	for (size_t d = 0; d < NDRIVERS; d++) {
		free(path[d]);
		free(have[d]);
		free(want[d]);
	}
	free(options);
	return rc;
}

/* Removes this release's files of ours.  Returns how many, or -1. */
static int disable_release(const struct clang_release *r)
{
	int removed = 0, kept = 0, failed = 0, err;

	for (size_t d = 0; d < NDRIVERS; d++) {
		char *path = switch_file(r, drivers[d]);

		char *text = NULL;
		struct strvec dirs = STRVEC_INIT;

		switch (file_owner(path, &text)) {
		case OURS_CHANGED:
			/* Removing it would take the user's own options with it. */
			config_b_dirs(text, &dirs);
			ol_note("'%s' was written by offload-link enable, and options were added to it "
				"since: left as it is; to stop running offload-link, remove its line "
				"'-B%s'", path, dirs.nr ? dirs.v[dirs.nr - 1] : "<dir>");
			kept++;
			break;
		case OURS:
			if (unlink(path) == 0) {
				removed++;
				break;
			}
			err = errno;
			failed = ol_error("disable: cannot remove '%s': %s%s", path, strerror(err),
					  root_hint(err));
			break;
		case NOT_OURS:
			ol_note("'%s' was not written by offload-link: left as it is", path);
			break;
		case NO_FILE:
			break;
		}
		strvec_release(&dirs);
		free(text);
		free(path);
	}
	if (removed && !kept)
		printf("clang %d: disabled: its links run its own clang-linker-wrapper again\n",
		       r->major);
	else if (kept)
		printf("clang %d: %d file%s of offload-link's removed, %d left with options of yours "
		       "(note above)\n", r->major, removed, removed == 1 ? "" : "s", kept);
	return failed ? -1 : removed + kept;
}

/* ---- the command lines ------------------------------------------------------ */

static const struct ol_command_option no_options[] = { { 0, NULL, NULL, NULL, 0 } };

static const char switch_description[] =
	"enable makes clang 16, 19 and 22 (those named, else every one installed) run\n"
	"offload-link as their linker wrapper, for every user, by writing clang.cfg and\n"
	"clang++.cfg beside each clang (/usr/lib/llvm-N/bin); disable removes those\n"
	"files; status says which clang runs which wrapper, and why.  A file there that\n"
	"offload-link did not write is never replaced or removed.  enable and disable\n"
	"need root.  Exit status: 0, 1 on failure, 2 on a usage error.";

static const char *const releases_synopsis[] = { "[16|19|22]...", NULL };
static const char *const status_synopsis[] = { "", NULL };

static const struct ol_command_line enable_line = {
	"enable", releases_synopsis, switch_description, "the switch", no_options, 0,
};
static const struct ol_command_line disable_line = {
	"disable", releases_synopsis, switch_description, "the switch", no_options, 0,
};
static const struct ol_command_line status_line_spec = {
	"status", status_synopsis, switch_description, "the switch", no_options, 0,
};

/* The releases named on the command line (none: all). */
struct named_releases {
	const char *command;
	int *majors;
	int n;
};

static int take_release(void *ctx, int id, const char *value)
{
	struct named_releases *r = ctx;
	char *end;
	long major;

	(void)id;   /* no options: every word is a release */
	major = strtol(value, &end, 10);
	if (!value[0] || *end || !switchable((int)major))
		return ol_command_usage(r->command, "'%s' is not a clang release offload-link "
					"switches (16, 19 or 22)", value);
	r->majors[r->n++] = (int)major;
	return 0;
}

/* Reads the command line into *r; 0 to go on, else the exit status. */
static int read_releases(const struct ol_command_line *line, int argc, char **argv,
			 struct named_releases *r)
{
	int rc;

	r->command = line->command;
	r->majors = ol_xcalloc((size_t)argc, sizeof(*r->majors));
	r->n = 0;
	rc = ol_command_line_read(line, argc, argv, take_release, r);
	if (rc) {
		free(r->majors);
		r->majors = NULL;
	}
	return rc == 1 ? -1 : rc;
}

int ol_enable_command(int argc, char **argv)
{
	struct clang_releases list;
	struct named_releases named;
	char *wrapper_dir;
	int *majors, nmajors, failed = 0, enabled = 0, rc;

	if ((rc = read_releases(&enable_line, argc, argv, &named)))
		return rc < 0 ? 0 : rc;
	majors = named.majors;
	nmajors = named.n;
	if (!(wrapper_dir = own_wrapper_dir())) {
		free(majors);
		return SWITCH_FAILED;
	}
	ol_temp_init(0, 0);
	find_releases(&list);
	if (nmajors) {
		for (int i = 0; i < nmajors; i++) {
			struct clang_release *r = find_release(&list, majors[i]);

			if (!r) {
				add_release(&list, majors[i]);
				r = &list.v[list.n - 1];
			}
			failed |= enable_release(r, wrapper_dir) < 0;
		}
	} else {
		for (size_t i = 0; i < list.n; i++) {
			if (!list.v[i].installed || !switchable(list.v[i].major))
				continue;
			failed |= enable_release(&list.v[i], wrapper_dir) < 0;
			enabled++;
		}
		if (!enabled)
			failed = ol_error("enable: no clang 16, 19 or 22 is installed "
					  "(%s/usr/lib/llvm-N/bin/clang)", switch_root()) < 0;
	}
	release_releases(&list);
	free(wrapper_dir);
	free(majors);
	return failed ? SWITCH_FAILED : 0;
}

int ol_disable_command(int argc, char **argv)
{
	struct clang_releases list;
	struct named_releases asked;
	int *majors, nmajors, failed = 0, removed = 0, n, rc;

	if ((rc = read_releases(&disable_line, argc, argv, &asked)))
		return rc < 0 ? 0 : rc;
	majors = asked.majors;
	nmajors = asked.n;
	find_releases(&list);
	/* Every release when none is named, installed or not: a file of ours
	 * may outlive its clang. */
	for (size_t i = 0; i < list.n; i++) {
		int named = !nmajors;

		for (int k = 0; k < nmajors; k++)
			named |= majors[k] == list.v[i].major;
		if (!named)
			continue;
		n = disable_release(&list.v[i]);
		if (n < 0)
			failed = 1;
		else
			removed += n;
	}
	if (!removed && !failed)
		printf("offload-link is not enabled for %s\n", nmajors ? "the clang named" : "any clang");
	release_releases(&list);
	free(majors);
	return failed ? SWITCH_FAILED : 0;
}

/* Whether `dir` holds a clang-linker-wrapper that is offload-link. */
static int names_offload_link(const char *dir)
{
	char *wrapper = ol_xasprintf("%s/clang-linker-wrapper", dir);
	char *real = realpath(wrapper, NULL);
	const char *base = real ? strrchr(real, '/') : NULL;
	int ours = base && strcmp(base + 1, "offload-link") == 0;

	free(wrapper);
	free(real);
	return ours;
}

/* The first COMPILER_PATH directory clang would find offload-link in, or
 * NULL (clang looks there after the -B directories). */
static char *compiler_path_offload_link(void)
{
	const char *list = getenv("COMPILER_PATH");
	char *copy, *dir, *save = NULL, *found = NULL;

	if (!list || !*list)
		return NULL;
	copy = ol_xstrdup(list);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save))
		if (names_offload_link(dir))
			found = ol_xstrdup(dir);
	free(copy);
	return found;
}

/* Which clang-linker-wrapper a configuration file of the user's makes clang
 * run: the first of its -B directories that holds one (clang searches them
 * in order), then COMPILER_PATH's, then clang's own. */
static char *wrapper_a_file_runs(const char *path, const char *env_dir)
{
	char *text = NULL, *found = NULL;
	struct strvec dirs = STRVEC_INIT;

	file_owner(path, &text);
	if (text)
		config_b_dirs(text, &dirs);
	for (size_t i = 0; i < dirs.nr && !found; i++) {
		char *wrapper = ol_xasprintf("%s/clang-linker-wrapper", dirs.v[i]);

		if (access(wrapper, X_OK) == 0)
			found = names_offload_link(dirs.v[i])
					? ol_xasprintf("it runs offload-link (-B%s)", dirs.v[i])
					: ol_xasprintf("it runs the clang-linker-wrapper of -B%s, not "
						       "offload-link", dirs.v[i]);
		free(wrapper);
	}
	if (!found)
		found = env_dir ? ol_xasprintf("it names no -B with a clang-linker-wrapper: offload-link "
					       "through COMPILER_PATH (%s)", env_dir)
				: ol_xstrdup("it names no -B with a clang-linker-wrapper: clang's own");
	strvec_release(&dirs);
	free(text);
	return found;
}

/* One line: which wrapper <driver>-<N> runs for an offloading link, and why. */
static void status_line(const struct clang_release *r, const char *driver, const char *env_dir)
{
	char *path = switch_file(r, driver), *shadow = shadowing_file(r, driver);
	char *triple = triple_file(r);
	enum owner owner = NO_FILE;
	const char *other = NULL;   /* a file clang reads that is not ours */
	const char *own = "its own clang-linker-wrapper";

	printf("%s-%d: ", driver, r->major);
	if (r->major < 16) {
		/* No default configuration files before 16. */
		if (env_dir)
			printf("offload-link (COMPILER_PATH names %s; offload-link links for "
			       "clang 16, 19 and 22)\n", env_dir);
		else
			printf("%s (offload-link links for clang 16, 19 and 22)\n", own);
		goto out;
	}
	if (exists(shadow)) {
		other = shadow;
	} else {
		owner = file_owner(path, NULL);
		if (owner == NOT_OURS)
			other = path;
		else if (owner == NO_FILE && exists(triple))
			other = triple;
	}
	if (owner == OURS || owner == OURS_CHANGED) {
		printf("offload-link (it reads %s, written by offload-link enable%s%s)\n", path,
		       r->major == 16 ? ", which adds --offload-new-driver" : "",
		       owner == OURS_CHANGED ? ", with options of yours added" : "");
	} else if (other) {
		char *runs = wrapper_a_file_runs(other, env_dir);

		printf("set by %s (clang reads it; offload-link did not write it): %s\n", other, runs);
		free(runs);
	} else if (env_dir) {
		printf("offload-link (COMPILER_PATH names %s%s)\n", env_dir,
		       r->major == 16 ? "; for OpenMP only with --offload-new-driver" : "");
	} else {
		printf("%s (%s)\n", own, switchable(r->major) ? "no configuration file names "
		       "offload-link" : "offload-link links for clang 16, 19 and 22");
	}
	/* Ours is there but not read: say what stands in its way. */
	if (other == shadow && file_owner(path, NULL) == OURS)
		printf("  %s is not read: %s takes its place\n", path, shadow);
out:
	free(path);
	free(shadow);
	free(triple);
}

int ol_status_command(int argc, char **argv)
{
	struct clang_releases list;
	struct named_releases named;
	char *env_dir;
	int shown = 0, rc;

	if ((rc = read_releases(&status_line_spec, argc, argv, &named)))
		return rc < 0 ? 0 : rc;
	free(named.majors);
	if (named.n)
		return ol_command_usage("status", "unexpected argument '%s'", argv[argc - 1]);
	find_releases(&list);
	env_dir = compiler_path_offload_link();
	for (size_t i = 0; i < list.n; i++) {
		if (!list.v[i].installed)
			continue;
		for (size_t d = 0; d < NDRIVERS; d++)
			status_line(&list.v[i], drivers[d], env_dir);
		shown++;
	}
	if (!shown)
		printf("no clang is installed (%s/usr/lib/llvm-N/bin/clang)\n", switch_root());
	free(env_dir);
	release_releases(&list);
	return 0;
}
