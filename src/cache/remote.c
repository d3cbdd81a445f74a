/*
 * remote: the device-link cache's remote tier
 * (docs/design/cache-and-remote-stores.md, "Remote storage"): entries shared through the Redis and HTTP stores that ccache
 * users already run.
 *
 * Configuration (--remote-storage= / OFFLOAD_LINK_REMOTE_STORAGE) reads like
 * ccache's remote_storage: URLs separated by white space, each followed by its
 * attributes, "name" (for name=true) or "name=value".  As in ccache, '|'
 * counts as white space ("url|read-only"), a leading '@' on a name is
 * ignored, and a word with a ':' before any '=' starts the next URL.
 *   read-only[=true|false]      look entries up, never store them
 *   connect-timeout=N           default 1000 ms (N in ms, or Nms, Ns)
 *   operation-timeout=N         default 5000 ms: the most one request takes
 * and the protocol's own (remote_http.c: layout, bearer-token).
 *
 * The local cache is asked first; the remotes then, in order, the first that
 * has a good entry answering.  A remote that fails in any way (no module, an
 * unknown scheme or attribute, no connection, a timeout, an error answer)
 * costs one warning and is not asked again by this link; the link goes on.
 * An entry whose checksum fails is ignored as if it were not there.
 */
#include "cache_impl.h"
#include "offload/remote_protocol.h"
#include "offload/diag.h"
#include "offload/plugin.h"
#include "offload/spawn.h"
#include "offload/strvec.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_CONNECT_TIMEOUT_MS 1000
#define DEFAULT_OPERATION_TIMEOUT_MS 5000
#define MAX_TIMEOUT_MS 600000

enum remote_state { NOT_OPENED, OPEN, GIVEN_UP };

struct ol_remote {
	struct ol_remote_target target;
	char *url, *shown, *scheme, *user, *password, *host, *path;   /* target's strings */
	struct strvec attributes;      /* as configured, "name=value" */
	struct strvec theirs;          /* those the protocol reads */
	int read_only;
	const struct ol_remote_protocol *protocol;
	void *conn;
	enum remote_state state;
};

struct ol_remotes {
	struct ol_remote *v;
	size_t n;
	struct ol_cache_stats *stats;
};

/* ---- configuration --------------------------------------------------------- */

static int hex_digit(int c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				     : -1;
}

/* %XX decoded; NULL when a '%' is not followed by two hex digits. */
static char *percent_decode(const char *s, size_t len)
{
	char *out = ol_xmalloc(len + 1), *o = out;

	for (size_t i = 0; i < len; i++) {
		if (s[i] != '%') {
			*o++ = s[i];
		} else if (i + 2 < len && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
			*o++ = (char)(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
			i += 2;
		} else {
			free(out);
			return NULL;
		}
	}
	*o = '\0';
	return out;
}

/* scheme://[user[:password]@]host[:port][/path]; NULL or why it is not one. */
static const char *parse_url(struct ol_remote *r, const char *text)
{
	const char *sep = strstr(text, "://"), *auth, *end, *at, *host, *colon;
	size_t len = strlen(text);

	if (!sep || sep == text)
		return "not a URL (scheme://host[:port][/path])";
	while (len > (size_t)(sep + 3 - text) && text[len - 1] == '/')
		len--;
	r->url = ol_xstrndup(text, len);
	r->scheme = ol_xstrndup(text, (size_t)(sep - text));
	auth = r->url + (sep + 3 - text);
	end = auth + strcspn(auth, "/?#");
	if (*end == '?' || *end == '#')
		return "a query or fragment in the URL";
	r->path = ol_xstrdup(end);
	/* The last '@' ends the user part: a password may hold one. */
	at = NULL;
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	host = at ? at + 1 : auth;
	if (at) {
		const char *pw = memchr(auth, ':', (size_t)(at - auth));
		/* Messages show the user, never the password. */
		r->shown = ol_xasprintf("%s://%.*s%s********@%s", r->scheme,
					pw ? (int)(pw - auth) : 0, auth, pw && pw > auth ? ":" : "", host);
		r->user = pw ? percent_decode(auth, (size_t)(pw - auth)) : NULL;
		r->password = percent_decode(pw ? pw + 1 : auth, (size_t)(at - (pw ? pw + 1 : auth)));
		if ((pw && !r->user) || !r->password)
			return "a bad %-escape in the user part of the URL";
		if (r->user && !*r->user) {
			free(r->user);
			r->user = NULL;
		}
	} else {
		r->shown = ol_xstrdup(r->url);
	}
	if (*host == '[') {                        /* [IPv6 address] */
		const char *close = memchr(host, ']', (size_t)(end - host));
		if (!close)
			return "no ']' after the IPv6 address";
		r->host = ol_xstrndup(host + 1, (size_t)(close - host - 1));
		colon = close + 1 < end && close[1] == ':' ? close + 1 : NULL;
		if (close + 1 < end && !colon)
			return "junk after the IPv6 address";
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
		r->host = ol_xstrndup(host, (size_t)((colon ? colon : end) - host));
	}
	if (!*r->host)
		return "no host in the URL";
	if (colon) {
		char *stop;
		unsigned long port = strtoul(colon + 1, &stop, 10);
		if (stop != end || stop == colon + 1 || port == 0 || port > 65535)
			return "a bad port in the URL";
		r->target.port = (unsigned)port;
	}
	return NULL;
}

/* N (ms), Nms or Ns, 1 ms to 10 minutes. */
static int parse_timeout(const char *text, unsigned *ms)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || *text == '-')
		return -1;
	if (strcmp(end, "s") == 0)
		v = v > MAX_TIMEOUT_MS / 1000 ? MAX_TIMEOUT_MS + 1 : v * 1000;
	else if (*end && strcmp(end, "ms") != 0)
		return -1;
	if (v == 0 || v > MAX_TIMEOUT_MS)
		return -1;
	*ms = (unsigned)v;
	return 0;
}

