/*
 * remote_module: the entry of offload-link-remote.so, the table of remote
 * storage protocols (remote_protocol.h).  A new protocol is one file with its
 * struct ol_remote_protocol, and a line here.
 */
#include "offload/remote_protocol.h"

static const struct ol_remote_protocol *const table[] = {
	&ol_remote_redis,
	&ol_remote_http,
};

static const struct ol_remote_protocols protocols = {
	.abi = OL_REMOTE_ABI,
	.n = sizeof(table) / sizeof(table[0]),
	.v = table,
};

__attribute__((visibility("default"))) const struct ol_remote_protocols *
offload_link_remote_protocols(void);

__attribute__((visibility("default"))) const struct ol_remote_protocols *
offload_link_remote_protocols(void)
{
	return &protocols;
}
