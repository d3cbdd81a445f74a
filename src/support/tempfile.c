/* tempfile: one registry of files to remove at exit and on signals.  See offload/tempfile.h. */
#include "offload/tempfile.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_TEMPS 4096

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* Fixed storage so the signal handler never touches malloc'd structure. */
static char *volatile temps[MAX_TEMPS];
static volatile size_t ntemps;
static int save_temps;
static int names_only;      /* --dry-run: names are made, files are not */
static int initialized;
/* A forked child (bitcode_sandbox.c) owns none of the files or children. */
static volatile sig_atomic_t disowned;
/* The children running now (spawn.c registers each): whatever ends this
 * process stops them first, so that none writes a file (a temp image, the
 * output) after the cleanup.  A negative entry leads its own process group
 * (the speculative host link), which is stopped as a whole. */
#define MAX_CHILDREN 256
static volatile sig_atomic_t children[MAX_CHILDREN];

static int child_exited(pid_t pid)
{
	int status;
	pid_t r = waitpid(pid, &status, WNOHANG);

	/* Reaped by the thread that started it, or gone: either way stopped. */
	return r == pid || (r < 0 && errno == ECHILD);
}

/* A registered entry that `only` selects: every one for 0, else that pid's. */
static int selected(pid_t entry, pid_t only)
{
	return entry && (!only || entry == only || entry == -only);
}

/* Async-signal-safe: SIGTERM first lets lld and mold remove their own temp
 * files; whatever still runs after about 200 ms gets SIGKILL (a group, also
 * what its leader left running), and each is reaped and taken off the list. */
static void stop_children(pid_t only)
{
	int any = 0;

	for (size_t i = 0; i < MAX_CHILDREN; i++) {
		pid_t entry = (pid_t)children[i];
		if (selected(entry, only)) {
			kill(entry, SIGTERM);   /* a negative pid names the group */
			any = 1;
		}
	}
	for (int tries = 0; any && tries < 50; tries++) {
		struct timespec pause = { 0, 4 * 1000 * 1000 };

		any = 0;
		for (size_t i = 0; i < MAX_CHILDREN; i++) {
			pid_t entry = (pid_t)children[i];
			if (selected(entry, only) && !child_exited(entry < 0 ? -entry : entry))
				any = 1;
		}
		if (any)
			nanosleep(&pause, NULL);
	}
	for (size_t i = 0; i < MAX_CHILDREN; i++) {
		pid_t entry = (pid_t)children[i];
		if (selected(entry, only)) {
			children[i] = 0;
			kill(entry, SIGKILL);
			waitpid(entry < 0 ? -entry : entry, NULL, 0);
		}
	}
}

void ol_temp_stop_child(int pid)
{
	stop_children((pid_t)pid);
}

static void remove_all(void)
{
	for (size_t i = 0; i < ntemps; i++) {
		char *p = temps[i];
		if (p)
			unlink(p);
	}
}