/* Reads the attributes every protocol has; the others wait for the
 * protocol.  NULL, or why the remote cannot be used. */
static const char *apply_attribute(struct ol_remote *r, const char *name, const char *value)
{
	if (strcmp(name, "read-only") == 0) {
		if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
			return "read-only is true or false";
		r->read_only = strcmp(value, "true") == 0;
	} else if (strcmp(name, "connect-timeout") == 0) {
		if (parse_timeout(value, &r->target.connect_timeout_ms) < 0)
			return "connect-timeout is a time, in ms or with ms or s, up to 10 minutes";
	} else if (strcmp(name, "operation-timeout") == 0) {
		if (parse_timeout(value, &r->target.operation_timeout_ms) < 0)
			return "operation-timeout is a time, in ms or with ms or s, up to 10 minutes";
	} else {
		strvec_pushf(&r->theirs, "%s=%s", name, value);
	}
	return NULL;
}

static void release_remote(struct ol_remote *r)
{
	free(r->url);
	free(r->shown);
	free(r->scheme);
	free(r->user);
	free(r->password);
	free(r->host);
	free(r->path);
	strvec_release(&r->attributes);
	strvec_release(&r->theirs);
}

/* A word that starts a URL: a ':' before any '='. */
static int starts_url(const char *word, size_t len)
{
	size_t colon = strcspn(word, ":"), eq = strcspn(word, "=");

	return colon < len && colon < eq;
}

static void add_remote(struct ol_remotes *rs, struct ol_remote *r)
{
	const char *why = NULL;

	for (size_t i = 0; i < r->attributes.nr && !why; i++) {
		char *name = ol_xstrdup(r->attributes.v[i]), *value = strchr(name, '=');
		*value++ = '\0';
		why = apply_attribute(r, name, value);
		free(name);
	}
	if (why) {
		ol_warn("device-link cache: remote storage %s: %s; not using it", r->shown, why);
		release_remote(r);
		return;
	}
	r->target.url = r->url;
	r->target.shown = r->shown;
	r->target.user = r->user;
	r->target.password = r->password;
	r->target.host = r->host;
	r->target.path = r->path;
	rs->v = ol_xrealloc(rs->v, (rs->n + 1) * sizeof(*rs->v));
	rs->v[rs->n++] = *r;
}

struct ol_remotes *ol_remotes_configure(const char *config, struct ol_cache_stats *stats)
{
	struct ol_remotes *rs = ol_xcalloc(1, sizeof(*rs));
	struct ol_remote r;
	enum { NO_URL_YET, GOOD_URL, BAD_URL } state = NO_URL_YET;

