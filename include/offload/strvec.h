/*
 * strvec: a NULL-terminated, growable vector of owned strings (git's strvec).
 * strbuf: a growable NUL-terminated byte buffer (git's strbuf).
 * Both own their memory; *_release frees it and leaves an empty, reusable value.
 * ol_starts_with: the prefix test the argument handling needs everywhere;
 * ol_base_name: a path's last component.
 */
#ifndef OFFLOAD_STRVEC_H
#define OFFLOAD_STRVEC_H

#include <stddef.h>
#include <stdarg.h>
#include <string.h>

/* Does s begin with prefix? */
static inline int ol_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The part of path after its last '/' (all of it without one). */
static inline const char *ol_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

struct strvec {
	char **v;      /* v[nr] == NULL always (v may be NULL when nr == 0 and never grown) */
	size_t nr, alloc;
};
#define STRVEC_INIT { NULL, 0, 0 }

void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void strvec_pushv(struct strvec *sv, const char *const *v);  /* NULL-terminated */
void strvec_push_all(struct strvec *dst, const struct strvec *src);
void strvec_release(struct strvec *sv);

struct strbuf {
	char *buf;     /* always NUL-terminated once grown; "" sentinel before */
	size_t len, alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* s as a JSON string, quotes included: '"' and '\\' escaped, control
 * characters as \u00XX. */
void strbuf_add_json_string(struct strbuf *sb, const char *s);
const char *strbuf_str(const struct strbuf *sb);  /* "" when empty */
char *strbuf_detach(struct strbuf *sb);            /* caller frees */
void strbuf_release(struct strbuf *sb);

#endif
