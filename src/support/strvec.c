/* strvec and strbuf: owned strings and argv vectors.  See offload/strvec.h. */
#include "offload/strvec.h"
#include "offload/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void strvec_grow(struct strvec *sv)
{
	if (sv->nr + 2 > sv->alloc) {
		sv->alloc = sv->alloc ? sv->alloc * 2 : 8;
		sv->v = ol_xrealloc(sv->v, sv->alloc * sizeof(*sv->v));
	}
}

static void strvec_push_owned(struct strvec *sv, char *s)
{
	strvec_grow(sv);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_owned(sv, ol_xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		ol_fatal("out of memory");
	va_end(ap);
	strvec_push_owned(sv, s);
}

void strvec_pushv(struct strvec *sv, const char *const *v)
{
	for (; v && *v; v++)
		strvec_push(sv, *v);
}

void strvec_push_all(struct strvec *dst, const struct strvec *src)
{
	for (size_t i = 0; i < src->nr; i++)
		strvec_push(dst, src->v[i]);
}

void strvec_release(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->nr = sv->alloc = 0;
}

static void strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 > sb->alloc) {
		size_t alloc = sb->alloc ? sb->alloc * 2 : 64;
		while (alloc < sb->len + extra + 1)
			alloc *= 2;
		sb->buf = ol_xrealloc(sb->buf, alloc);
		sb->alloc = alloc;
	}
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;
	strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		OL_BUG("bad format");
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : ol_xstrdup("");
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return s;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void strbuf_add_json_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addch(sb, '\\');
		if ((unsigned char)*s < 0x20)
			strbuf_addf(sb, "\\u%04x", (unsigned char)*s);
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}
