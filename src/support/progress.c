/* progress: the device-link status line on a terminal.  See offload/progress.h. */
#include "offload/progress.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define FIRST_DRAW_NS 2000000000LL   /* a link shorter than this shows nothing */
#define REDRAW_NS 250000000LL
#define SHOWN_JOBS 64                /* more are counted, not named */
#define NAME_SIZE 48

static const char erase_line[] = "\r\033[K";

struct job_slot {
	char name[NAME_SIZE];
	atomic_llong started_ns;   /* 0: not started yet */
	atomic_int finished;
};

/* Fixed storage: the ticker never allocates, and a signal handler may
 * read `drawn`. */
static struct {
	pthread_mutex_t lock;      /* drawing, and diagnostics while it is held */
	pthread_cond_t wake;
	pthread_t ticker;
	int stopping;              /* under lock */
	volatile sig_atomic_t drawn;
	size_t njobs;
	atomic_size_t done;
	long long begun_ns;
	struct job_slot slots[SHOWN_JOBS];
	char text[1024];           /* the ticker's; under lock */
} progress = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int enabled;
static atomic_int active;                    /* a ticker runs */
static volatile sig_atomic_t abandoned;
static _Thread_local int holding;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void write_stderr(const char *text, size_t len)
{
	while (len > 0) {
		ssize_t w = write(STDERR_FILENO, text, len);
		if (w <= 0)
			return;   /* EINTR cannot happen: the ticker blocks signals */
		text += w;
		len -= (size_t)w;
	}
}

void ol_progress_abandon(void)
{
	abandoned = 1;
	if (progress.drawn) {
		progress.drawn = 0;
		write_stderr(erase_line, sizeof(erase_line) - 1);
	}
}

static void abandon_at_exit(void)
{
	ol_progress_abandon();
}

void ol_progress_configure(int quiet)
{
	const char *term = getenv("TERM");

	enabled = !quiet && isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
	if (enabled)
		atexit(abandon_at_exit);
}

/* The width the line may take without wrapping: a wrapped line could not
 * be erased with "\r". */
static size_t terminal_columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 8)
		return ws.ws_col;
	return 80;
}

/* Text and seconds into buf; both stop at its end (len may pass size:
 * what did not fit). */
static size_t append_text(char *buf, size_t size, size_t len, const char *text)
{
	int n = len < size ? snprintf(buf + len, size - len, "%s", text) : 0;

	return n < 0 ? len : len + (size_t)n;
}

static size_t append_seconds(char *buf, size_t size, size_t len, long long ns)
{
	int n = len < size ? snprintf(buf + len, size - len, " %.1fs", (double)ns / 1e9) : 0;

	return n < 0 ? len : len + (size_t)n;
}

/* Under the lock.  "\r", the text cut to the terminal's width, erase. */
static void draw(long long now)
{
	char *text = progress.text;
	const size_t size = sizeof(progress.text) - sizeof(erase_line);
	size_t len = 1, width = terminal_columns() - 1, running = 0;
	int n;

	text[0] = '\r';
	n = snprintf(text + len, size - len, "offload-link: device links %zu/%zu done,",
		     atomic_load(&progress.done), progress.njobs);
	len += n > 0 ? (size_t)n : 0;
	len = append_seconds(text, size, len, now - progress.begun_ns);
	for (size_t i = 0; i < progress.njobs && i < SHOWN_JOBS; i++) {
		const struct job_slot *s = &progress.slots[i];
		long long started = atomic_load(&s->started_ns);

		if (!started || atomic_load(&s->finished))
			continue;
		len = append_text(text, size, len, running++ ? ", " : " [");
		len = append_text(text, size, len, s->name);
		len = append_seconds(text, size, len, now - started);
	}
	if (running && len < size)
		text[len++] = ']';
	if (len >= size)
		len = size - 1;   /* snprintf's NUL is not shown */
	/* One column is the "\r". */
	if (len - 1 > width) {
		len = width + 1;
		memcpy(text + len - 3, "...", 3);
	}
	memcpy(text + len, erase_line + 1, sizeof(erase_line) - 2);
	len += sizeof(erase_line) - 2;
	if (abandoned)
		return;
	write_stderr(text, len);
	progress.drawn = 1;
}

static void *tick(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&progress.lock);
	while (!progress.stopping && !abandoned) {
		long long now = now_ns(), due = progress.begun_ns + FIRST_DRAW_NS;
		struct timespec until;

		if (now >= due) {
			draw(now);
			due = now + REDRAW_NS;
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += (time_t)((due - now) / 1000000000LL);
		until.tv_nsec += (long)((due - now) % 1000000000LL);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&progress.wake, &progress.lock, &until);
	}
	pthread_mutex_unlock(&progress.lock);
	return NULL;
}

/* Printable ASCII only: the names come from the inputs. */
static void copy_name(char *dst, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < NAME_SIZE; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

void ol_progress_begin(const char *const *names, size_t njobs)
{
	pthread_condattr_t attr;
	sigset_t all, old;
	int started;

	if (!enabled || abandoned || njobs == 0)
		return;
	progress.njobs = njobs;
	progress.stopping = 0;
	progress.drawn = 0;
	atomic_init(&progress.done, 0);
	for (size_t i = 0; i < njobs && i < SHOWN_JOBS; i++) {
		copy_name(progress.slots[i].name, names[i]);
		atomic_init(&progress.slots[i].started_ns, 0);
		atomic_init(&progress.slots[i].finished, 0);
	}
	progress.begun_ns = now_ns();
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&progress.wake, &attr);
	pthread_condattr_destroy(&attr);
	/* The ticker is born with every signal blocked: handlers run on the
	 * other threads, and its write is never interrupted. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	started = pthread_create(&progress.ticker, NULL, tick, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started)
		atomic_store(&active, 1);
	else
		pthread_cond_destroy(&progress.wake);
}

void ol_progress_job_started(size_t job)
{
	if (atomic_load(&active) && job < SHOWN_JOBS)
		atomic_store(&progress.slots[job].started_ns, now_ns());
}

void ol_progress_job_finished(size_t job)
{
	if (!atomic_load(&active))
		return;
	if (job < SHOWN_JOBS)
		atomic_store(&progress.slots[job].finished, 1);
	atomic_fetch_add(&progress.done, 1);
}

void ol_progress_end(void)
{
	if (!atomic_load(&active))
		return;
	pthread_mutex_lock(&progress.lock);
	progress.stopping = 1;
	pthread_cond_signal(&progress.wake);
	pthread_mutex_unlock(&progress.lock);
	pthread_join(progress.ticker, NULL);
	pthread_cond_destroy(&progress.wake);
	pthread_mutex_lock(&progress.lock);
	atomic_store(&active, 0);
	if (progress.drawn && !abandoned)
		write_stderr(erase_line, sizeof(erase_line) - 1);
	progress.drawn = 0;
	pthread_mutex_unlock(&progress.lock);
}

void ol_progress_hold(void)
{
	if (!atomic_load(&active) || abandoned || holding)
		return;
	pthread_mutex_lock(&progress.lock);
	holding = 1;
	if (progress.drawn) {
		write_stderr(erase_line, sizeof(erase_line) - 1);
		progress.drawn = 0;
	}
}

void ol_progress_release(void)
{
	if (!holding)
		return;
	holding = 0;
	pthread_mutex_unlock(&progress.lock);
}
