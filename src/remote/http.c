/*
 * remote_http: entries on an HTTP server, through libcurl: GET to look one
 * up (2xx: there; 404 or 410: not there; anything else: the remote fails),
 * PUT to store it (application/octet-stream; 2xx: stored).
 *
 * URL: http[s]://[user:password@]host[:port][/path] (the user part becomes
 * basic authentication).  Where an entry goes under the URL is ccache's
 * `layout` attribute, with ccache's names:
 *   subdirs (default)  <url>/<first 2 hex of the key>/<other 62>
 *   flat               <url>/<key>
 *   bazel              <url>/ac/<key>: bazel-remote's action cache (the key
 *                      is a SHA-256 already); bazel-remote must run with
 *                      --disable_http_ac_validation, as for ccache
 * A WebDAV server serves each of them (nginx: dav_methods PUT, and
 * create_full_put_path on for subdirs and bazel).  bearer-token=T sends
 * "Authorization: Bearer T".
 *
 * The connect timeout bounds connecting, the operation timeout each whole
 * request.  One handle per remote keeps the connection open between requests.
 */
#include "offload/remote_protocol.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

struct layout {
	const char *name;
	char *(*path)(const char *base, const char *key);
};

static char *subdirs_path(const char *base, const char *key)
{
	return ol_remote_message("%s/%.2s/%s", base, key, key + 2);
}

static char *flat_path(const char *base, const char *key)
{
	return ol_remote_message("%s/%s", base, key);
}

static char *bazel_path(const char *base, const char *key)
{
	return ol_remote_message("%s/ac/%s", base, key);
}

static const struct layout layouts[] = {
	{ "subdirs", subdirs_path },
	{ "flat", flat_path },
	{ "bazel", bazel_path },
};

struct http_conn {
	CURL *curl;
	struct curl_slist *headers;
	const char *base;                   /* the target's URL */
	const struct layout *layout;
	unsigned connect_timeout_ms, operation_timeout_ms;
	char error[CURL_ERROR_SIZE];
};

/* A GET's body. */
struct body {
	uint8_t *data;
	size_t size, cap;
	int out_of_memory;
};

/* A PUT's payload, handed out in the pieces libcurl asks for. */
struct upload {
	const uint8_t *data;
	size_t size, sent;
};

static size_t take_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct body *b = userdata;
	size_t n = size * nmemb;

	if (b->size + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		while (cap < b->size + n)
			cap *= 2;
		uint8_t *grown = realloc(b->data, cap);
		if (!grown) {
			b->out_of_memory = 1;
			return 0;                   /* stops the transfer */
		}
		b->data = grown;
		b->cap = cap;
	}
	memcpy(b->data + b->size, ptr, n);
	b->size += n;
	return n;
}

static size_t give_upload(char *buffer, size_t size, size_t nitems, void *userdata)
{
	struct upload *u = userdata;
	size_t n = size * nitems;

	if (n > u->size - u->sent)
		n = u->size - u->sent;
	memcpy(buffer, u->data + u->sent, n);
	u->sent += n;
	return n;
}

/* Sockets are not inherited by the device linkers the link runs meanwhile. */
static int not_inherited(void *unused, curl_socket_t fd, curlsocktype purpose)
{
	(void)unused;
	(void)purpose;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return CURL_SOCKOPT_OK;
}

static void http_close(void *conn)
{
	struct http_conn *hc = conn;

	curl_easy_cleanup(hc->curl);
	curl_slist_free_all(hc->headers);
	free(hc);
}

static void *http_open(const struct ol_remote_target *t, char **why)
{
	static int initialized;
	const char *layout = ol_remote_attribute(t, "layout"), *token;
	struct http_conn *hc;

	if (!initialized && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		*why = ol_remote_message("cannot initialize libcurl");
		return NULL;
	}
	initialized = 1;
	hc = calloc(1, sizeof(*hc));
	if (!hc)
		return NULL;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (strcmp(layouts[i].name, layout ? layout : "subdirs") == 0)
			hc->layout = &layouts[i];
	if (!hc->layout) {
		*why = ol_remote_message("unknown layout '%s'; known: subdirs, flat, bazel", layout);
		free(hc);
		return NULL;
	}
	hc->base = t->url;
	hc->connect_timeout_ms = t->connect_timeout_ms;
	hc->operation_timeout_ms = t->operation_timeout_ms;
	hc->curl = curl_easy_init();
	/* No "Expect: 100-continue": some servers never answer it, and curl
	 * would wait a second before every large PUT. */
	hc->headers = curl_slist_append(NULL, "Expect:");
	hc->headers = curl_slist_append(hc->headers, "Content-Type: application/octet-stream");
	token = ol_remote_attribute(t, "bearer-token");
	if (token) {
		char *line = ol_remote_message("Authorization: Bearer %s", token);
		hc->headers = line ? curl_slist_append(hc->headers, line) : NULL;
		free(line);
	}
	if (!hc->curl || !hc->headers) {
		*why = ol_remote_message("cannot set up libcurl");
		http_close(hc);
		return NULL;
	}
	return hc;
}

