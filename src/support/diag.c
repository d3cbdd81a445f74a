/* diag: messages, error counting, per-thread capture.  See offload/diag.h. */
#include "offload/diag.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog_name = "offload-link";
static atomic_int error_count;
static _Thread_local struct ol_diag_buffer *capture;

void ol_diag_init(const char *argv0)
{
	const char *base;

	if (!argv0 || !*argv0)
		return;
	base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	/* Upstream prefixes messages with argv[0] verbatim; clang's tests and
	 * users' scripts match on that, so keep it under the upstream name. */
	prog_name = strcmp(base, "clang-linker-wrapper") == 0 ? argv0 : "offload-link";
}

const char *ol_prog_name(void)
{
	return prog_name;
}

const char *ol_loc_format(const struct ol_loc *loc, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (!loc)
		return buf;
	if (loc->file)
		n += snprintf(buf + n, size - n, "%s", loc->file);
	if (loc->member && n < size)
		n += snprintf(buf + n, size - n, "(%s)", loc->member);
	if (loc->section && n < size)
		n += snprintf(buf + n, size - n, "%s%s", n ? ": " : "", loc->section);
	if (loc->has_offset && n < size)
		snprintf(buf + n, size - n, "%s+0x%" PRIx64,
			 loc->section ? "" : (n ? ": " : ""), loc->offset);
	return buf;
}

static void emit(const char *text, size_t len)
{
	if (capture) {
		if (capture->len + len + 1 > capture->cap) {
			size_t cap = capture->cap ? capture->cap * 2 : 256;
			while (cap < capture->len + len + 1)
				cap *= 2;
			capture->text = ol_xrealloc(capture->text, cap);
			capture->cap = cap;
		}
		memcpy(capture->text + capture->len, text, len);
		capture->len += len;
		capture->text[capture->len] = '\0';
		return;
	}
	/* One write per message keeps lines whole when threads race. */
	while (len > 0) {
		ssize_t w = write(STDERR_FILENO, text, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		text += w;
		len -= (size_t)w;
	}
}

static void vreport(const char *severity, const struct ol_loc *loc, const char *fmt, va_list ap)
{
	char where[1024], msg[4096];
	int n;

	if (loc && (loc->file || loc->section)) {
		ol_loc_format(loc, where, sizeof(where));
		n = snprintf(msg, sizeof(msg), "%s: %s: %s: ", prog_name, severity, where);
	} else {
		n = snprintf(msg, sizeof(msg), "%s: %s: ", prog_name, severity);
	}
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = (int)sizeof(msg) - 2;
	n += vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(msg) - 1)
		n = (int)sizeof(msg) - 2;
	msg[n++] = '\n';
	emit(msg, (size_t)n);
}

static void count_error(void)
{
	if (capture)
		capture->errors++;
	else
		atomic_fetch_add(&error_count, 1);
}

int ol_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", NULL, fmt, ap);
	va_end(ap);
	count_error();
	return -1;
}

int ol_error_at(const struct ol_loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", loc, fmt, ap);
	va_end(ap);
	count_error();
	return -1;
}

void ol_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning", NULL, fmt, ap);
	va_end(ap);
}

void ol_warn_at(const struct ol_loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning", loc, fmt, ap);
	va_end(ap);
}

void ol_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("note", NULL, fmt, ap);
	va_end(ap);
}

void ol_fatal(const char *fmt, ...)
{
	va_list ap;
	capture = NULL;
	va_start(ap, fmt);
	vreport("error", NULL, fmt, ap);
	va_end(ap);
	ol_temp_cleanup();
	_exit(1);
}

void ol_bug(const char *file, int line, const char *msg)
{
	capture = NULL;
	fprintf(stderr, "%s: internal error: %s:%d: %s\n", prog_name, file, line, msg);
	ol_temp_cleanup();
	abort();
}

int ol_error_count(void)
{
	return atomic_load(&error_count);
}

void ol_checkpoint(void)
{
	if (atomic_load(&error_count) > 0)
		exit(1);  /* atexit handlers remove temp files */
}

void ol_diag_capture_begin(struct ol_diag_buffer *buf)
{
	capture = buf;
}

void ol_diag_capture_end(void)
{
	capture = NULL;
}

void ol_diag_flush(struct ol_diag_buffer *buf)
{
	struct ol_diag_buffer *saved = capture;

	capture = NULL;
	if (buf->len)
		emit(buf->text, buf->len);
	capture = saved;
	if (buf->errors)
		atomic_fetch_add(&error_count, buf->errors);
	free(buf->text);
	memset(buf, 0, sizeof(*buf));
}

static void *check_alloc(void *p)
{
	if (!p)
		ol_fatal("out of memory");
	return p;
}

void *ol_xmalloc(size_t n)
{
	return check_alloc(malloc(n ? n : 1));
}

void *ol_xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *ol_xrealloc(void *p, size_t n)
{
	return check_alloc(realloc(p, n ? n : 1));
}

char *ol_xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

char *ol_xstrndup(const char *s, size_t n)
{
	return check_alloc(strndup(s, n));
}

char *ol_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&out, fmt, ap);
	va_end(ap);
	if (r < 0)
		ol_fatal("out of memory");
	return out;
}

void ol_diag_write(const char *text, size_t len)
{
	emit(text, len);
}
