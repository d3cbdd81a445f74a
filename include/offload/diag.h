/*
 * diag: the one place messages reach the user.
 *
 * Format: "<prog>: error: <where>: <what>", where <prog> is the name the
 * program was invoked as ("offload-link", or argv[0] verbatim when invoked as
 * clang-linker-wrapper, as upstream does), and <where> is a location built by
 * ol_loc_format(): "lib.a(member.o): .llvm.offloading+0x40".
 *
 * ol_error() counts errors and returns -1 so callers can "return ol_error(...)".
 * Stages report every bad input they meet; main() calls ol_checkpoint() between
 * stages, which exits 1 if any error was reported.
 *
 * Thread safety: messages are written with one write(2) each.  Device jobs
 * running on worker threads collect their messages in their own buffer
 * (struct ol_diag_buffer) and flush it whole, so output never interleaves.
 */
#ifndef OFFLOAD_DIAG_H
#define OFFLOAD_DIAG_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>

#if defined(__GNUC__)
#define OL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define OL_NORETURN __attribute__((noreturn))
#else
#define OL_PRINTF(a, b)
#define OL_NORETURN
#endif

/* Where a problem is: any field may be NULL/0.  offset is relative to the
 * start of `section` when section is set, else to the start of the file or
 * member. */
struct ol_loc {
	const char *file;     /* path as given on the command line */
	const char *member;   /* archive member name, or NULL */
	const char *section;  /* ".llvm.offloading", or NULL */
	uint64_t offset;
	int has_offset;
};

void ol_diag_init(const char *argv0);
const char *ol_prog_name(void);

/* "file", "file(member)", "file(member): .sec+0x40", "file: +0x40" into buf. */
const char *ol_loc_format(const struct ol_loc *loc, char *buf, size_t size);

int ol_error(const char *fmt, ...) OL_PRINTF(1, 2);
int ol_error_at(const struct ol_loc *loc, const char *fmt, ...) OL_PRINTF(2, 3);
void ol_warn(const char *fmt, ...) OL_PRINTF(1, 2);
void ol_warn_at(const struct ol_loc *loc, const char *fmt, ...) OL_PRINTF(2, 3);
void ol_note(const char *fmt, ...) OL_PRINTF(1, 2);  /* "<prog>: note: ..." */
OL_NORETURN void ol_fatal(const char *fmt, ...) OL_PRINTF(1, 2);
OL_NORETURN void ol_bug(const char *file, int line, const char *msg);
#define OL_BUG(msg) ol_bug(__FILE__, __LINE__, (msg))

/* Copies len bytes of `in` to out (size bytes, NUL-terminated), control
 * characters and bytes that are not valid UTF-8 written as \xNN.  Every
 * message goes through it.  Returns the length written (what fits). */
size_t ol_escape_bytes(const char *in, size_t len, char *out, size_t size);

/* Raw text to stderr, or into the thread's capture buffer (command echoes). */
void ol_diag_write(const char *text, size_t len);

/* ol_fatal and ol_bug call `cleanup` before they end the process (the
 * temp-file registry's, registered by ol_temp_init). */
void ol_diag_on_fatal(void (*cleanup)(void));

/* Why a file operation failed, for a message: strerror(err), except that a
 * full file system is named as such, with `holder` saying what lives there:
 * "no space left on the device holding the cache (ENOSPC)", and for EDQUOT
 * "... (disk quota exceeded, EDQUOT)".  Written into buf (size bytes);
 * returns buf.  err is the errno of the call that failed, saved before any
 * cleanup call could overwrite it. */
const char *ol_io_cause(int err, const char *holder, char *buf, size_t size);
#define OL_IO_CAUSE_SIZE 160

int ol_error_count(void);
/* Exit 1 (after temp-file cleanup) if any error has been reported. */
void ol_checkpoint(void);

/* Per-thread capture: while a buffer is active on a thread, that thread's
 * messages go into it instead of stderr.  ol_diag_capture_begin returns the
 * buffer that was active (NULL for none), to be made active again with it. */
struct ol_diag_buffer {
	char *text;
	size_t len, cap;
	int errors;
};
struct ol_diag_buffer *ol_diag_capture_begin(struct ol_diag_buffer *buf);
void ol_diag_capture_end(void);
/* Writes the buffer where the thread's messages go, in one piece: into the
 * active capture buffer (its errors counted there), else to stderr (its
 * errors added to the global count); then frees it. */
void ol_diag_flush(struct ol_diag_buffer *buf);

/* xmalloc family: die on OOM. */
void *ol_xmalloc(size_t n);
void *ol_xcalloc(size_t n, size_t size);
void *ol_xrealloc(void *p, size_t n);
char *ol_xstrdup(const char *s);
char *ol_xstrndup(const char *s, size_t n);
char *ol_xasprintf(const char *fmt, ...) OL_PRINTF(1, 2);

/* Room for `need` elements of `size` bytes in array, whose capacity is
 * *alloc: doubles it, from `first`, until they fit (git's ALLOC_GROW).
 * Returns the array, moved maybe; dies on OOM. */
void *ol_grow(void *array, size_t *alloc, size_t need, size_t size, size_t first);
#define OL_GROW(array, need, alloc, first) \
	((array) = ol_grow((array), &(alloc), (need), sizeof(*(array)), (first)))

#endif
