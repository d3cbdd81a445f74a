/*
 * test_bitcode_sandbox: the child process that reads host bitcode.  A stand-in
 * backend plays LLVM's reader: one that answers (every field must come back
 * as it was), one that reports an error, and the ways the real reader has
 * died on damaged files: a fault, an abort after "LLVM ERROR: out of
 * memory", allocation without end (stopped by the address-space limit) and
 * a result cut short.  Each death is one message; the tool goes on.
 */
#include "offload/bitcode_sandbox.h"
#include "offload/tempfile.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static const uint8_t section_bytes[] = { 0x10, 0xff, 0x10, 0xad, 0, 1, 2, 3 };

static int answer(const uint8_t *data, size_t size, const char *name, struct ol_bc_info *out,
		  char **err)
{
	(void)data, (void)size, (void)name, (void)err;
	out->nsymbols = 2;
	out->symbols = calloc(2, sizeof(*out->symbols));
	out->symbols[0].name = strdup("main");
	out->symbols[0].defined = 1;
	out->symbols[1].name = strdup("weak_hidden_common");
	out->symbols[1].weak = out->symbols[1].hidden = out->symbols[1].common = 1;
	out->noffload_sections = 2;
	out->offload_sections = calloc(2, sizeof(*out->offload_sections));
	out->offload_sections[0].data = malloc(sizeof(section_bytes));
	memcpy(out->offload_sections[0].data, section_bytes, sizeof(section_bytes));
	out->offload_sections[0].size = sizeof(section_bytes);
	out->offload_sections[1].data = malloc(1);
	out->offload_sections[1].size = 0;
	out->clang_major = 19;
	out->entries_abi = 16;
	return 0;
}

static int refuse(const uint8_t *data, size_t size, const char *name, struct ol_bc_info *out,
		  char **err)
{
	(void)data, (void)size, (void)name, (void)out;
	*err = strdup("Invalid record");
	return -1;
}

static int fault(const uint8_t *data, size_t size, const char *name, struct ol_bc_info *out,
		 char **err)
{
	(void)data, (void)size, (void)name, (void)out, (void)err;
	raise(SIGSEGV);
	return 0;
}

static int out_of_memory(const uint8_t *data, size_t size, const char *name,
			 struct ol_bc_info *out, char **err)
{
	(void)data, (void)size, (void)name, (void)out, (void)err;
	fputs("LLVM ERROR: out of memory\nAllocation failed\n", stderr);
	abort();
}

#if !defined(__SANITIZE_ADDRESS__)
/* Grows until the address-space limit stops it (not set under ASan), then
 * aborts as LLVM's allocator does when malloc fails. */
static int grow(const uint8_t *data, size_t size, const char *name, struct ol_bc_info *out,
		char **err)
{
	(void)data, (void)size, (void)name, (void)out, (void)err;
	for (;;) {
		volatile char *block = malloc((size_t)256 << 20);
		if (!block) {
			fputs("LLVM ERROR: out of memory\n", stderr);
			abort();
		}
		block[0] = 1;
	}
}
#endif

/* Exits in the middle, as LLVM's fatal error handler does (exit(1)). */
static int fatal_exit(const uint8_t *data, size_t size, const char *name,
		      struct ol_bc_info *out, char **err)
{
	(void)data, (void)size, (void)name, (void)out, (void)err;
	fputs("LLVM ERROR: Invalid abbrev number\n", stderr);
	exit(1);
}

static void release(struct ol_bc_info *info)
{
	ol_bc_info_release(info);
}

static struct ol_backend backend_with(int (*reader)(const uint8_t *, size_t, const char *,
						    struct ol_bc_info *, char **))
{
	struct ol_backend be;

	memset(&be, 0, sizeof(be));
	be.bitcode_info = reader;
	be.bitcode_info_free = release;
	return be;
}

static void expect_death(const char *name,
			 int (*reader)(const uint8_t *, size_t, const char *, struct ol_bc_info *,
				       char **),
			 const char *message)
{
	struct ol_backend be = backend_with(reader);
	struct ol_bc_info info;
	char *err = NULL;
	int rc;

	current_test = name;
	rc = ol_bitcode_info_sandboxed(&be, (const uint8_t *)"BC\xc0\xde", 4, "k.o", &info, &err);
	CHECK(rc == -1);
	CHECK(err && strcmp(err, message) == 0);
	if (err && strcmp(err, message) != 0)
		fprintf(stderr, "  got:      %s\n  expected: %s\n", err, message);
	CHECK(info.nsymbols == 0 && info.noffload_sections == 0);
	free(err);
}

int main(void)
{
	struct ol_backend be = backend_with(answer);
	struct ol_bc_info info;
	char *err = NULL;

	/* The registry's handlers are in place, as in the tool: the child must
	 * not run them. */
	ol_temp_init(0, 0);

	current_test = "answer";
	CHECK(ol_bitcode_info_sandboxed(&be, (const uint8_t *)"BC\xc0\xde", 4, "k.o", &info,
					&err) == 0);
	CHECK(err == NULL);
	CHECK(info.nsymbols == 2 && info.noffload_sections == 2);
	if (info.nsymbols == 2) {
		CHECK(strcmp(info.symbols[0].name, "main") == 0);
		CHECK(info.symbols[0].defined && !info.symbols[0].weak && !info.symbols[0].hidden &&
		      !info.symbols[0].common);
		CHECK(strcmp(info.symbols[1].name, "weak_hidden_common") == 0);
		CHECK(!info.symbols[1].defined && info.symbols[1].weak && info.symbols[1].hidden &&
		      info.symbols[1].common);
	}
	if (info.noffload_sections == 2) {
		CHECK(info.offload_sections[0].size == sizeof(section_bytes));
		CHECK(memcmp(info.offload_sections[0].data, section_bytes, sizeof(section_bytes)) == 0);
		CHECK(info.offload_sections[1].size == 0);
	}
	CHECK(info.clang_major == 19 && info.entries_abi == 16);
	release(&info);

	expect_death("refuse", refuse, "Invalid record");
	expect_death("fault", fault,
		     "LLVM's bitcode reader crashed on it (Segmentation fault): the file is damaged");
	expect_death("out of memory", out_of_memory,
		     "LLVM's bitcode reader crashed on it (Aborted): Allocation failed: the file is "
		     "damaged");
#if !defined(__SANITIZE_ADDRESS__)
	expect_death("grow", grow,
		     "LLVM's bitcode reader crashed on it (Aborted): LLVM ERROR: out of memory: the "
		     "file is damaged");
#endif
	expect_death("fatal exit", fatal_exit,
		     "LLVM's bitcode reader failed on it (exit 1): LLVM ERROR: Invalid abbrev number: "
		     "the file is damaged");
	return failures != 0;
}
