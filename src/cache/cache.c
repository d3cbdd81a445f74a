/*
 * cache: the local device-link cache (include/offload/cache.h).
 *
 * Layout of a cache directory:
 *   <dir>/<2 hex>/<64 hex>   entries: a 48-byte header, then the linked image
 *                            (the same bytes on remote storage, remote.c)
 *   <dir>/ids/table          remembered tool, file and image identities
 *                            (identity.c)
 *   <dir>/tmp/               files being written; renamed into place whole
 *   <dir>/stats              counters, updated under flock(2)
 * Every file appears by rename(2) only, so concurrent links, on one machine
 * or many sharing the directory over a network file system, never read a
 * half-written file; a bad entry found anyway (a disk error, a truncated
 * copy) fails its checksum and is dropped.
 */
#include "offload/cache.h"
#include "cache_impl.h"
#include "offload/backend.h"
#include "offload/cmdline.h"
#include "offload/device_link.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/mapped_file.h"
#include "offload/spawn.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bumped whenever what a key covers or the entry layout changes. */
#define CACHE_FORMAT "offload-link device-link cache 1"
#define ENTRY_MAGIC "OLCE"
/* The header (OL_CACHE_ENTRY_HEADER bytes): magic, u32 version, u64 payload
 * size, SHA-256 of the payload. */

/* ---- configuration --------------------------------------------------------- */

int ol_cache_parse_size(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t unit = 1;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text)
		return -1;
	switch (*end) {
	case 'k': case 'K': unit = 1ull << 10; end++; break;
	case 'm': case 'M': unit = 1ull << 20; end++; break;
	case 'g': case 'G': unit = 1ull << 30; end++; break;
	case 't': case 'T': unit = 1ull << 40; end++; break;
	default: break;
	}
	if (*end == 'i' && unit > 1)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > UINT64_MAX / unit)
		return -1;
	*out = v * unit;
	return 0;
}

static int env_true(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0;
}

int ol_cache_settings(const struct ol_cmdline *cl, struct ol_cache_settings *s)
{
	const char *env;

	memset(s, 0, sizeof(*s));
	s->enabled = !env_true("OFFLOAD_LINK_NO_CACHE");
	s->max_size = OL_CACHE_DEFAULT_MAX_SIZE;
	env = getenv("OFFLOAD_LINK_CACHE_MAX_SIZE");
	if (env && *env && ol_cache_parse_size(env, &s->max_size) < 0)
		return ol_error("OFFLOAD_LINK_CACHE_MAX_SIZE=%s: expected a size such as 5G or 500M", env);
	env = getenv("OFFLOAD_LINK_CACHE_DIR");
	if (env && *env)
		s->dir = ol_xstrdup(env);
	env = getenv("OFFLOAD_LINK_REMOTE_STORAGE");
	if (env && *env)
		s->remote_storage = ol_xstrdup(env);
	for (size_t i = 0; cl && i < cl->nargs; i++) {
		const struct ol_arg *a = &cl->args[i];
		switch (a->id) {
		case OPT_no_cache:
			s->enabled = 0;
			break;
		case OPT_cache_dir:
			free(s->dir);
			s->dir = ol_xstrdup(a->value);
			break;
		case OPT_remote_storage:
			/* The last one counts; an empty one turns the remotes off. */
			free(s->remote_storage);
			s->remote_storage = ol_xstrdup(a->value);
			break;
		case OPT_cache_max_size:
			if (ol_cache_parse_size(a->value, &s->max_size) < 0)
				return ol_error("--cache-max-size=%s: expected a size such as 5G or 500M",
						a->value);
			break;
		default:
			break;
		}
	}
	if (!s->dir) {
		const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
		if (xdg && *xdg == '/')
			s->dir = ol_xasprintf("%s/offload-link", xdg);
		else if (home && *home)
			s->dir = ol_xasprintf("%s/.cache/offload-link", home);
		else
			s->enabled = 0;
	}
	return 0;
}

void ol_cache_settings_release(struct ol_cache_settings *s)
{
	free(s->dir);
	free(s->remote_storage);
	s->dir = s->remote_storage = NULL;
}

/* ---- opening ------------------------------------------------------------------ */

/* 0, or the errno of the mkdir that failed. */
static int make_dirs(const char *path)
{
	char *copy = ol_xstrdup(path);
	int err = 0;

	for (char *p = copy + 1; *p && !err; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) < 0 && errno != EEXIST)
			err = errno;
		*p = '/';
	}
	if (!err && mkdir(copy, 0777) < 0 && errno != EEXIST)
		err = errno;
	free(copy);
	return err;
}

