/* diag: messages, error counting, per-thread capture.  See offload/diag.h. */
#include "offload/diag.h"
#include "offload/progress.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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
	/* One write per message keeps lines whole when threads race; the
	 * progress line is erased first and kept away meanwhile. */
	ol_progress_hold();
	while (len > 0) {
		ssize_t w = write(STDERR_FILENO, text, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		text += w;
		len -= (size_t)w;
	}
	ol_progress_release();
}

/* Length of the valid UTF-8 sequence at s (of at most len bytes), or 0:
 * no overlongs, no surrogates, nothing past U+10FFFF. */
static size_t utf8_sequence(const unsigned char *s, size_t len)
{
	unsigned lo = 0x80, hi = 0xbf;   /* bounds of the second byte */
	size_t need;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		hi = s[0] == 0xed ? 0x9f : 0xbf;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if (len < need || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return need;
}

size_t ol_escape_bytes(const char *in, size_t len, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = 0;

	if (!size)
		return 0;
	for (size_t i = 0; i < len;) {
		size_t seq = s[i] >= 0x80 ? utf8_sequence(s + i, len - i) : 0;

		if (seq) {
			if (n + seq >= size)
				break;
			memcpy(out + n, s + i, seq);
			n += seq;
			i += seq;
		} else if (s[i] >= 0x20 && s[i] != 0x7f && s[i] < 0x80) {
			if (n + 1 >= size)
				break;
			out[n++] = (char)s[i++];
		} else {
			if (n + 4 >= size)
				break;
			snprintf(out + n, 5, "\\x%02x", s[i++]);
			n += 4;
		}
	}
	out[n] = '\0';
	return n;
}

/* Every message is escaped whole: names, triples and arch strings come from
 * the inputs, and their bytes must never reach a terminal raw (no message
 * text of our own has a control character or a byte that is not UTF-8). */
static void vreport(const char *severity, const struct ol_loc *loc, const char *fmt, va_list ap)
{
	char where[1024], raw[4096], msg[sizeof(raw) * 4 + 2];
	int n;

	if (loc && (loc->file || loc->section)) {
		ol_loc_format(loc, where, sizeof(where));
		n = snprintf(raw, sizeof(raw), "%s: %s: %s: ", prog_name, severity, where);
	} else {
		n = snprintf(raw, sizeof(raw), "%s: %s: ", prog_name, severity);
	}
	if (n < 0 || (size_t)n >= sizeof(raw))
		n = (int)sizeof(raw) - 1;
	n += vsnprintf(raw + n, sizeof(raw) - (size_t)n, fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(raw))
		n = (int)sizeof(raw) - 1;
	n = (int)ol_escape_bytes(raw, (size_t)n, msg, sizeof(msg) - 1);
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

/* What a fatal exit undoes first: the temp-file registry registers its
 * cleanup (so diag, which everything calls, calls none of them back). */
typedef void (*cleanup_fn)(void);
static _Atomic(cleanup_fn) fatal_cleanup;

void ol_diag_on_fatal(void (*cleanup)(void))
{
	atomic_store(&fatal_cleanup, cleanup);
}

static void run_fatal_cleanup(void)
{
	cleanup_fn cleanup = atomic_load(&fatal_cleanup);

	if (cleanup)
		cleanup();
}

void ol_fatal(const char *fmt, ...)
{
	va_list ap;
	capture = NULL;
	ol_progress_abandon();
	va_start(ap, fmt);
	vreport("error", NULL, fmt, ap);
	va_end(ap);
	run_fatal_cleanup();
	_exit(1);
}

void ol_bug(const char *file, int line, const char *msg)
{
	capture = NULL;
	ol_progress_abandon();
	fprintf(stderr, "%s: internal error: %s:%d: %s\n", prog_name, file, line, msg);
	run_fatal_cleanup();
	abort();
}

const char *ol_io_cause(int err, const char *holder, char *buf, size_t size)
{
	if (err == ENOSPC)
		snprintf(buf, size, "no space left on the device holding %s (ENOSPC)", holder);
#ifdef EDQUOT
	else if (err == EDQUOT)
		snprintf(buf, size, "no space left on the device holding %s "
			 "(disk quota exceeded, EDQUOT)", holder);
#endif
	else
		snprintf(buf, size, "%s", strerror(err));
	return buf;
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

struct ol_diag_buffer *ol_diag_capture_begin(struct ol_diag_buffer *buf)
{
	struct ol_diag_buffer *previous = capture;

	capture = buf;
	return previous;
}

void ol_diag_capture_end(void)
{
	capture = NULL;
}

void ol_diag_flush(struct ol_diag_buffer *buf)
{
	struct ol_diag_buffer *saved = capture;

	if (saved && saved != buf) {
		if (buf->len)
			ol_diag_write(buf->text, buf->len);
		saved->errors += buf->errors;
	} else {
		capture = NULL;
		if (buf->len)
			emit(buf->text, buf->len);
		capture = saved;
		if (buf->errors)
			atomic_fetch_add(&error_count, buf->errors);
	}
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

void *ol_grow(void *array, size_t *alloc, size_t need, size_t size, size_t first)
{
	size_t n = *alloc;

	if (need <= n)
		return array;
	while (n < need)
		n = n ? n * 2 : first;
	if (n > SIZE_MAX / size)
		ol_fatal("out of memory");
	*alloc = n;
	return ol_xrealloc(array, n * size);
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
