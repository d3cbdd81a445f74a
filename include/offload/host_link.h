/*
 * host_link: run the host linker with the re-rendered command line and the
 * wrapper objects after each -o.  Returns the linker's exit status unchanged
 * (or 1 if it could not be run).
 */
#ifndef OFFLOAD_HOST_LINK_H
#define OFFLOAD_HOST_LINK_H

#include "offload/cmdline.h"

int ol_host_link(const struct ol_cmdline *cl, const char *const *wrapper_objs);

#endif
