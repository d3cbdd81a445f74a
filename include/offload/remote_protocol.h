/*
 * remote_protocol.h: the interface between the remote storage tier (remote.c,
 * in the executable) and its protocols (remote_redis.c, remote_http.c, built
 * into offload-link-remote.so).
 *
 * The protocols need libcurl and hiredis, whose ~30 shared libraries cost
 * ~15 ms to load: linked into the executable they would slow down every
 * plain host link.  So they live in a module that remote.c dlopens the first
 * time a link asks a remote, as the LLVM backend is (backend.h).  The module
 * exports one function returning its table of protocols; it uses nothing of
 * the executable's, and reports failures as malloc'd strings.
 *
 * A protocol stores entries (the bytes of a local cache entry, header and
 * checksum included) under the cache key (64 hex), in its own namespace.
 * Calls come from one thread at a time.
 */
#ifndef OFFLOAD_REMOTE_PROTOCOL_H
#define OFFLOAD_REMOTE_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OL_REMOTE_ABI 1
#define OL_REMOTE_ENTRY "offload_link_remote_protocols"
#define OL_REMOTE_MODULE "offload-link-remote.so"

/* One configured remote, as the protocol sees it. */
struct ol_remote_target {
	const char *url;            /* as configured, without a trailing '/' */
	const char *shown;          /* the URL for messages: the password hidden */
	/* The URL's parts, percent-decoded; NULL when absent.  path is "" or
	 * starts with '/', without a trailing '/'. */
	const char *user, *password, *host, *path;
	unsigned port;              /* 0: none given */
	unsigned connect_timeout_ms, operation_timeout_ms;
	/* The attributes the protocol reads (its `attributes`), "name=value";
	 * NULL-terminated. */
	char *const *attributes;
};

struct ol_remote_protocol {
	const char *const *schemes;     /* the URL schemes it serves; NULL-terminated */
	/* The attributes it reads besides read-only and the timeouts;
	 * NULL-terminated. */
	const char *const *attributes;
	/* A connection, or NULL and *why.  May connect now or on first use. */
	void *(*open)(const struct ol_remote_target *t, char **why);
	/* 1: found (*data malloc'd); 0: not there; -1: failed, *why set. */
	int (*get)(void *conn, const char *key, uint8_t **data, size_t *size, char **why);
	/* 0: stored; -1: failed, *why set. */
	int (*put)(void *conn, const char *key, const uint8_t *data, size_t size, char **why);
	void (*close)(void *conn);
};

struct ol_remote_protocols {
	int abi;                    /* OL_REMOTE_ABI */
	size_t n;
	const struct ol_remote_protocol *const *v;
};

typedef const struct ol_remote_protocols *(*ol_remote_entry_fn)(void);

/* In the module: a malloc'd message for *why (NULL when out of memory). */
char *ol_remote_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern const struct ol_remote_protocol ol_remote_redis, ol_remote_http;

/* The value of attribute `name` of t, or NULL. */
static inline const char *ol_remote_attribute(const struct ol_remote_target *t, const char *name)
{
	size_t len = strlen(name);

	for (char *const *a = t->attributes; *a; a++)
		if (strncmp(*a, name, len) == 0 && (*a)[len] == '=')
			return *a + len + 1;
	return NULL;
}

#endif
