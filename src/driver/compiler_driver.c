/*
 * compiler_driver: a compiler driver (cc, gcc, clang-19, ...) as the host
 * linker (--linker-path=clang-19), for Makefiles that link with offload-link
 * directly.  The driver adds the crt files, the default library paths and
 * the runtimes itself, so the line is a driver's line: linker options come
 * as -Wl,a,b and -Xlinker a, and the options that would make the driver run
 * an offloading link of its own (and so clang-linker-wrapper: offload-link
 * again) are kept from it (docs/usage.md, "Makefiles").
 */
#include "driver_internal.h"

#include <string.h>

/* The program names of drivers: cc, c++, gcc, g++, clang, clang++, maybe
 * with a target prefix ("x86_64-linux-gnu-gcc") and a version suffix
 * ("clang-19", "gcc-12"). */
int ol_is_compiler_driver(const char *path)
{
	static const char *const drivers[] = { "cc", "c++", "gcc", "g++", "clang", "clang++", NULL };
	const char *base = strrchr(path, '/');
	const char *end, *start;

	base = base ? base + 1 : path;
	end = base + strlen(base);
	/* A version suffix: "-19", "-12.2". */
	for (const char *p = end; p > base; p--) {
		if (p[-1] == '-') {
			if (p != end && strspn(p, "0123456789.") == (size_t)(end - p))
				end = p - 1;
			break;
		}
	}
	/* A target prefix ends at the last '-' before the name. */
	start = end;
	while (start > base && start[-1] != '-')
		start--;
	for (const char *const *d = drivers; *d; d++)
		if (strlen(*d) == (size_t)(end - start) && strncmp(start, *d, (size_t)(end - start)) == 0)
			return 1;
	return 0;
}

/* The driver options (gcc's and clang's) whose value is the next word. */
int ol_driver_option_takes_next_word(const char *word)
{
	static const char *const options[] = {
		"-x", "-o", "-u", "-e", "-z", "-T", "-I", "-D", "-U", "-MF", "-MT", "-MQ",
		"-Xlinker", "-Xclang", "-Xassembler", "-Xpreprocessor", "-Xopenmp-target",
		"-Xoffload-linker", "-Xcuda-ptxas", "-Xcuda-fatbinary", "-Xarch_host",
		"-Xarch_device", "-target", "-include", "-imacros", "-isystem", "-iquote",
		"-idirafter", "-isysroot", "-iprefix", "-dumpdir", "-dumpbase", "--param",
		"-arch", "--config", "-rpath", NULL,
	};

	for (const char *const *o = options; *o; o++)
		if (strcmp(word, *o) == 0)
			return 1;
	/* "-Xopenmp-target=<triple> <arg>", "-Xoffload-linker-<triple> <arg>". */
	return strncmp(word, "-Xopenmp-target=", 16) == 0 ||
	       strncmp(word, "-Xoffload-linker-", 17) == 0;
}

/*
 * The driver options that ask for an offloading link, which the driver
 * would hand to clang-linker-wrapper, that is, back to us: the device code
 * is linked here, so the driver links the host program alone.  Sets
 * *drops_next when the option's value is the next word.
 */
int ol_driver_offload_option(const char *word, int *drops_next)
{
	static const char *const joined[] = {
		"-fopenmp-targets=", "--offload-arch=", "--no-offload-arch=", "--offload=",
		"--offload-targets=", "-Xopenmp-target=", "-foffload-lto=", NULL,
	};
	static const char *const flags[] = {
		"--offload-new-driver", "--no-offload-new-driver", "--offload-link",
		"-Xopenmp-target", "-nogpulib", "-nogpuinc", "-foffload-lto", "-fno-offload-lto",
		NULL,
	};

	*drops_next = strcmp(word, "-Xopenmp-target") == 0 ||
		      strncmp(word, "-Xopenmp-target=", 16) == 0;
	for (const char *const *j = joined; *j; j++)
		if (strncmp(word, *j, strlen(*j)) == 0)
			return 1;
	for (const char *const *f = flags; *f; f++)
		if (strcmp(word, *f) == 0)
			return 1;
	return 0;
}

/* "-fopenmp", "-fopenmp=libomp": the driver links the OpenMP runtime. */
int ol_driver_links_runtime(const char *word)
{
	return strcmp(word, "-fopenmp") == 0 || strncmp(word, "-fopenmp=", 9) == 0;
}
