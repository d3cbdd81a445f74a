/*
 * depfile: the host linker's dependency file (--dependency-file=, which CMake
 * 3.27+ and Ninja users pass) without offload-link's own temp files.
 *
 * The linker lists every input, and the registration objects offload-link
 * adds are temp files that are gone when the build tool reads the list: a
 * prerequisite that does not exist makes make and Ninja relink every time
 * (a no-op rebuild that relinks everything).  After a successful host link
 * the file is rewritten without them, atomically.
 */
#ifndef OFFLOAD_DEPFILE_H
#define OFFLOAD_DEPFILE_H

#include <stddef.h>

/* Pure: the make-style text `in` without the files named in drop (n of
 * them): not as prerequisites, not as the empty rules that follow.  The
 * result is malloc'd; *out_size its length. */
char *ol_depfile_without(const char *in, size_t size, const char *const *drop, size_t n,
			 size_t *out_size);

/* The dependency file the host line asks for (the last --dependency-file=
 * or --dependency-file <f>), or NULL. */
struct ol_cmdline;
const char *ol_depfile_path(const struct ol_cmdline *cl);

/* Rewrites `path` without `drop`; a missing file is not an error (the linker
 * may not support the option).  Returns 0 or -1 (reported). */
int ol_depfile_scrub(const char *path, const char *const *drop, size_t n);

#endif
