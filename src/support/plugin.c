/* plugin: open offload-link's own shared modules.  See offload/plugin.h. */
#include "offload/plugin.h"
#include "offload/programs.h"
#include "offload/spawn.h"

#include <dlfcn.h>

void *ol_plugin_open(const char *file, const char *override, const char *install_path,
		     struct strbuf *why)
{
	struct strvec tried = STRVEC_INIT;
	void *handle = NULL;

	if (override && *override)
		strvec_push(&tried, override);
	strvec_pushf(&tried, "%s/../lib/offload-link/%s", ol_self_dir(), file);
	strvec_push(&tried, install_path);
	for (size_t i = 0; i < tried.nr && !handle; i++) {
		handle = dlopen(tried.v[i], RTLD_NOW | RTLD_LOCAL);
		if (!handle)
			strbuf_addf(why, "%s%s", why->len ? "; " : " ", dlerror());
	}
	strvec_release(&tried);
	return handle;
}
