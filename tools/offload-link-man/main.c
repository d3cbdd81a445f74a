/*
 * offload-link-man: writes offload-link.1 to the file named, or to stdout.
 * The build runs it (CMakeLists.txt), so the man page lists exactly the
 * options of the table --help prints (include/offload/options.def) and the
 * commands of src/commands/commands.c.
 */
#include "offload/cmdline.h"
#include "offload/commands.h"
#include "offload/diag.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	FILE *out = stdout;

	ol_diag_init(argv[0]);
	if (argc > 2) {
		fprintf(stderr, "usage: %s [OUTPUT]\n", argv[0]);
		return 2;
	}
	if (argc == 2 && !(out = fopen(argv[1], "w"))) {
		perror(argv[1]);
		return 1;
	}
	ol_help_list_commands(ol_commands);
	ol_print_man_page(out);
	if (out != stdout ? fclose(out) != 0 : fflush(out) != 0) {
		perror(argc == 2 ? argv[1] : "stdout");
		return 1;
	}
	return 0;
}
