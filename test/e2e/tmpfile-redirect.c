/*
 * tmpfile-redirect: an LD_PRELOAD module for the end-to-end tests.
 *
 * libomptarget's CPU plugin (LLVM 16 and 19) writes every device image it
 * loads to mkstemp("/tmp/tmpfile_XXXXXX"), dlopens it and never removes it,
 * and it ignores $TMPDIR.  Run in a loop, the test suite would fill /tmp.
 * This module interposes mkstemp and, for exactly that template, creates the
 * file in the directory named by $OL_TMPFILE_DIR instead, which the test
 * runner removes after the program exits, whatever way it exits.
 *
 * The plugin's buffer holds the template and nothing more (20 bytes), so the
 * new name must not be longer: the runner uses a directory like /tmp/AbC123
 * (from mktemp -d /tmp/XXXXXX) and the file becomes /tmp/AbC123/XXXXXX.
 * Any other template, or a directory name too long, goes to the real mkstemp
 * unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static const char plugin_template[] = "/tmp/tmpfile_XXXXXX";

int mkstemp(char *template);

int mkstemp(char *template)
{
	int (*real_mkstemp)(char *) = (int (*)(char *))dlsym(RTLD_NEXT, "mkstemp");
	const char *dir = getenv("OL_TMPFILE_DIR");

	if (!real_mkstemp)
		abort();
	if (dir && strcmp(template, plugin_template) == 0) {
		size_t dir_len = strlen(dir);
		/* dir + "/" + "XXXXXX" must fit where the template was. */
		if (dir_len > 0 && dir_len + 1 + 6 <= sizeof(plugin_template) - 1) {
			memcpy(template, dir, dir_len);
			memcpy(template + dir_len, "/XXXXXX", sizeof("/XXXXXX"));
		}
	}
	return real_mkstemp(template);
}
