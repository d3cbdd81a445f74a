/* spawn: run programs with posix_spawn, echo them as upstream does.  See offload/spawn.h. */
#include "offload/spawn.h"
#include "offload/diag.h"
#include "offload/temp_names.h"
#include "offload/tempfile.h"
#include "offload/timer.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
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
		return ol_error("'%s' failed: killed by signal %d (%s)", base_name(program),
				WTERMSIG(status), strsignal(WTERMSIG(status)));
	return WEXITSTATUS(status);
}

static int wait_for(pid_t pid, const char *program, int *status)
{
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return ol_error("waiting for '%s': %s", program, strerror(errno));
	}
	return 0;
}

static int stdout_is_stderr(void);
static void replay(int from, int to);

/* The child's stdout and stderr go to memory files (one for both when ours
 * are one file, keeping their order), shown when it ends: their temp names
 * are rewritten first (temp_names.h). */
struct output_capture {
	posix_spawn_file_actions_t actions;
	int out_fd, err_fd;
};

static posix_spawn_file_actions_t *capture_begin(struct output_capture *cap)
{
	cap->out_fd = memfd_create("offload-link-stdout", MFD_CLOEXEC);
	cap->err_fd = stdout_is_stderr() ? -1 : memfd_create("offload-link-stderr", MFD_CLOEXEC);
	if (cap->out_fd < 0 || (cap->err_fd < 0 && !stdout_is_stderr())) {
		/* No memory file: the child writes to ours, unrewritten. */
		if (cap->out_fd >= 0)
			close(cap->out_fd);
		if (cap->err_fd >= 0)
			close(cap->err_fd);
		cap->out_fd = cap->err_fd = -1;
		return NULL;
	}
	posix_spawn_file_actions_init(&cap->actions);
	posix_spawn_file_actions_adddup2(&cap->actions, cap->out_fd, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&cap->actions, cap->err_fd >= 0 ? cap->err_fd : cap->out_fd,
					 STDERR_FILENO);
	return &cap->actions;
}

static void capture_end(struct output_capture *cap)
{
	if (cap->out_fd < 0)
		return;
	posix_spawn_file_actions_destroy(&cap->actions);
	replay(cap->out_fd, cap->err_fd >= 0 ? STDOUT_FILENO : STDERR_FILENO);
	replay(cap->err_fd, STDERR_FILENO);
}

/* Runs argv and waits; with rewrite, its output is captured and shown with
 * temp names rewritten (the device tools: the host linker's own output is
 * left alone, streamed as it comes). */
static int spawn_wait(const struct strvec *argv, int rewrite)
{
	struct output_capture cap = { .out_fd = -1, .err_fd = -1 };
	pid_t pid;
	int status, err;

	if (!argv->nr)
		OL_BUG("empty command");
	if (config.dry_run || config.verbose)
		echo_command(argv);
	if (config.dry_run)
		return 0;

	ol_timer_begin_detail("Execute external command", argv->v[0]);
	err = posix_spawn(&pid, argv->v[0], rewrite ? capture_begin(&cap) : NULL, NULL, argv->v,
			  environ);
	if (err) {
		capture_end(&cap);
		ol_timer_end();
		return ol_error("unable to execute '%s': %s", argv->v[0], strerror(err));
	}
	err = wait_for(pid, argv->v[0], &status);
	capture_end(&cap);
	ol_timer_end();
	return err < 0 ? -1 : exit_status(status, argv->v[0]);
}

int ol_spawn_wait(const struct strvec *argv)
{
	return spawn_wait(argv, 0);
}

int ol_spawn_read_output(const struct strvec *argv, char **out, size_t *size)
{
	posix_spawn_file_actions_t actions;
	int fd = memfd_create("offload-link-output", MFD_CLOEXEC), status, err;
	struct stat st;
	pid_t pid;
	char *buf;

	*out = NULL;
	*size = 0;
	if (fd < 0)
		return -1;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
	err = posix_spawn(&pid, argv->v[0], &actions, NULL, argv->v, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (err || waitpid(pid, &status, 0) < 0 || fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	buf = ol_xmalloc((size_t)st.st_size + 1);
	if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
		free(buf);
		close(fd);
		return -1;
	}
	buf[st.st_size] = '\0';
	close(fd);
	*out = buf;
	*size = (size_t)st.st_size;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The signals tempfile.c handles: blocked while a captured child's pid
 * changes hands, so that its handler never sees a stale pid. */
static void block_handled_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &set, old);
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
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t old, none;
	int one_capture = stdout_is_stderr();
	pid_t pid;
	int err;

	child->name = argv->v[0];
	child->out_fd = memfd_create("offload-link-stdout", MFD_CLOEXEC);
	child->err_fd = one_capture ? -1 : memfd_create("offload-link-stderr", MFD_CLOEXEC);
	if (child->out_fd < 0 || (child->err_fd < 0 && !one_capture)) {
		err = errno;
		goto fail;
	}
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, child->out_fd, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&actions, child->err_fd >= 0 ? child->err_fd : child->out_fd,
					 STDERR_FILENO);
	/* Its own process group, so that stopping it stops what it runs; the
	 * signal mask blocked here is not inherited. */
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
	block_handled_signals(&old);
	err = posix_spawn(&pid, argv->v[0], &actions, &attr, argv->v, environ);
	if (err == 0)
		ol_temp_set_writer((int)pid);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&actions);
	if (err == 0) {
		child->pid = (int)pid;
		return 0;
	}