/* 0, or why the directory cannot hold the cache. */
static int usable_dir(const char *path)
{
	int err = make_dirs(path);

	if (!err && access(path, W_OK) < 0)
		err = errno;
	return err;
}

struct ol_cache *ol_cache_open_dir(const struct ol_cache_settings *s)
{
	struct ol_cache *c;
	char *tmp, *ids;
	int err;

	if (!s->enabled || !s->dir)
		return NULL;
	tmp = ol_xasprintf("%s/tmp", s->dir);
	ids = ol_xasprintf("%s/ids", s->dir);
	err = usable_dir(s->dir);
	if (!err)
		err = usable_dir(tmp);
	if (!err)
		err = usable_dir(ids);
	if (err) {
		char cause[OL_IO_CAUSE_SIZE];

		ol_warn("device-link cache '%s' is not usable: %s; linking without it", s->dir,
			ol_io_cause(err, "the cache", cause, sizeof(cause)));
		free(tmp);
		free(ids);
		return NULL;
	}
	free(ids);
	c = ol_xcalloc(1, sizeof(*c));
	c->dir = ol_xstrdup(s->dir);
	c->tmp = tmp;
	c->max_size = s->max_size;
	return c;
}

struct ol_cache *ol_cache_open(const struct ol_cmdline *cl)
{
	struct ol_cache_settings s;
	struct ol_cache *c;

	if (ol_cache_settings(cl, &s) < 0) {
		ol_cache_settings_release(&s);
		return NULL;
	}
	c = ol_cache_open_dir(&s);
	if (c) {
		ol_spawn_note("device-link cache: %s", c->dir);
		c->remotes = ol_remotes_configure(s.remote_storage, &c->stats);
	}
	ol_cache_settings_release(&s);
	return c;
}

/* ---- writing files whole ------------------------------------------------------ */

/* Writes data under a temp name in <dir>/tmp, flushes it to the disk, and
 * renames it to `path`: other processes see the whole file or none.
 * Returns 0, or the errno of the first call that failed (the cleanup's
 * close and unlink must not replace it). */
int ol_cache_write_whole(struct ol_cache *c, const char *path, const void *head, size_t head_size,
			 const void *data, size_t size)
{
	char *tmp = ol_xasprintf("%s/%ld.XXXXXX", c->tmp, (long)getpid());
	int fd = mkostemp(tmp, O_CLOEXEC), err = 0;

	if (fd < 0) {
		err = errno;
		free(tmp);
		return err;
	}
	/* A link ended by a signal meanwhile removes it, as any temp file. */
	ol_temp_register(tmp);
	err = ol_write_all(fd, head, head_size);
	if (!err)
		err = ol_write_all(fd, data, size);
	if (!err && fsync(fd) < 0)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
	if (err)
		unlink(tmp);
	ol_temp_forget(tmp);
	free(tmp);
	return err;
}

int ol_cache_writable(const struct ol_cache *c)
{
	return !c->full;
}

void ol_cache_write_failed(struct ol_cache *c, const char *path, int err)
{
	char cause[OL_IO_CAUSE_SIZE];

	if (err == ENOSPC
#ifdef EDQUOT
	    || err == EDQUOT
#endif
	)
		c->full = 1;
	if (err == c->warned_errno)
		return;
	c->warned_errno = err;
	ol_warn("device-link cache: cannot store '%s': %s", path,
		ol_io_cause(err, "the cache", cause, sizeof(cause)));
}

/* ---- keys ---------------------------------------------------------------------- */

void ol_key_bytes(struct ol_sha256 *h, const void *data, size_t size)
{
	ol_key_u64(h, size);
	ol_sha256_update(h, data, size);
}

void ol_key_u64(struct ol_sha256 *h, uint64_t v)
{
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	ol_sha256_update(h, le, sizeof(le));
}

void ol_key_str(struct ol_sha256 *h, const char *s)
{
	if (!s) {
		ol_key_u64(h, UINT64_MAX);
		return;
	}
	ol_key_bytes(h, s, strlen(s));
}

static void key_strvec(struct ol_sha256 *h, const char *what, const struct strvec *v)
{
	ol_key_str(h, what);
	ol_key_u64(h, v->nr);
	for (size_t i = 0; i < v->nr; i++)
		ol_key_str(h, v->v[i]);
}

