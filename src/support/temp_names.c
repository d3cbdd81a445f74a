/* temp_names: temp file names mapped back to the inputs.  See offload/temp_names.h. */
#include "offload/temp_names.h"
#include "offload/strvec.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct described {
	char *path;
	char *description;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct described *names;
static size_t nnames, alloc;
static int enabled;

void ol_temp_names_enable(int on)
{
	enabled = on;
}

void ol_temp_name_describe(const char *path, const char *fmt, ...)
{
	struct strbuf raw = STRBUF_INIT;
	char *escaped;
	va_list ap;

	if (!enabled || !path)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	escaped = ol_xmalloc(raw.len * 4 + 1);
	ol_escape_bytes(strbuf_str(&raw), raw.len, escaped, raw.len * 4 + 1);
	strbuf_release(&raw);

	pthread_mutex_lock(&lock);
	OL_GROW(names, nnames + 1, alloc, 16);
	names[nnames].path = ol_xstrdup(path);
	names[nnames].description = escaped;
	nnames++;
	pthread_mutex_unlock(&lock);
}

/* The described path that starts at text, or NULL. */
static const struct described *path_at(const char *text, size_t len)
{
	for (size_t i = 0; i < nnames; i++) {
		size_t n = strlen(names[i].path);

		if (n <= len && !memcmp(text, names[i].path, n))
			return &names[i];
	}
	return NULL;
}

char *ol_temp_names_rewrite(const char *text, size_t len, size_t *out_len)
{
	struct strbuf out = STRBUF_INIT;
	size_t copied = 0;
	int replaced = 0;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; nnames && i < len; i++) {
		const struct described *d;

		/* Every temp path is absolute ($TMPDIR/...). */
		if (text[i] != '/' || !(d = path_at(text + i, len - i)))
			continue;
		strbuf_add(&out, text + copied, i - copied);
		strbuf_addstr(&out, d->description);
		i += strlen(d->path) - 1;
		copied = i + 1;
		replaced = 1;
	}
	pthread_mutex_unlock(&lock);
	if (!replaced) {
		strbuf_release(&out);
		return NULL;
	}
	strbuf_add(&out, text + copied, len - copied);
	*out_len = out.len;
	return strbuf_detach(&out);
}
