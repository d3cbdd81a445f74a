/* timer: --wrapper-time-trace scopes.  See offload/timer.h. */
#include "offload/timer.h"
#include "offload/diag.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"

#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 256
#define MAX_DEPTH 16

struct event {
	const char *name;
	uint64_t start_us, dur_us;
};

static int enabled;
static int granularity = 500;
static uint64_t origin_us;
static struct event events[MAX_EVENTS];
static size_t nevents;
static size_t open_stack[MAX_DEPTH];
static size_t depth;

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void ol_timer_enable(int granularity_us)
{
	enabled = 1;
	if (granularity_us >= 0)
		granularity = granularity_us;
	origin_us = now_us();
}

void ol_timer_begin(const char *name)
{
	if (!enabled || nevents == MAX_EVENTS || depth == MAX_DEPTH)
		return;
	events[nevents].name = name;
	events[nevents].start_us = now_us() - origin_us;
	open_stack[depth++] = nevents++;
}

void ol_timer_end(void)
{
	if (!enabled || depth == 0)
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
		if (events[i].dur_us < (uint64_t)granularity)
			continue;
		strbuf_addf(&json, "%s{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%llu,\"dur\":%llu,"
			    "\"name\":\"%s\",\"args\":{\"detail\":\"%s\"}}",
			    first ? "" : ",", pid, pid, (unsigned long long)events[i].start_us,
			    (unsigned long long)events[i].dur_us, events[i].name, detail);
		first = 0;
	}
	strbuf_addf(&json, "],\"beginningOfTime\":0,\"otherData\":{\"tool\":\"offload-link\"}}\n");
	rc = ol_write_file_atomic(path, json.buf, json.len);
	strbuf_release(&json);
	return rc;
}
