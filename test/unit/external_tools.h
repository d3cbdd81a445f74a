/*
 * external_tools: for unit tests that compare with the real tools
 * (clang-offload-bundler, fatbinary, clang): a scratch directory, whole-file
 * reads and writes, and running a program with a clean environment.
 * A test calls scratch_open() first and scratch_close() at the end.
 */
#ifndef OL_TEST_EXTERNAL_TOOLS_H
#define OL_TEST_EXTERNAL_TOOLS_H

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char scratch_dir[] = "/tmp/ol-unit-XXXXXX";

static inline int scratch_open(void)
{
	if (!mkdtemp(scratch_dir)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

/* "<scratch>/<name>" in one of a few rotating buffers. */
static inline const char *scratch(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *scratch(const char *fmt, ...)
{
	static char paths[8][512];
	static int next;
	char *path = paths[next++ % 8];
	int n = snprintf(path, sizeof(paths[0]), "%s/", scratch_dir);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path + n, sizeof(paths[0]) - (size_t)n, fmt, ap);
	va_end(ap);
	return path;
}

static inline int run_tool(const char *const *argv, const char *const *extra);

static inline void scratch_close(void)
{
	const char *argv[] = { "rm", "-rf", scratch_dir, NULL };

	run_tool(argv, NULL);
}

/* The whole file, malloc'd, with a NUL after it (so an empty file is not
 * NULL, and a text file is a string). */
static inline uint8_t *read_whole(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long n;

	*size = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		data = malloc((size_t)n + 1);
		if (data && fread(data, 1, (size_t)n, f) == (size_t)n) {
			data[n] = 0;
			*size = (size_t)n;
		} else {
			free(data);
			data = NULL;
		}
	}
	fclose(f);
	return data;
}

static inline int write_whole(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f)
		return -1;
	rc = size && fwrite(data, 1, size, f) != size ? -1 : 0;
	return fclose(f) == 0 ? rc : -1;
}

/* Runs argv (argv[0] a path, or a name looked up in $PATH) with only PATH,
 * HOME and the NULL-terminated `extra` assignments in its environment, so
 * variables such as OFFLOAD_BUNDLER_COMPRESS cannot change what it does.
 * Its stderr goes to ours, or nowhere when `quiet` (an expected failure).
 * Returns the exit status, or -1. */
static inline int run_tool_with(const char *const *argv, const char *const *extra, int quiet)
{
	posix_spawn_file_actions_t actions;
	const char *env[16];
	size_t n = 0;
	pid_t pid;
	int status, rc;

	env[n++] = "PATH=/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin";
	env[n++] = "HOME=/tmp";
	for (; extra && *extra && n < 15; extra++)
		env[n++] = *extra;
	env[n] = NULL;
	posix_spawn_file_actions_init(&actions);
	if (quiet)
		posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &actions, NULL, (char *const *)argv, (char *const *)env);
	posix_spawn_file_actions_destroy(&actions);
	if (rc != 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static inline int run_tool(const char *const *argv, const char *const *extra)
{
	return run_tool_with(argv, extra, 0);
}

/* Whether `path` is an executable; says which check is skipped when not. */
static inline int have_tool(const char *path, const char *test, const char *what)
{
	if (access(path, X_OK) == 0)
		return 1;
	printf("%s: %s not found: %s skipped\n", test, path, what);
	return 0;
}

#endif
