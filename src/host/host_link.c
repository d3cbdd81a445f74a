/* host_link: the final host linker run.  See offload/host_link.h. */
#include "offload/host_link.h"
#include "offload/diag.h"
#include "offload/spawn.h"

int ol_host_link(const struct ol_cmdline *cl, const char *const *wrapper_objs)
{
	struct strvec argv = STRVEC_INIT;
	int status;

	if (!cl->linker_path || !*cl->linker_path) {
		ol_error("linker path missing, must pass 'linker-path'");
		return 1;
	}
	strvec_push(&argv, cl->linker_path);
	ol_cmdline_render_host(cl, wrapper_objs, &argv);
	status = ol_spawn_wait(&argv);
	strvec_release(&argv);
	/* The linker has said why it failed; its status passes through as is. */
	return status < 0 ? 1 : status;
}