static void key_image(struct ol_cache *c, struct ol_sha256 *h, const struct ol_device_image *img)
{
	const struct ol_offload_binary *bin = &img->bin;

	ol_key_u64(h, bin->image_kind);
	ol_key_u64(h, bin->offload_kind);
	ol_key_u64(h, bin->flags);
	ol_key_u64(h, bin->nstrings);
	for (size_t i = 0; i < bin->nstrings; i++) {
		ol_key_str(h, bin->strings[i].key);
		ol_key_str(h, bin->strings[i].value);
	}
	ol_key_image_bytes(c, h, img);
}

void ol_cache_group_key(struct ol_cache *c, const struct ol_group *g,
			const struct ol_link_context *ctx, char key[OL_CACHE_KEY_HEX])
{
	const struct ol_cmdline *cl = ctx->cl;
	struct strvec device = STRVEC_INIT;
	struct ol_sha256 h;
	uint8_t digest[OL_SHA256_SIZE];
	int bitcode = 0;

	ol_sha256_init(&h);
	ol_key_str(&h, CACHE_FORMAT);
	ol_key_str(&h, OL_VERSION);
	/* This build of the tool, and of its LLVM part below: a changed device
	 * link or LTO must not find the images the old one made. */
	ol_key_file(c, &h, "/proc/self/exe");
	ol_key_u64(&h, (uint64_t)ctx->flavor);
	ol_key_str(&h, g->triple);
	ol_key_str(&h, g->arch);
	ol_key_u64(&h, g->kinds);
	ol_key_u64(&h, g->nimages);
	for (size_t i = 0; i < g->nimages; i++) {
		key_image(c, &h, g->images[i]);
		bitcode |= g->images[i]->bin.image_kind == OL_IMG_BITCODE;
	}
	/* The LLVM that compiles the bitcode decides the code. */
	if (bitcode) {
		const struct ol_backend *be = ol_backend_get();
		ol_key_str(&h, be ? be->llvm_version : "no backend");
		ol_key_file(c, &h, ol_backend_path());
	}
	/* Every option that reaches the device link or its LTO. */
	ol_cmdline_device_args(cl, &cl->device_linker, g->triple, ctx->flavor, &device);
	key_strvec(&h, "device-linker", &device);
	strvec_release(&device);
	ol_cmdline_device_args(cl, &cl->device_compiler, g->triple, ctx->flavor, &device);
	key_strvec(&h, "device-compiler", &device);
	strvec_release(&device);
	key_strvec(&h, "mllvm", &cl->mllvm);
	key_strvec(&h, "offload-opt", &cl->offload_opt);
	key_strvec(&h, "ptxas-arg", &cl->ptxas_args);
	key_strvec(&h, "builtin-bitcode", &cl->builtin_bitcode);
	key_strvec(&h, "bitcode-library", &cl->bitcode_library);
	key_strvec(&h, "pass-remarks", &cl->pass_remarks);
	ol_key_u64(&h, (uint64_t)cl->opt_level);
	ol_key_u64(&h, (uint64_t)cl->device_debug);
	ol_key_u64(&h, (uint64_t)cl->embed_bitcode);
	ol_key_u64(&h, (uint64_t)cl->whole_program);
	ol_key_u64(&h, (uint64_t)cl->clang_backend);
	/* The tools the family runs and the other files it reads. */
	ol_group_identify(g, ctx, c, &h);
	ol_sha256_final(&h, digest);
	ol_sha256_hex(digest, key);
}

/* ---- entries -------------------------------------------------------------------- */

static char *entry_path(const struct ol_cache *c, const char *key)
{
	return ol_xasprintf("%s/%.2s/%s", c->dir, key, key);
}

static uint64_t read_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

void ol_cache_entry_header(uint8_t header[OL_CACHE_ENTRY_HEADER], const uint8_t *payload,
			   size_t size)
{
	memset(header, 0, OL_CACHE_ENTRY_HEADER);
	memcpy(header, ENTRY_MAGIC, 4);
	header[4] = 1;                       /* entry layout version */
	for (int i = 0; i < 8; i++)
		header[8 + i] = (uint8_t)((uint64_t)size >> (8 * i));
	ol_sha256(payload, size, header + 16);
}

