/* timer: --wrapper-time-trace scopes.  See offload/timer.h. */
#include "offload/timer.h"
#include "offload/diag.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 1024
#define MAX_DEPTH 16

struct event {
	char name[48];
	char detail[208];
	int tid;
	uint64_t start_us, dur_us;
};

/* Threads record into one table under a lock (a few dozen events a link);
 * each thread keeps its own stack of open scopes. */
static atomic_int enabled;
static int granularity = 500;
static uint64_t origin_us;
static struct event events[MAX_EVENTS];
static size_t nevents;
static pthread_mutex_t events_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int next_tid;

static _Thread_local size_t open_stack[MAX_DEPTH];
static _Thread_local size_t depth;
static _Thread_local int thread_id = -1;

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void ol_timer_enable(int granularity_us)
{
	if (granularity_us >= 0)
		granularity = granularity_us;
	origin_us = now_us();
	atomic_store(&enabled, 1);
}

static void begin(const char *name, const char *detail)
{
	size_t slot;

	if (depth == MAX_DEPTH)
		return;
	if (thread_id < 0)
		thread_id = atomic_fetch_add(&next_tid, 1);
	pthread_mutex_lock(&events_lock);
	slot = nevents < MAX_EVENTS ? nevents++ : MAX_EVENTS;
	pthread_mutex_unlock(&events_lock);
	if (slot == MAX_EVENTS)
		return;
	snprintf(events[slot].name, sizeof(events[slot].name), "%s", name);
	snprintf(events[slot].detail, sizeof(events[slot].detail), "%s", detail ? detail : "");
	events[slot].tid = thread_id;
	events[slot].start_us = now_us() - origin_us;
	events[slot].dur_us = UINT64_MAX;  /* still open */
	open_stack[depth++] = slot;
}

void ol_timer_begin(const char *name)
{
	if (atomic_load(&enabled))
		begin(name, NULL);
}

void ol_timer_begin_detail(const char *name, const char *detail)
{
	if (atomic_load(&enabled))
		begin(name, detail);
}

void ol_timer_end(void)
{
	if (!atomic_load(&enabled) || depth == 0)
		return;
	struct event *e = &events[open_stack[--depth]];
	e->dur_us = now_us() - origin_us - e->start_us;
}

int ol_timer_write(const char *path, const char *detail)
{
	struct strbuf json = STRBUF_INIT;
	int pid = (int)getpid(), first = 1, rc;

	while (depth > 0)
		ol_timer_end();
	strbuf_addstr(&json, "{\"traceEvents\":[");
	for (size_t i = 0; i < nevents; i++) {
		const struct event *e = &events[i];
		if (e->dur_us == UINT64_MAX || e->dur_us < (uint64_t)granularity)
			continue;
		strbuf_addf(&json, "%s{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%llu,\"dur\":%llu,"
			    "\"name\":", first ? "" : ",", pid, pid + e->tid,
			    (unsigned long long)e->start_us, (unsigned long long)e->dur_us);
		strbuf_add_json_string(&json, e->name);
		strbuf_addstr(&json, ",\"args\":{\"detail\":");
		strbuf_add_json_string(&json, e->detail[0] ? e->detail : detail);
		strbuf_addstr(&json, "}}");
		first = 0;
	}
	strbuf_addf(&json, "],\"beginningOfTime\":0,\"otherData\":{\"tool\":\"offload-link\"}}\n");
	rc = ol_write_file_atomic(path, json.buf, json.len);
	strbuf_release(&json);
	return rc;
}
