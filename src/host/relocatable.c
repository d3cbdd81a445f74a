/*
 * relocatable: finishing the output of a relocatable link.  See
 * offload/relocatable.h, and docs/design/host-linking.md, "Relocatable links", for why
 * llvm-objcopy does the edit rather than libelf.
 */
#include "offload/relocatable.h"
#include "offload/diag.h"
#include "offload/entries_sections.h"
#include "offload/md5.h"
#include "offload/programs.h"
#include "offload/spawn.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int ol_relocatable_check(const struct ol_cmdline *cl)
{
	const char *os = cl->host_triple ? strchr(cl->host_triple, '-') : NULL;

	os = os ? strchr(os + 1, '-') : NULL;
	if (cl->relocatable && os && (ol_starts_with(os + 1, "windows") || ol_starts_with(os + 1, "win32")))
		return ol_error("relocatable linking (-r) is not supported on COFF targets ('%s')",
				cl->host_triple);
	return 0;
}

/* The MD5 of the file's bytes (of nothing under --dry-run, where the linker
 * did not run). */
static int hash_output(const char *path, uint8_t digest[OL_MD5_SIZE])
{
	struct stat st;
	void *data;
	int fd;

	if (ol_spawn_config()->dry_run) {
		ol_md5("", 0, digest);
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		return ol_error("cannot read the relocatable output '%s': %s", path, strerror(err));
	}
	if (st.st_size == 0) {
		close(fd);
		ol_md5("", 0, digest);
		return 0;
	}
	data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (data == MAP_FAILED)
		return ol_error("cannot read the relocatable output '%s': %s", path, strerror(errno));
	ol_md5(data, (size_t)st.st_size, digest);
	munmap(data, (size_t)st.st_size);
	return 0;
}

/* --remove-section, then for each entries section S of the flavor:
 * --rename-section S=S<sfx> and both bounds, in upstream's order.  Under
 * 16 the wrapper's dummy entry is an external symbol, which the wrapper
 * object of a later link would define again: it is made local. */
static void push_edits(struct strvec *argv, enum ol_flavor flavor, const char *suffix)
{
	size_t n;
	const struct ol_entries_section *sections = ol_entries_sections(&n);

	strvec_push(argv, "--remove-section");
	strvec_push(argv, ".llvm.offloading");
	for (size_t i = 0; i < n; i++) {
		const char *s = sections[i].name;

		if (!ol_entries_section_in_flavor(&sections[i], (int)flavor))
			continue;
		strvec_push(argv, "--rename-section");
		strvec_pushf(argv, "%s=%s%s", s, s, suffix);
		strvec_push(argv, "--redefine-sym");
		strvec_pushf(argv, "__start_%s=__start_%s%s", s, s, suffix);
		strvec_push(argv, "--redefine-sym");
		strvec_pushf(argv, "__stop_%s=__stop_%s%s", s, s, suffix);
		if (flavor == OL_FLAVOR_16 && sections[i].dummy16) {
			strvec_push(argv, "--localize-symbol");
			strvec_push(argv, sections[i].dummy16);
		}
	}
}

int ol_relocatable_finish(const struct ol_cmdline *cl, enum ol_flavor flavor)
{
	const int dry_run = ol_spawn_config()->dry_run;
	const char *const dirs[] = { OL_LLVM_BINDIR, NULL };
	struct strvec argv = STRVEC_INIT;
	uint8_t digest[OL_MD5_SIZE];
	char suffix[24];
	const char *tmp;
	char *objcopy, *tmp_name = NULL;
	int rc;

	/* From here until the edit is renamed over it, the linker's output is
	 * one of our temp files: any failure, or a signal, removes it. */
	if (!dry_run)
		ol_temp_register(cl->output);
	objcopy = ol_find_tool("llvm-objcopy", NULL, dirs);
	if (!objcopy) {
		ol_error("cannot find 'llvm-objcopy' (looked beside offload-link, in COMPILER_PATH, "
			 "beside clang, in %s and on PATH); a relocatable link (-r) needs it to take "
			 "the linked device code out of '%s'", OL_LLVM_BINDIR, cl->output);
		return 1;
	}
	if (hash_output(cl->output, digest) < 0) {
		free(objcopy);
		return 1;
	}
	/* llvm::utohexstr: lowercase, no leading zeros. */
	snprintf(suffix, sizeof(suffix), "_%" PRIx64, ol_md5_low(digest));
	if (dry_run)
		tmp = tmp_name = ol_xasprintf("%s.tmp-XXXXXX", cl->output);
	else
		tmp = ol_temp_create_beside(cl->output, NULL);
	if (!tmp) {
		free(objcopy);
		return 1;
	}

	strvec_push(&argv, objcopy);
	strvec_push(&argv, cl->output);
	strvec_push(&argv, tmp);
	push_edits(&argv, flavor, suffix);
	rc = ol_spawn_checked(&argv);
	if (rc == 0 && !dry_run) {
		rc = ol_temp_commit(tmp, cl->output);
		if (rc == 0)
			ol_temp_forget(cl->output);
	}
	strvec_release(&argv);
	free(objcopy);
	free(tmp_name);
	return rc < 0 ? 1 : 0;
}
