/* spawn: run programs (vfork + execve), echo them as upstream does.  See offload/spawn.h. */
#include "offload/spawn.h"
#include "offload/diag.h"
#include "offload/strvec.h"
#include "offload/mapped_file.h"
#include "offload/progress.h"
#include "offload/temp_names.h"
#include "offload/tempfile.h"
#include "offload/timer.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static struct ol_spawn_config config;

void ol_spawn_configure(int dry_run, int verbose)
{
	config.dry_run = dry_run;
	config.verbose = verbose;
}

const struct ol_spawn_config *ol_spawn_config(void)
{
	return &config;
}

/* Upstream's printCommands: ' "prog" a b c' with no quoting of arguments. */
static void echo_command(const struct strvec *argv)
{
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, " \"%s\"", argv->v[0]);
	for (size_t i = 1; i < argv->nr; i++)
		strbuf_addf(&line, " %s", argv->v[i]);
	strbuf_addch(&line, '\n');
	ol_diag_write(line.buf, line.len);
	strbuf_release(&line);
}

/* The exit status of a reaped child, or -1 (reported) for a signal. */
static int exit_status(int status, const char *program)
{
	if (WIFSIGNALED(status))
		return ol_error("'%s' failed: killed by signal %d (%s)", ol_base_name(program),
				WTERMSIG(status), strsignal(WTERMSIG(status)));
	return WEXITSTATUS(status);
}

/* The signals tempfile.c handles: blocked while a child starts and while
 * its pid changes hands, so that the handler never sees a stale pid and
 * never runs in a child that shares our memory. */
static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };

