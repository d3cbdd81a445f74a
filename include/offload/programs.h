/*
 * programs: where the programs a link runs are found (src/support/programs.c).
 * Every lookup goes through ol_find_tool()'s order, so -v says for each
 * program where it was found, whichever stage runs it.
 */
#ifndef OFFLOAD_PROGRAMS_H
#define OFFLOAD_PROGRAMS_H

/* Find an executable: each dir in `dirs` (NULL-terminated, may be NULL), then
 * $PATH.  Returns a malloc'd path, or NULL.  Under --dry-run a missing
 * program yields a copy of the bare name, as upstream does. */
char *ol_find_program(const char *name, const char *const *dirs);

/* Find a tool the link runs (ld.lld, clang, llvm-objcopy, ptxas, nvlink,
 * fatbinary), as upstream does and a little more: in named_dirs (what the
 * user named: --cuda-path), beside offload-link, in $COMPILER_PATH, beside
 * the clang that runs the link (the parent process), in default_dirs (the
 * usual installations), then on $PATH; both lists NULL-terminated, may be
 * NULL.  -v names the tool and where it was found.  Returns as
 * ol_find_program does (under --dry-run a miss gives the bare name). */
char *ol_find_tool(const char *name, const char *const *named_dirs,
		   const char *const *default_dirs);

/* Directory holding this executable (from /proc/self/exe), static storage. */
const char *ol_self_dir(void);

/* An LLVM program of a release (16, 19, 22): ol_find_tool() with
 * /usr/lib/llvm-<release>/bin and extra_dir (may be NULL) as its default
 * directories, then as Debian's "<name>-<release>".  Malloc'd, or NULL
 * (under --dry-run the bare name). */
char *ol_find_llvm_tool(const char *name, int release, const char *extra_dir);

/* ld.lld: the build's LLVM first, then Debian's ld.lld-22 and ld.lld-19. */
char *ol_find_lld(void);

/* A CUDA program (ptxas, nvlink, fatbinary): <cuda_dir>/bin when the user
 * named an installation (cuda_dir may be NULL), then ol_find_tool()'s
 * order with /usr/local/cuda/bin as the usual place. */
char *ol_find_cuda_tool(const char *name, const char *cuda_dir);

#endif
