/*
 * timer: per-stage timing for --wrapper-time-trace=<file>.  Scopes nest;
 * ol_timer_write() emits Chrome trace-event JSON (the format upstream's
 * -time-trace writes, readable by chrome://tracing and Perfetto).  Scopes
 * shorter than the granularity (microseconds) are dropped.  Any thread may
 * open scopes (each has its own nesting and its own "tid" in the trace);
 * enable before starting threads.
 */
#ifndef OFFLOAD_TIMER_H
#define OFFLOAD_TIMER_H

void ol_timer_enable(int granularity_us);
void ol_timer_begin(const char *name);
/* A scope whose "detail" says what it worked on (a target, a command). */
void ol_timer_begin_detail(const char *name, const char *detail);
void ol_timer_end(void);
/* Writes the trace; returns 0 or -1 (reported). */
int ol_timer_write(const char *path, const char *detail);

#endif