static void block_handled_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++)
		sigaddset(&set, handled_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* How a child starts: fds for its stdout and stderr (-1: ours), and
 * whether it leads a process group of its own (so that stopping it stops
 * what it runs). */
struct start_options {
	int stdout_fd, stderr_fd;
	int own_group;
};

/*
 * The one place a child process starts.  vfork, not fork: the tool holds
 * LLVM's memory, which fork would have to map again; not posix_spawn: the
 * child must ask for SIGTERM when this thread ends (PR_SET_PDEATHSIG), so
 * that a tool killed outright (SIGKILL, which no handler sees) takes its
 * linkers with it.  The child shares our memory until execve: it only makes
 * system calls, with every signal blocked and the handlers it would inherit
 * reset.  Registered with tempfile.c before any signal can be handled.
 * Returns 0, or an errno value with nothing started.
 */
static int start_process(const struct strvec *argv, const struct start_options *opt, pid_t *out)
{
	sigset_t all, old;
	volatile int exec_error = 0;
	pid_t parent = getpid(), pid;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = vfork();
	if (pid == 0) {
		for (size_t i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++)
			signal(handled_signals[i], SIG_DFL);
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(127);   /* we are gone already: nothing to run for */
		if ((opt->own_group && setpgid(0, 0) < 0) ||
		    (opt->stdout_fd >= 0 && dup2(opt->stdout_fd, STDOUT_FILENO) < 0) ||
		    (opt->stderr_fd >= 0 && dup2(opt->stderr_fd, STDERR_FILENO) < 0)) {
			exec_error = errno;
			_exit(127);
		}
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		execve(argv->v[0], argv->v, environ);
		exec_error = errno;
		_exit(127);
	}
	if (pid < 0) {
		int err = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return err;
	}
	if (exec_error) {
		waitpid(pid, NULL, 0);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return exec_error;
	}
	ol_temp_watch_child((int)pid, opt->own_group);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	*out = pid;
	return 0;
}

/* The wait itself leaves signals open (a signal meanwhile stops the child
 * through tempfile.c); the reaping and taking it off tempfile's list happen
 * with them blocked, so that the handler never signals a pid that is no
 * longer ours. */
int ol_child_reap(int pid, int *status)
{
	siginfo_t info;
	sigset_t old;
	int rc = 0;

	memset(&info, 0, sizeof(info));
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0) {
		if (errno != EINTR)
			return -1;
	}
	block_handled_signals(&old);
	while (waitpid((pid_t)pid, status, 0) < 0) {
		if (errno != EINTR) {
			rc = -1;
			break;
		}
	}
	ol_temp_unwatch_child(pid);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static int stdout_is_stderr(void);
static void replay(int from, int to);

/* The child's stdout and stderr go to memory files (one for both when ours
 * are one file, keeping their order), shown when it ends: their temp names
 * are rewritten first (temp_names.h).  Without memory files the child
 * writes to ours, unrewritten. */
static void capture_close(struct start_options *opt)
{
	if (opt->stdout_fd >= 0)
		close(opt->stdout_fd);
	if (opt->stderr_fd >= 0 && opt->stderr_fd != opt->stdout_fd)
		close(opt->stderr_fd);
	opt->stdout_fd = opt->stderr_fd = -1;
}

/* On failure both fds are -1 and errno says why. */
static void capture_begin(struct start_options *opt)
{
	int one = stdout_is_stderr();

	opt->stdout_fd = memfd_create("offload-link-stdout", MFD_CLOEXEC);
	opt->stderr_fd = one ? opt->stdout_fd : memfd_create("offload-link-stderr", MFD_CLOEXEC);
	if (opt->stdout_fd < 0 || opt->stderr_fd < 0) {
		int err = errno;

		capture_close(opt);
		errno = err;
	}
}

static void capture_end(struct start_options *opt)
{
	if (opt->stdout_fd < 0)
		return;
	if (opt->stderr_fd == opt->stdout_fd) {
		replay(opt->stdout_fd, STDERR_FILENO);
	} else {
		replay(opt->stdout_fd, STDOUT_FILENO);
		replay(opt->stderr_fd, STDERR_FILENO);
	}
	opt->stdout_fd = opt->stderr_fd = -1;
}

/* Runs argv and waits; with rewrite, its output is captured and shown with
 * temp names rewritten (the device tools: the host linker's own output is
 * left alone, streamed as it comes). */
static int spawn_wait(const struct strvec *argv, int rewrite)
{
	struct start_options opt = { -1, -1, 0 };
	pid_t pid;
	int status, err;

	if (!argv->nr)
		OL_BUG("empty command");
	if (config.dry_run || config.verbose)
		echo_command(argv);
	if (config.dry_run)
		return 0;

	ol_timer_begin_detail("Execute external command", argv->v[0]);
	if (rewrite)
		capture_begin(&opt);
	err = start_process(argv, &opt, &pid);
	if (err) {
		capture_end(&opt);
		ol_timer_end();
		return ol_error("unable to execute '%s': %s", argv->v[0], strerror(err));
	}
	err = ol_child_reap((int)pid, &status);
	capture_end(&opt);
	if (err < 0) {
		ol_timer_end();
		return ol_error("waiting for '%s': %s", argv->v[0], strerror(errno));
	}
	ol_timer_end();
	return exit_status(status, argv->v[0]);
}

int ol_spawn_wait(const struct strvec *argv)
{
	return spawn_wait(argv, 0);
}

int ol_spawn_read_output(const struct strvec *argv, char **out, size_t *size)
{
	int fd = memfd_create("offload-link-output", MFD_CLOEXEC), status, rc;
	struct start_options capture = { fd, fd, 0 };
	uint8_t *text;
	pid_t pid;

	*out = NULL;
	*size = 0;
	if (fd < 0)
		return -1;
	rc = start_process(argv, &capture, &pid) || ol_child_reap((int)pid, &status) < 0 ||
	     ol_read_open_file(fd, &text, size) < 0;
	close(fd);
	if (rc)
		return -1;
	*out = (char *)text;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Is fd 1 the same file as fd 2 (2>&1)?  Then the child gets one capture
 * for both, and its output keeps its order. */
static int stdout_is_stderr(void)
{
	struct stat out, err;

	return fstat(STDOUT_FILENO, &out) == 0 && fstat(STDERR_FILENO, &err) == 0 &&
	       out.st_dev == err.st_dev && out.st_ino == err.st_ino;
}

int ol_spawn_captured(const struct strvec *argv, struct ol_child *child)
{
	struct start_options capture = { -1, -1, 1 };
	pid_t pid;
	int err;

	child->name = argv->v[0];
	child->out_fd = child->err_fd = -1;
	capture_begin(&capture);
	if (capture.stdout_fd < 0)
		return -1;
	err = start_process(argv, &capture, &pid);
	if (err) {
		capture_close(&capture);
		errno = err;
		return -1;
	}
	child->pid = (int)pid;
	child->out_fd = capture.stdout_fd;
	child->err_fd = capture.stderr_fd == capture.stdout_fd ? -1 : capture.stderr_fd;
	return 0;
}

/* Show what a memory file holds on fd (stderr through diag, so that a
 * device job's thread keeps it with its own messages), temp names
 * rewritten; then close it. */
static void replay(int from, int to)
{
	uint8_t *text;
	char *rewritten;
	size_t size, len;

	if (from < 0)
		return;
	if (ol_read_open_file(from, &text, &size) < 0) {
		close(from);
		return;
	}
	close(from);
	rewritten = ol_temp_names_rewrite((const char *)text, size, &len);
	if (rewritten) {
		free(text);
	} else {
		len = size;
		rewritten = (char *)text;
	}
	if (to == STDERR_FILENO) {
		ol_diag_write(rewritten, len);
	} else {
		for (size_t done = 0; done < len;) {
			ssize_t w = write(to, rewritten + done, len - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			done += (size_t)w;
		}
	}
	free(rewritten);
}

int ol_child_finish(struct ol_child *child)
{
	int status;

	if (ol_child_reap(child->pid, &status) < 0)
		return ol_error("waiting for '%s': %s", child->name, strerror(errno));
	fflush(NULL);
	replay(child->out_fd, STDOUT_FILENO);
	replay(child->err_fd, STDERR_FILENO);
	return exit_status(status, child->name);
}

void ol_child_abandon(struct ol_child *child)
{
	/* Its group, as a signal to the tool would stop it (tempfile.h). */
	ol_temp_stop_child(child->pid);
	close(child->out_fd);
	if (child->err_fd >= 0)
		close(child->err_fd);
}

/* Blocked around the fork so that the child is on tempfile's list before
 * any handler can look; the child owns none of our files or children. */
int ol_spawn_fork(void)
{
	sigset_t old;
	pid_t pid;

	fflush(NULL);   /* the child must not write our buffered output again */
	block_handled_signals(&old);
	pid = fork();
	if (pid == 0) {
		ol_temp_disown();
		ol_progress_abandon();   /* the terminal's line is the parent's */
	}
	else if (pid > 0)
		ol_temp_watch_child((int)pid, 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return (int)pid;
}

int ol_spawn_checked(const struct strvec *argv)
{
	int status = spawn_wait(argv, 1);

	if (status < 0)
		return -1;
	if (status != 0)
		return ol_error("'%s' failed with exit code %d", ol_base_name(argv->v[0]), status);
	return 0;
}

void ol_spawn_note(const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list ap;

	if (!config.verbose)
		return;
	strbuf_addf(&line, "%s: ", ol_prog_name());
	va_start(ap, fmt);
	strbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	strbuf_addch(&line, '\n');
	ol_diag_write(line.buf, line.len);
	strbuf_release(&line);
}
