/*
 * spawn: the one way to run another program (posix_spawn; no shell, no system()).
 *
 * Under -v/--wrapper-verbose/--dry-run each command is echoed to stderr exactly
 * as upstream's printCommands does: ' "<argv0>" arg1 arg2 ...\n' (arguments
 * neither quoted nor escaped).  Under --dry-run nothing is run and 0 is
 * returned.  In-process steps print "offload-link: <what>" lines under
 * -v only (ol_spawn_note), so the echo stays upstream-compatible.
 *
 * The caller owns argv; spawn never frees it.
 */
#ifndef OFFLOAD_SPAWN_H
#define OFFLOAD_SPAWN_H

#include "offload/strvec.h"

struct ol_spawn_config {
	int dry_run;
	int verbose;
};
void ol_spawn_configure(int dry_run, int verbose);
const struct ol_spawn_config *ol_spawn_config(void);

/* Runs argv (argv->v[0] is the program path) and waits.  Returns the exit
 * status (0..255), or -1 after reporting an error when the program could not
 * be started or died from a signal ("'<name>' failed: killed by signal 9").
 * Non-zero exit statuses are returned without a message: callers decide. */
int ol_spawn_wait(const struct strvec *argv);

/* Like ol_spawn_wait but reports "'<basename>' failed" for a non-zero status
 * and returns -1 then; 0 on success. */
int ol_spawn_checked(const struct strvec *argv);

/* A child started with its output captured (the speculative host link,
 * host_link.h).  Nothing is echoed: the caller decides what to show. */
struct ol_child {
	int pid;
	int out_fd, err_fd;   /* memory files holding its stdout and stderr */
	const char *name;     /* for messages */
};
/* Start argv with stdout and stderr captured.  Returns 0, or -1 with errno
 * set and nothing reported. */
int ol_spawn_captured(const struct strvec *argv, struct ol_child *child);
/* Wait for the child, copy what it wrote to our stdout and stderr, and
 * return its exit status as ol_spawn_wait does. */
int ol_child_finish(struct ol_child *child);
/* Kill the child, wait for it and drop what it wrote. */
void ol_child_abandon(struct ol_child *child);

/* A forked copy of this process for work that must not take it down
 * (bitcode_sandbox.h).  Returns as fork() does; the child is on tempfile's
 * list (a signal to us stops it), and in the child the registry is disowned
 * (tempfile.h).  The child must end with _exit. */
int ol_spawn_fork(void);
/* Wait for a child started here (or by ol_spawn_fork) and reap it, taking
 * it off tempfile's list.  Returns 0 with its wait status, or -1 with errno
 * set. */
int ol_child_reap(int pid, int *status);

/* Run argv quietly (no echo, not under --dry-run's control) with stdout and
 * stderr together captured into *out (malloc'd, NUL-terminated, *size bytes),
 * for facts about a tool such as its --version.  Returns the exit status, or
 * -1 with nothing captured when it could not run or died from a signal. */
int ol_spawn_read_output(const struct strvec *argv, char **out, size_t *size);
/* Echo an in-process step under -v (not under plain --dry-run). */
void ol_spawn_note(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

#endif