static void on_signal(int sig)
{
	/* Before the ~200 ms of stopping children: no progress line after this. */
	ol_progress_abandon();
	if (!disowned) {
		stop_children(0);
		remove_all();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void ol_temp_disown(void)
{
	disowned = 1;
}

void ol_temp_cleanup(void)
{
	if (disowned)
		return;
	stop_children(0);
	pthread_mutex_lock(&registry_lock);
	remove_all();
	for (size_t i = 0; i < ntemps; i++) {
		free(temps[i]);
		temps[i] = NULL;
	}
	ntemps = 0;
	pthread_mutex_unlock(&registry_lock);
}

void ol_temp_watch_child(int pid, int own_group)
{
	ol_diag_on_fatal(ol_temp_cleanup);
	for (size_t i = 0; i < MAX_CHILDREN; i++) {
		if (__sync_bool_compare_and_swap(&children[i], 0, own_group ? -pid : pid))
			return;
	}
	/* More children than slots cannot happen (jobs are bounded far below);
	 * one left out still dies with us through its parent-death signal. */
}

void ol_temp_unwatch_child(int pid)
{
	for (size_t i = 0; i < MAX_CHILDREN; i++) {
		if (children[i] == pid || children[i] == -pid) {
			children[i] = 0;
			return;
		}
	}
}

void ol_temp_init(int keep, int dry_run)
{
	/* Crashes too: a fault (in LLVM's bitcode reader, say) must not leave
	 * the speculative host link running or an output behind. */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT,
				    SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

	save_temps = keep;
	names_only = dry_run;
	if (initialized)
		return;
	initialized = 1;
	atexit(ol_temp_cleanup);
	ol_diag_on_fatal(ol_temp_cleanup);
	/* Past the file size limit a write fails with EFBIG, reported like any
	 * write error, instead of SIGXFSZ killing the tool mid-file. */
	signal(SIGXFSZ, SIG_IGN);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

void ol_temp_register(const char *path)
{
	char *copy = ol_xstrdup(path);
	size_t slot;

	/* Commands that never call ol_temp_init register files too. */
	ol_diag_on_fatal(ol_temp_cleanup);

	pthread_mutex_lock(&registry_lock);
	/* Slots of forgotten files are reused. */
	for (slot = 0; slot < ntemps && temps[slot]; slot++)
		;
	if (slot == MAX_TEMPS) {
		pthread_mutex_unlock(&registry_lock);   /* ol_fatal cleans up, taking the lock */
		free(copy);
		ol_fatal("too many temporary files");
	}
	temps[slot] = copy;
	if (slot == ntemps)
		ntemps++;
	pthread_mutex_unlock(&registry_lock);
}

void ol_temp_forget(const char *path)
{
	pthread_mutex_lock(&registry_lock);
	for (size_t i = 0; i < ntemps; i++) {
		if (temps[i] && strcmp(temps[i], path) == 0) {
			char *p = temps[i];
			temps[i] = NULL;
			free(p);
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
}

/* The random part of a temp name: what mkstemp fills its XXXXXX with. */
static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

static char *arena_path(const char *path)
{
	char *copy;
	/* The link arena is not thread safe; temp files are created from jobs. */
	pthread_mutex_lock(&registry_lock);
	copy = ol_arena_strdup(&ol_link_arena, path);
	pthread_mutex_unlock(&registry_lock);
	return copy;
}

/* --dry-run: the name a temp file would get, nothing created.  The
 * random part is what mkstemps would fill in: names stay distinct. */
static char *name_only(const char *prefix, const char *ext)
{
	static unsigned long counter;
	const char *dir = getenv("TMPDIR");
	unsigned long n;
	char random[7];

	if (save_temps)
		return ext && *ext ? ol_xasprintf("%s.%s", prefix, ext) : ol_xstrdup(prefix);
	pthread_mutex_lock(&registry_lock);
	n = ++counter * 2654435761ul ^ (unsigned long)getpid();
	pthread_mutex_unlock(&registry_lock);
	for (size_t i = 0; i < 6; i++, n /= sizeof(letters) - 1)
		random[i] = letters[n % (sizeof(letters) - 1)];
	random[6] = '\0';
	if (!dir || !*dir)
		dir = "/tmp";
	return ext && *ext ? ol_xasprintf("%s/%s-%s.%s", dir, prefix, random, ext)
			   : ol_xasprintf("%s/%s-%s", dir, prefix, random);
}

const char *ol_temp_create(const char *prefix, const char *ext, int *fd_out)
{
	char *path;
	int fd;

	if (names_only) {
		if (fd_out)
			OL_BUG("a file descriptor for a --dry-run temp name");
		path = name_only(prefix, ext);
		char *result = arena_path(path);
		free(path);
		return result;
	}
	if (save_temps) {
		/* Deterministic names in the working directory, as upstream. */
		path = ext && *ext ? ol_xasprintf("%s.%s", prefix, ext) : ol_xstrdup(prefix);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	} else {
		const char *dir = getenv("TMPDIR");
		int suffix;
		if (!dir || !*dir)
			dir = "/tmp";
		path = ext && *ext ? ol_xasprintf("%s/%s-XXXXXX.%s", dir, prefix, ext)
				   : ol_xasprintf("%s/%s-XXXXXX", dir, prefix);
		suffix = ext && *ext ? (int)strlen(ext) + 1 : 0;
		fd = mkostemps(path, suffix, O_CLOEXEC);
		if (fd >= 0)
			ol_temp_register(path);
	}
	if (fd < 0) {
		char cause[OL_IO_CAUSE_SIZE];

		ol_error("cannot create temporary file '%s': %s", path,
			 ol_io_cause(errno, save_temps ? "the working directory"
						       : "the temporary directory",
				     cause, sizeof(cause)));
		free(path);
		return NULL;
	}
	if (fd_out)
		*fd_out = fd;
	else
		close(fd);
	char *result = arena_path(path);
	free(path);
	return result;
}

int ol_write_all(int fd, const void *data, size_t size)
{
	const char *p = data;
	while (size > 0) {
		ssize_t w = write(fd, p, size);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += w;
		size -= (size_t)w;
	}
	return 0;
}

/* Writes the whole buffer and closes fd; 0, or the errno of the first call
 * that failed (fd is closed either way). */
static int write_and_close(int fd, const void *data, size_t size)
{
	int err = ol_write_all(fd, data, size);

	if (close(fd) < 0 && !err)
		err = errno;
	return err;
}

static int write_failed(const char *path, int err, const char *holder)
{
	char cause[OL_IO_CAUSE_SIZE];

	return ol_error("cannot write '%s': %s", path, ol_io_cause(err, holder, cause, sizeof(cause)));
}

const char *ol_temp_write(const char *prefix, const char *ext, const void *data, size_t size)
{
	int fd, err;
	const char *path;

	if (names_only)
		return ol_temp_create(prefix, ext, NULL);
	path = ol_temp_create(prefix, ext, &fd);

	if (!path)
		return NULL;
	err = write_and_close(fd, data, size);
	if (err) {
		write_failed(path, err, save_temps ? "the working directory" : "the temporary directory");
		return NULL;
	}
	return path;
}

const char *ol_temp_create_beside(const char *path, int *fd_out)
{
	char *tmp = ol_xasprintf("%s.tmp-XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	const char *result;

	if (fd < 0) {
		char cause[OL_IO_CAUSE_SIZE];

		ol_error("cannot create '%s': %s", path,
			 ol_io_cause(errno, "the output", cause, sizeof(cause)));
		free(tmp);
		return NULL;
	}
	ol_temp_register(tmp);
	if (fd_out)
		*fd_out = fd;
	else
		close(fd);
	result = arena_path(tmp);
	free(tmp);
	return result;
}

/* The directory `path` would be created in, writable and searchable. */
static int directory_takes_files(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ok;

	if (!slash)
		return faccessat(AT_FDCWD, ".", W_OK | X_OK, AT_EACCESS) == 0;
	dir = ol_xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
	ok = faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0;
	free(dir);
	return ok;
}

const char *ol_temp_name_beside(const char *path)
{
	unsigned char bytes[6];
	struct stat st;
	char *name = NULL;
	const char *result;

	/* Creating and removing a file costs two journal updates on every
	 * plain link; a name as random as mkstemp's that is free now does
	 * the same job.  Anything unusual takes the creating path, which says
	 * why a directory refuses files. */
	if (directory_takes_files(path) &&
	    getrandom(bytes, sizeof(bytes), GRND_NONBLOCK) == (ssize_t)sizeof(bytes)) {
		char random[sizeof(bytes) + 1];

		for (size_t i = 0; i < sizeof(bytes); i++)
			random[i] = letters[bytes[i] % (sizeof(letters) - 1)];
		random[sizeof(bytes)] = '\0';
		name = ol_xasprintf("%s.tmp-%s", path, random);
		if (lstat(name, &st) == 0 || errno != ENOENT) {
			free(name);
			name = NULL;
		}
	}
	if (!name) {
		result = ol_temp_create_beside(path, NULL);
		if (result)
			unlink(result);
		return result;
	}
	ol_temp_register(name);
	result = arena_path(name);
	free(name);
	return result;
}

int ol_temp_commit(const char *tmp, const char *path)
{
	if (rename(tmp, path) < 0)
		return write_failed(path, errno, "the output");
	ol_temp_forget(tmp);
	return 0;
}

/* The whole file in a temp file beside `path`, readable by all; the temp
 * file's path, or NULL once reported. */
static const char *write_beside(const char *path, const void *data, size_t size)
{
	int fd, err;
	const char *tmp = ol_temp_create_beside(path, &fd);

	if (!tmp)
		return NULL;
	err = fchmod(fd, 0644) < 0 ? errno : 0;
	if (err)
		close(fd);
	else
		err = write_and_close(fd, data, size);
	if (err) {
		write_failed(path, err, "the output");
		return NULL;
	}
	return tmp;
}

int ol_write_file_atomic(const char *path, const void *data, size_t size)
{
	const char *tmp = write_beside(path, data, size);

	return tmp ? ol_temp_commit(tmp, path) : -1;
}

int ol_write_file_new(const char *path, const void *data, size_t size)
{
	const char *tmp = write_beside(path, data, size);
	int rc = 0;

	if (!tmp)
		return -1;
	/* link() fails when the name exists, even when it appeared after the
	 * caller looked: rename() would replace it. */
	if (link(tmp, path) < 0)
		rc = write_failed(path, errno, "the output");
	unlink(tmp);
	ol_temp_forget(tmp);
	return rc;
}
