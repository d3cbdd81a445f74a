/*
 * commands: offload-link's companion commands, "offload-link <name> ...",
 * each a module of its own in src/commands/ (the cache's lives with the
 * cache).  They take the command lines of the upstream tools whose jobs they
 * take over, and run only under the name offload-link: as
 * clang-linker-wrapper every argument is the linker's.
 */
#ifndef OFFLOAD_COMMANDS_H
#define OFFLOAD_COMMANDS_H

struct ol_command {
	const char *name;
	const char *synopsis;   /* for --help and the man page */
	const char *summary;
	/* argv[0] is the command's name; returns the exit status. */
	int (*run)(int argc, char **argv);
};

/* NULL-name-terminated. */
extern const struct ol_command ol_commands[];

/* The command argv[1] names when the program runs as offload-link, or NULL. */
const struct ol_command *ol_command_find(int argc, char **argv);

/* Makes --help and the man page list the commands of `table`. */
void ol_help_list_commands(const struct ol_command *table);

#endif
