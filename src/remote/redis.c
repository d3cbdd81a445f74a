/*
 * remote_redis: entries in a Redis server, through hiredis.
 *
 * URL: redis://[[user:]password@]host[:port][/db], as ccache reads it
 * (port 6379, db 0 by default; a password alone is AUTH <password>, with a
 * user AUTH <user> <password>, Redis 6's ACLs).  Entries are string values
 * under "offload-link:<key>" (ccache's are "ccache:<digest>", so one server
 * serves both); GET and SET, nothing else.  Eviction is the server's
 * (maxmemory-policy allkeys-lru is the usual set-up for a cache).
 *
 * The connect timeout bounds connecting, the operation timeout each read
 * or write on the socket.
 */
#include "offload/remote_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_PORT 6379
#define KEY_PREFIX "offload-link:"

struct redis_conn {
	redisContext *ctx;
	unsigned operation_timeout_ms;
};

static struct timeval timeval_ms(unsigned ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	return tv;
}

/* One command; NULL and *why on a failure or an error reply. */
static redisReply *command(struct redis_conn *rc, char **why, const char *fmt, ...)
{
	va_list ap;
	redisReply *reply;

	va_start(ap, fmt);
	errno = 0;
	reply = redisvCommand(rc->ctx, fmt, ap);
	va_end(ap);
	if (!reply) {
		/* hiredis reports a socket timeout as EAGAIN. */
		if (rc->ctx->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK))
			*why = ol_remote_message("no answer within %u ms", rc->operation_timeout_ms);
		else
			*why = ol_remote_message("%s", rc->ctx->err ? rc->ctx->errstr : "no reply");
		return NULL;
	}
	if (reply->type == REDIS_REPLY_ERROR) {
		/* A server at its maxmemory without an eviction policy refuses
		 * every SET with "OOM ...": a full store, named as such. */
		int full = reply->len >= 4 && memcmp(reply->str, "OOM ", 4) == 0;

		*why = ol_remote_message("%sRedis answered: %.*s",
					 full ? "no space left on the server, its maxmemory reached; " : "",
					 (int)reply->len, reply->str);
		freeReplyObject(reply);
		return NULL;
	}
	return reply;
}

static void redis_close(void *conn)
{
	struct redis_conn *rc = conn;

	redisFree(rc->ctx);
	free(rc);
}

static void *redis_open(const struct ol_remote_target *t, char **why)
{
	struct redis_conn *rc;
	redisReply *reply = NULL;
	unsigned long db = 0;

	if (*t->path) {
		char *end;
		errno = 0;
		db = strtoul(t->path + 1, &end, 10);
		if (errno || *end || end == t->path + 1) {
			*why = ol_remote_message("'%s' is not a database number", t->path + 1);
			return NULL;
		}
	}
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return NULL;
	rc->operation_timeout_ms = t->operation_timeout_ms;
	rc->ctx = redisConnectWithTimeout(t->host, (int)(t->port ? t->port : DEFAULT_PORT),
					  timeval_ms(t->connect_timeout_ms));
	if (!rc->ctx || rc->ctx->err) {
		*why = ol_remote_message("%s", rc->ctx ? rc->ctx->errstr : "out of memory");
		goto fail;
	}
	/* Not inherited by the device linkers the link runs meanwhile. */
	fcntl(rc->ctx->fd, F_SETFD, FD_CLOEXEC);
	if (redisSetTimeout(rc->ctx, timeval_ms(t->operation_timeout_ms)) != REDIS_OK) {
		*why = ol_remote_message("cannot set the timeout: %s", rc->ctx->errstr);
		goto fail;
	}
	if (t->password) {
		reply = t->user ? command(rc, why, "AUTH %s %s", t->user, t->password)
				: command(rc, why, "AUTH %s", t->password);
		if (!reply)
			goto fail;
		freeReplyObject(reply);
	}
	if (db != 0) {
		reply = command(rc, why, "SELECT %lu", db);
		if (!reply)
			goto fail;
		freeReplyObject(reply);
	}
	return rc;
fail:
	if (rc->ctx)
		redisFree(rc->ctx);
	free(rc);
	return NULL;
}

static int redis_get(void *conn, const char *key, uint8_t **data, size_t *size, char **why)
{
	redisReply *reply = command(conn, why, "GET " KEY_PREFIX "%s", key);
	int found = -1;

	if (!reply)
		return -1;
	if (reply->type == REDIS_REPLY_NIL) {
		found = 0;
	} else if (reply->type == REDIS_REPLY_STRING) {
		*data = malloc(reply->len ? reply->len : 1);
		if (*data) {
			memcpy(*data, reply->str, reply->len);
			*size = reply->len;
			found = 1;
		} else {
			*why = ol_remote_message("out of memory");
		}
	} else {
		*why = ol_remote_message("GET answered a reply of type %d", reply->type);
	}
	freeReplyObject(reply);
	return found;
}

static int redis_put(void *conn, const char *key, const uint8_t *data, size_t size, char **why)
{
	redisReply *reply = command(conn, why, "SET " KEY_PREFIX "%s %b", key, data, size);

	if (!reply)
		return -1;
	freeReplyObject(reply);
	return 0;
}

static const char *const redis_schemes[] = { "redis", NULL };
static const char *const no_attributes[] = { NULL };

const struct ol_remote_protocol ol_remote_redis = {
	.schemes = redis_schemes,
	.attributes = no_attributes,
	.open = redis_open,
	.get = redis_get,
	.put = redis_put,
	.close = redis_close,
};
