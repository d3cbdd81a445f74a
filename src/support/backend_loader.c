/* backend_loader: dlopen the LLVM backend on first use.  See offload/backend.h. */
#include "offload/backend.h"
#include "offload/diag.h"
#include "offload/plugin.h"
#include "offload/spawn.h"
#include "offload/strvec.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const struct ol_backend *backend;
static char *backend_path;
static int preferred_major;
static int load_failed;
static int llvm_argc;
static const char *const *llvm_argv;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

void ol_backend_set_llvm_args(int argc, const char *const *argv)
{
	llvm_argc = argc;
	llvm_argv = argv;
}

int ol_backend_loaded(void)
{
	return backend != NULL;
}

const char *ol_backend_path(void)
{
	return backend_path;
}

void ol_backend_prefer(int llvm_major)
{
	pthread_mutex_lock(&load_lock);
	if (backend && llvm_major && llvm_major != atoi(backend->llvm_version))
		ol_spawn_note("LLVM %s is loaded already (the inputs' host bitcode needed it): "
			      "device LTO runs with it, not with LLVM %d", backend->llvm_version,
			      llvm_major);
	preferred_major = llvm_major;
	pthread_mutex_unlock(&load_lock);
}

/* The backend built for the preferred LLVM major, when that is not the
 * default one: offload-link-llvm-<N>.so beside the default plugin. */
static void *open_preferred(struct strbuf *why)
{
	char *file, *installed;
	const char *slash = strrchr(OL_BACKEND_INSTALL_PATH, '/');
	void *handle;

	if (!preferred_major || preferred_major == OL_DEFAULT_LLVM_MAJOR ||
	    getenv("OFFLOAD_LINK_BACKEND"))
		return NULL;
	file = ol_xasprintf("offload-link-llvm-%d.so", preferred_major);
	installed = ol_xasprintf("%.*s/%s", (int)(slash - OL_BACKEND_INSTALL_PATH),
				 OL_BACKEND_INSTALL_PATH, file);
	handle = ol_plugin_open(file, NULL, installed, why);
	if (!handle)
		ol_spawn_note("no LLVM %d backend (%s; it is built when llvm-%d-dev is installed): "
			      "device LTO runs with LLVM %d", preferred_major, file, preferred_major,
			      OL_DEFAULT_LLVM_MAJOR);
	free(file);
	free(installed);
	return handle;
}

static const struct ol_backend *load(void)
{
	struct strbuf why = STRBUF_INIT, preferred_why = STRBUF_INIT;
	void *handle = open_preferred(&preferred_why);

	strbuf_release(&preferred_why);
	if (!handle)
		handle = ol_plugin_open("offload-link-llvm.so", getenv("OFFLOAD_LINK_BACKEND"),
					OL_BACKEND_INSTALL_PATH, &why);

	if (!handle) {
		ol_error("cannot load the LLVM backend (offload-link-llvm.so); tried:%s", strbuf_str(&why));
		strbuf_release(&why);
		return NULL;
	}
	strbuf_release(&why);

	ol_backend_entry_fn entry = (ol_backend_entry_fn)(uintptr_t)dlsym(handle, OL_BACKEND_ENTRY);
	const struct ol_backend *be = entry ? entry() : NULL;
	if (!be || be->abi != OL_BACKEND_ABI) {
		ol_error("the LLVM backend offload-link-llvm.so is incompatible with this offload-link "
			 "(interface %d, expected %d)", be ? be->abi : -1, OL_BACKEND_ABI);
		return NULL;
	}
	static const char *const default_argv[] = { "offload-link", NULL };
	char *err = NULL;
	if (be->init(llvm_argv ? llvm_argc : 1, llvm_argv ? llvm_argv : default_argv, &err) != 0) {
		ol_error("%s", err ? err : "cannot initialize LLVM");
		free(err);
		return NULL;
	}
	ol_spawn_note("loaded LLVM %s backend", be->llvm_version);
	Dl_info info;
	if (dladdr((void *)(uintptr_t)entry, &info) && info.dli_fname)
		backend_path = ol_xstrdup(info.dli_fname);
	return be;
}

const struct ol_backend *ol_backend_get(void)
{
	pthread_mutex_lock(&load_lock);
	if (!backend && !load_failed) {
		backend = load();
		load_failed = backend == NULL;
	}
	pthread_mutex_unlock(&load_lock);
	return backend;
}
