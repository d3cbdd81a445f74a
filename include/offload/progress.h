/*
 * progress: which device links run and which are done, on a terminal.
 *
 * A link whose device jobs take more than about two seconds shows one
 * status line on stderr, redrawn in place four times a second:
 *
 *   offload-link: device links 1/3 done, 4.3s [sm_80 4.1s, gfx90a 4.1s]
 *
 * and erased when the jobs end.  Nothing when stderr is not a terminal,
 * when TERM is "dumb", or with --quiet (or --dry-run: nothing runs).  The
 * line is plain text: no colour, only "\r" and erase-to-end-of-line.
 *
 * The job runner (src/device/jobs.c) begins and ends it; a ticker thread
 * draws it.  Every message on stderr goes through diag.c, which erases the
 * line first and writes while the ticker cannot draw (ol_progress_hold /
 * ol_progress_release), so a message never lands inside the line.  A fatal
 * signal, ol_fatal() or exit() stops the drawing for good (ol_progress_abandon).
 */
#ifndef OFFLOAD_PROGRESS_H
#define OFFLOAD_PROGRESS_H

#include <stddef.h>

/* From the command line: quiet is --quiet or --dry-run.  Decides once,
 * also from isatty(stderr) and TERM. */
void ol_progress_configure(int quiet);

/* The jobs of one run, names[i] for job i (copied, shown with non-printing
 * bytes as '?'); starts the ticker when progress is on.  Main thread. */
void ol_progress_begin(const char *const *names, size_t njobs);
/* Any thread: job i starts, job i ends. */
void ol_progress_job_started(size_t job);
void ol_progress_job_finished(size_t job);
/* Stops the ticker (joined) and erases the line.  Main thread. */
void ol_progress_end(void);

/* Around a write to stderr: the line is erased and stays away until release. */
void ol_progress_hold(void);
void ol_progress_release(void);

/* Async-signal-safe: erase the line and never draw again (fatal signal,
 * ol_fatal, exit, or a forked child that must not touch the terminal). */
void ol_progress_abandon(void);

#endif
