/*
 * plugin: finding and opening offload-link's own shared modules (the LLVM
 * backend, the remote storage protocols), which the executable dlopens on
 * first use so that a link that does not need them does not load their
 * libraries.
 *
 * Lookup of <file>: `override` when set (an environment variable's value),
 * then <exe dir>/../lib/offload-link/<file> (build tree, relocatable
 * installs), then `install_path` (the configured install location).
 */
#ifndef OFFLOAD_PLUGIN_H
#define OFFLOAD_PLUGIN_H

#include "offload/strvec.h"

/* The dlopen handle, or NULL with each attempt's dlerror() added to `why`
 * (" <message>", then "; <message>": one line, as every message is). */
void *ol_plugin_open(const char *file, const char *override, const char *install_path,
		     struct strbuf *why);

#endif
