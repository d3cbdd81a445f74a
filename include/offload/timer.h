/*
 * timer: per-stage timing for --wrapper-time-trace=<file>.  Scopes nest;
 * ol_timer_write() emits Chrome trace-event JSON (the format upstream's
 * -time-trace writes, readable by chrome://tracing and Perfetto).  Scopes
 * shorter than the granularity (microseconds) are dropped.  Main thread only.
 */
#ifndef OFFLOAD_TIMER_H
#define OFFLOAD_TIMER_H

void ol_timer_enable(int granularity_us);
void ol_timer_begin(const char *name);
void ol_timer_end(void);
/* Writes the trace; returns 0 or -1 (reported). */
int ol_timer_write(const char *path, const char *detail);

#endif
