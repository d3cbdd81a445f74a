/*
 * commands: the table of companion commands (include/offload/commands.h).
 */
#include "offload/commands.h"
#include "offload/lto_job.h"
#include "commands_internal.h"
#include "offload/strvec.h"
#include "offload/switch.h"

#include <string.h>

const struct ol_command ol_commands[] = {
	{ "cache", "offload-link cache stats|prune|clear [--json]",
	  "What the device-link cache holds; bring it below its limit; empty it.",
	  ol_cache_command },
	{ "device-lto-job", "offload-link device-lto-job --settings=<file> -o <file>... <partition.bc>",
	  "Optimize and compile one partition of a partitioned device LTO: a job a distributor "
	  "runs on another machine (--device-lto-distributor).",
	  ol_lto_job_command },
	{ "disable", "offload-link disable [16|19|22]...",
	  "Make clang run its own clang-linker-wrapper again: remove the files enable wrote.",
	  ol_disable_command },
	{ "enable", "offload-link enable [16|19|22]...",
	  "Make clang 16, 19 and 22 (those named, else every one installed) run offload-link "
	  "as their linker wrapper, for every user: a configuration file beside each clang.",
	  ol_enable_command },
	{ "inspect", "offload-link inspect [--json] FILE...",
	  "List the device images in objects, archives, executables, shared libraries, bitcode, "
	  "offload binaries, offload bundles and fatbinaries: kinds, target, size, place, "
	  "strings, kernels and globals.",
	  ol_inspect_command },
	{ "package", "offload-link package -o FILE --image=file=F,triple=T[,arch=A,kind=K]... | "
	  "package FILE --image=KEY=VALUE,...",
	  "Package device images into an OffloadBinary (or a fat object), or extract them, "
	  "with the command line of clang-offload-packager and llvm-offload-binary.",
	  ol_package_command },
	{ "status", "offload-link status",
	  "Say which clang on the machine runs offload-link as its linker wrapper, and why.",
	  ol_status_command },
	{ "wrap", "offload-link wrap [--kind=openmp|cuda|hip] [--target=<triple>] -o <file> <image>...",
	  "Wrap device images for registration, as clang-offload-wrapper or llvm-offload-wrapper.",
	  ol_wrap_command },
	{ NULL, NULL, NULL, NULL },
};

const struct ol_command *ol_command_find(int argc, char **argv)
{
	if (argc < 2 || strcmp(ol_base_name(argv[0]), "clang-linker-wrapper") == 0)
		return NULL;
	for (const struct ol_command *c = ol_commands; c->name; c++)
		if (strcmp(argv[1], c->name) == 0)
			return c;
	return NULL;
}
