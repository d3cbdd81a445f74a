/*
 * host_link: run the host linker with the re-rendered command line and the
 * wrapper objects after each -o.  Returns the linker's exit status unchanged
 * (or 1 if it could not be run).  The linker writes under a private name
 * beside the output, renamed over it when the link succeeded (unless the
 * output is not a regular file or options name it in other files), so a
 * failed or killed link never leaves an output.
 */
#ifndef OFFLOAD_HOST_LINK_H
#define OFFLOAD_HOST_LINK_H

#include "offload/cmdline.h"

int ol_host_link(const struct ol_cmdline *cl, const char *const *wrapper_objs);

/*
 * The speculative host link.  Most links that reach the tool carry no device
 * code (CMake sends every link of a project through it), and for them all
 * the tool adds is the scan of the inputs.  ol_host_link_speculate() starts
 * the plain host link at once, exactly as the fast path would run it, while
 * the scan runs, with its stdout and stderr captured (in one capture when
 * they are the same file, so that their order holds).  When the scan finds no
 * device code, ol_host_link_adopt() waits for it and passes its output and
 * exit status through: the link is the one the fast path would have run.
 * Otherwise ol_host_link_abandon() stops it (SIGTERM to its process group,
 * then SIGKILL), and the real link runs later.  Like every host link it
 * writes under a private name beside the output, renamed over the output
 * only when adopted and successful, so a dropped link or a killed tool
 * leaves the output as it was.  It is not started under --dry-run, -v,
 * --save-temps or a time trace, for short lines, for lines linking
 * -lomptarget (offloading links), when the output exists and is not a
 * regular file, or when the line has options that write other files (maps,
 * dependency files, traces, LTO).
 */
#include "offload/spawn.h"

struct ol_host_speculation {
	struct ol_child child;
	int active;
	const char *output;                 /* the private name it writes */
};
/* Returns 1 when the link was started. */
int ol_host_link_speculate(const struct ol_cmdline *cl, struct ol_host_speculation *spec);
/* Returns the linker's exit status, as ol_host_link. */
int ol_host_link_adopt(const struct ol_cmdline *cl, struct ol_host_speculation *spec);
void ol_host_link_abandon(struct ol_host_speculation *spec);

#endif