const char *ol_cache_entry_damage(const uint8_t *entry, size_t size)
{
	uint8_t digest[OL_SHA256_SIZE];

	if (size < OL_CACHE_ENTRY_HEADER || memcmp(entry, ENTRY_MAGIC, 4) != 0)
		return "not an entry";
	if (read_u64(entry + 8) != size - OL_CACHE_ENTRY_HEADER)
		return "truncated";
	ol_sha256(entry + OL_CACHE_ENTRY_HEADER, size - OL_CACHE_ENTRY_HEADER, digest);
	if (memcmp(digest, entry + 16, OL_SHA256_SIZE) != 0)
		return "checksum mismatch";
	return NULL;
}

/* The entry's payload, moved to the front of its buffer. */
static void take_payload(uint8_t *entry, size_t size, struct ol_cache_lookup *out)
{
	out->size = size - OL_CACHE_ENTRY_HEADER;
	memmove(entry, entry + OL_CACHE_ENTRY_HEADER, out->size);
	out->data = entry;
	out->hit = 1;
}

static int get_local(struct ol_cache *c, const char *key, struct ol_cache_lookup *out)
{
	char *path = entry_path(c, key);
	uint8_t *buf = NULL;
	size_t n = 0;
	const char *bad;

	if (ol_read_whole_file(path, &buf, &n) < 0) {
		free(path);
		return 0;
	}
	bad = ol_cache_entry_damage(buf, n);
	if (bad) {
		/* Never use it: drop it, so the link that follows replaces it. */
		ol_spawn_note("device-link cache: dropping entry %s: %s", key, bad);
		unlink(path);
		c->stats.dropped++;
		free(buf);
		free(path);
		return 0;
	}
	take_payload(buf, n, out);
	/* The entry's time says when it was last used: eviction goes by it. */
	utimensat(AT_FDCWD, path, NULL, 0);
	free(path);
	return 1;
}

/* Writes a whole entry (header included) into the local directory. */
static int put_local(struct ol_cache *c, const char *key, const void *head, size_t head_size,
		     const void *data, size_t size)
{
	char *path, *dir;
	int err = 0;

	if (!ol_cache_writable(c))
		return -1;
	path = entry_path(c, key);
	dir = ol_xasprintf("%s/%.2s", c->dir, key);
	/* A second try when a trim removed the subdirectory, empty, between
	 * the mkdir and the rename. */
	for (int tries = 0; tries < 2; tries++) {
		err = mkdir(dir, 0777) < 0 && errno != EEXIST ? errno : 0;
		if (!err)
			err = ol_cache_write_whole(c, path, head, head_size, data, size);
		if (err != ENOENT)
			break;
	}
	if (err) {
		ol_cache_write_failed(c, path, err);
	} else {
		c->stats.stores++;
		c->stored_bytes += head_size + size;
	}
	free(dir);
	free(path);
	return err ? -1 : 0;
}

int ol_cache_get(struct ol_cache *c, const char *key, struct ol_cache_lookup *out)
{
	uint8_t *entry;
	size_t size;
	int remote;

	memset(out, 0, sizeof(*out));
	if (get_local(c, key, out)) {
		c->stats.hits++;
		return 1;
	}
	c->stats.misses++;
	if (!c->remotes)
		return 0;
	remote = ol_remotes_get(c->remotes, key, &entry, &size, &out->remote);
	out->remote_asked = remote >= 0;
	if (remote <= 0)
		return 0;
	/* The same bytes, checked: the next link finds them here. */
	put_local(c, key, entry, size, NULL, 0);
	take_payload(entry, size, out);
	return 1;
}

void ol_cache_put(struct ol_cache *c, const char *key, const uint8_t *data, size_t size)
{
	uint8_t header[OL_CACHE_ENTRY_HEADER];

	ol_cache_entry_header(header, data, size);
	put_local(c, key, header, sizeof(header), data, size);
	if (ol_remotes_writable(c->remotes)) {
		uint8_t *entry = ol_xmalloc(sizeof(header) + size);
		memcpy(entry, header, sizeof(header));
		memcpy(entry + sizeof(header), data, size);
		ol_remotes_put(c->remotes, key, entry, sizeof(header) + size);
		free(entry);
	}
}

const struct ol_cache_stats *ol_cache_counters(const struct ol_cache *c)
{
	return c ? &c->stats : NULL;
}

void ol_cache_close(struct ol_cache *c)
{
	if (!c)
		return;
	ol_remotes_close(c->remotes);
	ol_cache_save_identities(c);
	ol_cache_release_identities(c);
	ol_cache_update_stats(c);
	free(c->dir);
	free(c->tmp);
	free(c);
}
