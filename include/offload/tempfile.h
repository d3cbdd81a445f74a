/*
 * tempfile: every file the tool writes besides its final outputs goes through
 * this registry.  Registered files are unlinked at exit (atexit) and on
 * SIGINT/SIGTERM/SIGHUP/SIGPIPE, unless --save-temps made them permanent.
 *
 * ol_temp_create(): with save-temps, creates "./<prefix>.<ext>" (deterministic
 * names, as upstream); otherwise "$TMPDIR/<prefix>-XXXXXX.<ext>" via mkstemps.
 * Returns an arena-owned path, the open fd in *fd_out (O_CLOEXEC) when fd_out
 * is non-NULL (else the fd is closed), or NULL after reporting an error.
 *
 * ol_write_file_atomic(): a final output is written to a temp file next to it
 * and renamed into place only on success, so a failed link never leaves a
 * half-written output.  ol_temp_create_beside() and ol_temp_commit() are the
 * same two steps for outputs another program writes.
 *
 * Thread safe (a mutex guards the registry; the signal handler only reads).
 */
#ifndef OFFLOAD_TEMPFILE_H
#define OFFLOAD_TEMPFILE_H

#include <stddef.h>

/* dry_run: ol_temp_create and ol_temp_write only make names (what the
 * commands --dry-run prints refer to); no file is created or written. */
void ol_temp_init(int save_temps, int dry_run);
const char *ol_temp_create(const char *prefix, const char *ext, int *fd_out);
/* Register an existing path for removal at exit (e.g. a child's output). */
void ol_temp_register(const char *path);
/* Write a whole buffer to a new temp file; returns its path or NULL. */
const char *ol_temp_write(const char *prefix, const char *ext, const void *data, size_t size);
/* A child process running now (spawn.c registers each one it starts): a
 * signal or exit that ends this process sends it SIGTERM (its whole group
 * when it leads one), then SIGKILL, and reaps it before the files are
 * removed, so that no child writes after the cleanup.  Async-signal-safe. */
void ol_temp_watch_child(int pid, int own_group);
void ol_temp_unwatch_child(int pid);
/* Stop one registered child now as a signal would (the abandoned
 * speculative host link): SIGTERM, SIGKILL, reaped, off the list. */
void ol_temp_stop_child(int pid);
/* Stop tracking a registered path (it was renamed into place). */
void ol_temp_forget(const char *path);
/* In a forked child: the files and children registered are the parent's;
 * neither exit nor a signal here may touch them. */
void ol_temp_disown(void);
/* Remove everything registered now (also called by atexit). */
void ol_temp_cleanup(void);

/* Writes the whole buffer to fd: 0, or the errno of the write that failed.
 * A short write (a full disk takes what fits) sets no errno, so the loop
 * writes again and that write fails with the cause, ENOSPC. */
int ol_write_all(int fd, const void *data, size_t size);

/* Write data to `path` atomically (temp + rename). Returns 0 or -1 (reported). */
int ol_write_file_atomic(const char *path, const void *data, size_t size);
/* The same for a file that must not exist: an existing `path` (even one
 * created meanwhile) is never replaced, the call fails instead (reported,
 * "File exists").  Returns 0 or -1. */
int ol_write_file_new(const char *path, const void *data, size_t size);
/* A registered temp file "<path>.tmp-XXXXXX" in `path`'s directory, so that
 * it can be renamed over `path`; fd as ol_temp_create.  Returns an arena
 * path, or NULL after reporting an error. */
const char *ol_temp_create_beside(const char *path, int *fd_out);
/* The same name, registered but not created: free when asked, for a
 * program that creates the file itself (the host linker).  NULL after
 * reporting an error. */
const char *ol_temp_name_beside(const char *path);
/* Rename the temp file over `path` and stop tracking it.  Returns 0, or -1
 * after reporting an error (the temp file is then removed at exit). */
int ol_temp_commit(const char *tmp, const char *path);

#endif