	rs->stats = stats;
	for (const char *p = config ? config : "";; ) {
		p += strspn(p, " \t\n|");
		size_t len = strcspn(p, " \t\n|");
		if (len == 0)
			break;
		if (starts_url(p, len)) {
			if (state == GOOD_URL)
				add_remote(rs, &r);
			memset(&r, 0, sizeof(r));
			r.target.connect_timeout_ms = DEFAULT_CONNECT_TIMEOUT_MS;
			r.target.operation_timeout_ms = DEFAULT_OPERATION_TIMEOUT_MS;
			char *text = ol_xstrndup(p, len);
			const char *why = parse_url(&r, text);
			state = why ? BAD_URL : GOOD_URL;
			if (why) {
				ol_warn("device-link cache: remote storage '%s': %s; not using it",
					r.shown ? r.shown : text, why);
				release_remote(&r);
			}
			free(text);
		} else if (state == GOOD_URL) {
			const char *word = p + (*p == '@');
			int n = (int)len - (*p == '@');
			if (memchr(word, '=', (size_t)n))
				strvec_pushf(&r.attributes, "%.*s", n, word);
			else
				strvec_pushf(&r.attributes, "%.*s=true", n, word);
		} else if (state == NO_URL_YET) {
			ol_warn("device-link cache: remote storage: '%.*s' comes before any URL; ignored",
				(int)len, p);
		}
		p += len;
	}
	if (state == GOOD_URL)
		add_remote(rs, &r);
	if (rs->n == 0) {
		free(rs);
		return NULL;
	}
	for (size_t i = 0; i < rs->n; i++)
		ol_spawn_note("device-link cache: remote storage %s%s", rs->v[i].shown,
			      rs->v[i].read_only ? " (read-only)" : "");
	return rs;
}

/* ---- the protocols' module --------------------------------------------------- */

static const struct ol_remote_protocols *protocols;
static char *module_failure;

static const struct ol_remote_protocols *load_protocols(const char **why)
{
	if (!protocols && !module_failure) {
		struct strbuf tried = STRBUF_INIT;
		void *handle = ol_plugin_open(OL_REMOTE_MODULE, NULL, OL_REMOTE_INSTALL_PATH, &tried);
		ol_remote_entry_fn entry =
			handle ? (ol_remote_entry_fn)(uintptr_t)dlsym(handle, OL_REMOTE_ENTRY) : NULL;
		const struct ol_remote_protocols *table = entry ? entry() : NULL;

		if (!handle)
			module_failure = ol_xasprintf("cannot load %s; tried:%s", OL_REMOTE_MODULE,
						      strbuf_str(&tried));
		else if (!table || table->abi != OL_REMOTE_ABI)
			module_failure = ol_xasprintf("%s is incompatible with this offload-link",
						      OL_REMOTE_MODULE);
		else
			protocols = table;
		strbuf_release(&tried);
	}
	*why = module_failure;
	return protocols;
}

/* ---- asking the remotes ---------------------------------------------------------- */

/* A write to a connection the server closed raises SIGPIPE, and tempfile.c's
 * handler would end the link: it is blocked around every call into a
 * protocol, and one raised meanwhile is taken back before unblocking. */
static void hold_sigpipe(sigset_t *old)
{
	sigset_t pipe;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, old);
}

