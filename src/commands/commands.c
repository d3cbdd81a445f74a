/*
 * commands: the table of companion commands (include/offload/commands.h).
 */
#include "offload/commands.h"
#include "offload/cache.h"
#include "offload/wrap.h"

#include <string.h>

const struct ol_command ol_commands[] = {
	{ "cache", "offload-link cache stats|prune|clear [--json]",
	  "What the device-link cache holds; bring it below its limit; empty it.",
	  ol_cache_command },
	{ "wrap", "offload-link wrap [--kind=openmp|cuda|hip] [--target=<triple>] -o <file> <image>...",
	  "Wrap device images for registration, as clang-offload-wrapper or llvm-offload-wrapper.",
	  ol_wrap_command },
	{ NULL, NULL, NULL, NULL },
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

const struct ol_command *ol_command_find(int argc, char **argv)
{
	if (argc < 2 || strcmp(base_name(argv[0]), "clang-linker-wrapper") == 0)
		return NULL;
	for (const struct ol_command *c = ol_commands; c->name; c++)
		if (strcmp(argv[1], c->name) == 0)
			return c;
	return NULL;
}