fail:
	if (child->out_fd >= 0)
		close(child->out_fd);
	if (child->err_fd >= 0)
		close(child->err_fd);
	child->out_fd = child->err_fd = -1;
	errno = err;
	return -1;
}

/* Show what a memory file holds on fd (stderr through diag, so that a
 * device job's thread keeps it with its own messages), temp names
 * rewritten; then close it. */
static void replay(int from, int to)
{
	struct strbuf text = STRBUF_INIT;
	char buf[8192], *rewritten;
	size_t len;
	ssize_t n;
	off_t off = 0;

	if (from < 0)
		return;
	while ((n = pread(from, buf, sizeof(buf), off)) > 0) {
		strbuf_add(&text, buf, (size_t)n);
		off += n;
	}
	close(from);
	rewritten = ol_temp_names_rewrite(strbuf_str(&text), text.len, &len);
	if (!rewritten) {
		len = text.len;
		rewritten = strbuf_detach(&text);
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
	strbuf_release(&text);
}

/* Reap an exited child, taking it off tempfile's hands first. */
static int reap(struct ol_child *child)
{
	sigset_t old;
	int status = 0;

	block_handled_signals(&old);
	ol_temp_set_writer(0);
	while (waitpid((pid_t)child->pid, &status, 0) < 0 && errno == EINTR)
		;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return status;
}

/* Wait until the child has exited, without reaping it. */
static int wait_exited(const struct ol_child *child, int options)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	while (waitid(P_PID, (id_t)child->pid, &info, WEXITED | WNOWAIT | options) < 0)
		if (errno != EINTR)
			return -1;
	return info.si_pid != 0;
}

int ol_child_finish(struct ol_child *child)
{
	int status;

	if (wait_exited(child, 0) < 0)
		return ol_error("waiting for '%s': %s", child->name, strerror(errno));
	status = reap(child);
	fflush(NULL);
	replay(child->out_fd, STDOUT_FILENO);
	replay(child->err_fd, STDERR_FILENO);
	return exit_status(status, child->name);
}

void ol_child_abandon(struct ol_child *child)
{
	/* SIGTERM first: lld and mold then remove their own temp files. */
	kill(-(pid_t)child->pid, SIGTERM);
	for (int tries = 0; tries < 50 && wait_exited(child, WNOHANG) == 0; tries++) {
		struct timespec pause = { 0, 4 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
	kill(-(pid_t)child->pid, SIGKILL);   /* a leader that would not stop, or what it ran */
	wait_exited(child, 0);
	reap(child);
	close(child->out_fd);
	if (child->err_fd >= 0)
		close(child->err_fd);
}

int ol_spawn_checked(const struct strvec *argv)
{
	int status = spawn_wait(argv, 1);

	if (status < 0)
		return -1;
	if (status != 0)
		return ol_error("'%s' failed with exit code %d", base_name(argv->v[0]), status);
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

static int is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *ol_find_program(const char *name, const char *const *dirs)
{
	const char *path_env;

	if (strchr(name, '/'))
		return is_executable(name) || config.dry_run ? ol_xstrdup(name) : NULL;
	for (; dirs && *dirs; dirs++) {
		char *candidate = ol_xasprintf("%s/%s", *dirs, name);
		if (is_executable(candidate))
			return candidate;
		free(candidate);
	}
	path_env = getenv("PATH");
	while (path_env && *path_env) {
		const char *end = strchr(path_env, ':');
		size_t len = end ? (size_t)(end - path_env) : strlen(path_env);
		char *candidate = ol_xasprintf("%.*s/%s", (int)len, len ? path_env : ".", name);
		if (is_executable(candidate))
			return candidate;
		free(candidate);
		path_env = end ? end + 1 : NULL;
	}
	return config.dry_run ? ol_xstrdup(name) : NULL;
}

const char *ol_self_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		strcpy(dir, ".");
		return dir;
	}
	dir[n] = '\0';
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return dir;
}