/* Sets up the handle for one request to the key's URL; NULL when out of
 * memory, else the URL to free after the request. */
static char *begin(struct http_conn *hc, const char *key)
{
	char *url = hc->layout->path(hc->base, key);
	CURL *curl = hc->curl;

	if (!url)
		return NULL;
	curl_easy_reset(curl);          /* keeps the open connection */
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hc->headers);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "offload-link/" OL_VERSION);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, (long)hc->connect_timeout_ms);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)hc->operation_timeout_ms);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, hc->error);
	curl_easy_setopt(curl, CURLOPT_SOCKOPTFUNCTION, not_inherited);
	hc->error[0] = '\0';
	return url;
}

/* The request's HTTP status, or -1 and *why when there was no answer. */
static long finish(struct http_conn *hc, CURLcode rc, char **why)
{
	long status = 0;

	if (rc != CURLE_OK) {
		*why = ol_remote_message("%s", hc->error[0] ? hc->error : curl_easy_strerror(rc));
		return -1;
	}
	curl_easy_getinfo(hc->curl, CURLINFO_RESPONSE_CODE, &status);
	return status;
}

static int http_get(void *conn, const char *key, uint8_t **data, size_t *size, char **why)
{
	struct http_conn *hc = conn;
	struct body b = { 0 };
	char *url = begin(hc, key);
	long status;

	if (!url)
		return -1;
	curl_easy_setopt(hc->curl, CURLOPT_WRITEFUNCTION, take_body);
	curl_easy_setopt(hc->curl, CURLOPT_WRITEDATA, &b);
	status = finish(hc, curl_easy_perform(hc->curl), why);
	free(url);
	if (status >= 200 && status < 300 && !b.out_of_memory) {
		*data = b.data ? b.data : malloc(1);
		*size = b.size;
		return *data ? 1 : -1;
	}
	free(b.data);
	if (status == 404 || status == 410)
		return 0;
	if (b.out_of_memory)
		*why = ol_remote_message("out of memory");
	else if (status >= 0)
		*why = ol_remote_message("GET answered HTTP %ld", status);
	return -1;
}

static int http_put(void *conn, const char *key, const uint8_t *data, size_t size, char **why)
{
	struct http_conn *hc = conn;
	struct upload u = { data, size, 0 };
	char *url = begin(hc, key);
	long status;

	if (!url)
		return -1;
	curl_easy_setopt(hc->curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(hc->curl, CURLOPT_READFUNCTION, give_upload);
	curl_easy_setopt(hc->curl, CURLOPT_READDATA, &u);
	curl_easy_setopt(hc->curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)size);
	status = finish(hc, curl_easy_perform(hc->curl), why);
	free(url);
	if (status >= 200 && status < 300)
		return 0;
	/* 507 is the server's ENOSPC (WebDAV, nginx's dav module), 413 a
	 * limit on what it takes: name them, not just the number. */
	if (status == 507)
		*why = ol_remote_message("no space left on the server: PUT answered HTTP 507 "
					 "Insufficient Storage");
	else if (status == 413)
		*why = ol_remote_message("the entry, %zu bytes, is larger than the server takes: "
					 "PUT answered HTTP 413", size);
	else if (status >= 0)
		*why = ol_remote_message("PUT answered HTTP %ld", status);
	return -1;
}

/* https is libcurl's TLS. */
static const char *const http_schemes[] = { "http", "https", NULL };
static const char *const http_attributes[] = { "layout", "bearer-token", NULL };

const struct ol_remote_protocol ol_remote_http = {
	.schemes = http_schemes,
	.attributes = http_attributes,
	.open = http_open,
	.get = http_get,
	.put = http_put,
	.close = http_close,
};
