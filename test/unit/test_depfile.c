/* ol_depfile_without: offload-link's temp files leave a dependency file,
 * as prerequisites and as empty rules, and the rest stays as the linker
 * wrote it. */
#include "offload/depfile.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int becomes(const char *in, const char *const *drop, size_t n, const char *want)
{
	size_t size;
	char *out = ol_depfile_without(in, strlen(in), drop, n, &size);
	int ok = size == strlen(want) && memcmp(out, want, size) == 0;

	if (!ok)
		fprintf(stderr, "--- got:\n%.*s--- want:\n%s", (int)size, out, want);
	free(out);
	return ok;
}

int main(void)
{
	const char *const tmp[] = { "/tmp/app.openmp.image.wrapper-Ab12Cd.o" };
	const char *const spaced[] = { "/tmp/my dir/w.o" };

	current_test = "lld layout";
	CHECK(becomes("app: \\\n  /tmp/app.openmp.image.wrapper-Ab12Cd.o \\\n  main.o \\\n  k.o\n\n"
		      "/tmp/app.openmp.image.wrapper-Ab12Cd.o:\n\nmain.o:\n\nk.o:\n",
		      tmp, 1,
		      "app: \\\n  main.o \\\n  k.o\n\nmain.o:\n\nk.o:\n"));
	current_test = "the temp file last";
	CHECK(becomes("app: \\\n  main.o \\\n  /tmp/app.openmp.image.wrapper-Ab12Cd.o\n\nmain.o:\n\n"
		      "/tmp/app.openmp.image.wrapper-Ab12Cd.o:\n",
		      tmp, 1, "app: \\\n  main.o\n\nmain.o:\n\n"));
	current_test = "nothing to drop";
	CHECK(becomes("app: \\\n  main.o\n\nmain.o:\n", tmp, 1, "app: \\\n  main.o\n\nmain.o:\n"));
	current_test = "escaped spaces";
	CHECK(becomes("app: \\\n  /tmp/my\\ dir/w.o \\\n  a\\ b.o\n\n/tmp/my\\ dir/w.o:\n\na\\ b.o:\n",
		      spaced, 1, "app: \\\n  a\\ b.o\n\na\\ b.o:\n"));
	/* GNU ld 2.40: a name a line, its blanks as they are. */
	current_test = "GNU ld, unescaped blanks";
	CHECK(becomes("app: \\\n  main.o \\\n  /tmp/my dir/w.o \\\n  k.o\n\nmain.o:\n\n"
		      "/tmp/my dir/w.o:\n\nk.o:\n",
		      spaced, 1, "app: \\\n  main.o \\\n  k.o\n\nmain.o:\n\nk.o:\n"));
	current_test = "a target named like the file stays";
	CHECK(becomes("/tmp/app.openmp.image.wrapper-Ab12Cd.o: \\\n  x.o\n", tmp, 1,
		      "/tmp/app.openmp.image.wrapper-Ab12Cd.o: \\\n  x.o\n"));
	return failures != 0;
}
