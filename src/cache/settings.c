/*
 * settings: where the cache is and how large it may grow, from the link's
 * options (struct ol_cache_options) over the environment
 * (OFFLOAD_LINK_NO_CACHE, OFFLOAD_LINK_CACHE_DIR, OFFLOAD_LINK_CACHE_MAX_SIZE,
 * OFFLOAD_LINK_REMOTE_STORAGE) over the defaults ($XDG_CACHE_HOME/offload-link,
 * else ~/.cache/offload-link; 5 GiB).
 */
#include "cache_impl.h"
#include "offload/diag.h"
#include "offload/size_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int env_true(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0;
}

int ol_cache_settings(const struct ol_cache_options *o, struct ol_cache_settings *s)
{
	const char *env;

	memset(s, 0, sizeof(*s));
	s->enabled = !env_true("OFFLOAD_LINK_NO_CACHE");
	s->max_size = OL_CACHE_DEFAULT_MAX_SIZE;
	env = getenv("OFFLOAD_LINK_CACHE_MAX_SIZE");
	if (env && *env && ol_parse_size(env, &s->max_size) < 0)
		return ol_error("OFFLOAD_LINK_CACHE_MAX_SIZE=%s: expected a size such as 5G or 500M", env);
	env = getenv("OFFLOAD_LINK_CACHE_DIR");
	if (env && *env)
		s->dir = ol_xstrdup(env);
	env = getenv("OFFLOAD_LINK_REMOTE_STORAGE");
	if (env && *env)
		s->remote_storage = ol_xstrdup(env);
	if (o && o->off)
		s->enabled = 0;
	if (o && o->dir) {
		free(s->dir);
		s->dir = ol_xstrdup(o->dir);
	}
	/* An empty --remote-storage= turns the remotes off. */
	if (o && o->remote_storage) {
		free(s->remote_storage);
		s->remote_storage = ol_xstrdup(o->remote_storage);
	}
	if (o && o->max_size && ol_parse_size(o->max_size, &s->max_size) < 0)
		return ol_error("--cache-max-size=%s: expected a size such as 5G or 500M", o->max_size);
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