static void release_sigpipe(const sigset_t *old)
{
	sigset_t pipe;
	const struct timespec now = { 0, 0 };

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	while (sigtimedwait(&pipe, NULL, &now) == SIGPIPE)
		;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void disconnect(struct ol_remote *r)
{
	sigset_t old;

	if (!r->conn)
		return;
	hold_sigpipe(&old);
	r->protocol->close(r->conn);
	release_sigpipe(&old);
	r->conn = NULL;
}

static void give_up(struct ol_remote *r, struct ol_cache_stats *stats, const char *why)
{
	ol_warn("device-link cache: remote storage %s is not usable (%s); linking without it",
		r->shown, why);
	disconnect(r);
	r->state = GIVEN_UP;
	stats->remote_errors++;
}

/* Which protocol, and are all attributes its own?  NULL, or why not. */
static char *find_protocol(struct ol_remote *r, const struct ol_remote_protocols *table)
{
	struct strbuf known = STRBUF_INIT;

	for (size_t i = 0; i < table->n; i++) {
		for (const char *const *scheme = table->v[i]->schemes; *scheme; scheme++) {
			if (!r->protocol && strcmp(*scheme, r->scheme) == 0)
				r->protocol = table->v[i];
			strbuf_addf(&known, "%s%s", known.len ? ", " : "", *scheme);
		}
	}
	if (!r->protocol) {
		char *why = ol_xasprintf("unknown scheme '%s'; known: %s", r->scheme, strbuf_str(&known));
		strbuf_release(&known);
		return why;
	}
	strbuf_release(&known);
	for (size_t i = 0; i < r->theirs.nr; i++) {
		const char *attr = r->theirs.v[i];
		size_t len = strcspn(attr, "=");
		int ok = 0;
		for (const char *const *a = r->protocol->attributes; *a && !ok; a++)
			ok = strlen(*a) == len && strncmp(*a, attr, len) == 0;
		if (!ok)
			return ol_xasprintf("unknown attribute '%.*s'", (int)len, attr);
	}
	return NULL;
}

/* Opens r on first use; 0 when it can be asked. */
static int ready(struct ol_remote *r, struct ol_cache_stats *stats)
{
	const struct ol_remote_protocols *table;
	const char *module_why;
	char *why = NULL;

	if (r->state != NOT_OPENED)
		return r->state == OPEN ? 0 : -1;
	table = load_protocols(&module_why);
	if (!table) {
		give_up(r, stats, module_why);
		return -1;
	}
	why = find_protocol(r, table);
	if (!why) {
		static char *const none[] = { NULL };
		sigset_t old;
		r->target.attributes = r->theirs.v ? r->theirs.v : none;
		hold_sigpipe(&old);
		r->conn = r->protocol->open(&r->target, &why);
		release_sigpipe(&old);
	}
	if (!r->conn) {
		give_up(r, stats, why ? why : "cannot connect");
		free(why);
		return -1;
	}
	r->state = OPEN;
	return 0;
}

int ol_remotes_get(struct ol_remotes *rs, const char *key, uint8_t **entry, size_t *size,
		   const char **from)
{
	int asked = 0;

	for (size_t i = 0; i < rs->n; i++) {
		struct ol_remote *r = &rs->v[i];
		char *why = NULL;
		const char *damage;
		sigset_t old;
		int found;

		if (ready(r, rs->stats) < 0)
			continue;
		hold_sigpipe(&old);
		found = r->protocol->get(r->conn, key, entry, size, &why);
		release_sigpipe(&old);
		if (found < 0) {
			give_up(r, rs->stats, why ? why : "lookup failed");
			free(why);
			continue;
		}
		asked = 1;
		if (!found)
			continue;
		damage = ol_cache_entry_damage(*entry, *size);
		if (damage) {
			/* Never used; a store after the link replaces it. */
			ol_spawn_note("device-link cache: ignoring entry %s from %s: %s", key, r->shown,
				      damage);
			free(*entry);
			continue;
		}
		*from = r->shown;
		rs->stats->remote_hits++;
		rs->stats->remote_fetched += *size;
		return 1;
	}
	*entry = NULL;
	*size = 0;
	if (asked)
		rs->stats->remote_misses++;
	return asked ? 0 : -1;
}

int ol_remotes_writable(const struct ol_remotes *rs)
{
	for (size_t i = 0; rs && i < rs->n; i++)
		if (!rs->v[i].read_only && rs->v[i].state != GIVEN_UP)
			return 1;
	return 0;
}

void ol_remotes_put(struct ol_remotes *rs, const char *key, const uint8_t *entry, size_t size)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct ol_remote *r = &rs->v[i];
		char *why = NULL;
		sigset_t old;
		int stored;

		if (r->read_only || ready(r, rs->stats) < 0)
			continue;
		hold_sigpipe(&old);
		stored = r->protocol->put(r->conn, key, entry, size, &why);
		release_sigpipe(&old);
		if (stored < 0) {
			give_up(r, rs->stats, why ? why : "store failed");
			free(why);
			continue;
		}
		ol_spawn_note("device-link cache: stored %.16s in %s", key, r->shown);
		rs->stats->remote_stores++;
	}
}

void ol_remotes_close(struct ol_remotes *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->n; i++) {
		disconnect(&rs->v[i]);
		release_remote(&rs->v[i]);
	}
	free(rs->v);
	free(rs);
}
