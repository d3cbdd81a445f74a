/*
 * bitcode_sandbox: host bitcode read in a child process.  See
 * offload/bitcode_sandbox.h.
 *
 * LLVM's bitcode reader trusts its input: one changed byte in a -flto object
 * has made it fault in the metadata reader, abort with "out of memory", or
 * grow past 7 GB in a loop.  None of that can be caught in-process, and a
 * fault in the middle of a link would take the link with it.  So the read
 * runs in a forked child under CPU-time and address-space limits; the child
 * writes what the link needs (symbols, offloading sections, producer facts)
 * to a memory file in a small private encoding, and the parent decodes it.
 * A child that dies becomes one error naming the file.
 */
#include "offload/bitcode_sandbox.h"
#include "offload/diag.h"
#include "offload/mapped_file.h"
#include "offload/spawn.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define OL_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OL_UNDER_ASAN 1
#endif
#endif

/* What a healthy read of `size` bytes may take.  Reading a module lazily
 * (symbols and globals, no function bodies) takes well under a second per
 * 10 MB; the limits are far above that and far below "forever". */
static rlim_t cpu_seconds_for(size_t size)
{
	return 30 + (rlim_t)(size >> 20);
}

#ifndef OL_UNDER_ASAN
static rlim_t address_space_for(size_t size)
{
	return ((rlim_t)4 << 30) + (rlim_t)size * 32;
}
#endif

/* ---- the encoding (child -> parent) -------------------------------------- */

/* status u8 (0 ok, 1 error), then for an error: the message (the rest);
 * for success: clang_major u32, entries_abi u32, nsymbols u32, each symbol
 * flags u8 (defined, weak, hidden, common bits) + name length u32 + name;
 * nsections u32, each section length u64 + bytes.  Host byte order: the
 * file never leaves this machine. */

struct sink {
	int fd;
	int failed;
};

static void put(struct sink *s, const void *data, size_t size)
{
	const char *p = data;

	while (size && !s->failed) {
		ssize_t n = write(s->fd, p, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->failed = 1;
			return;
		}
		p += n;
		size -= (size_t)n;
	}
}

static void put_u32(struct sink *s, uint32_t v)
{
	put(s, &v, sizeof(v));
}

static int encode_info(int fd, const struct ol_bc_info *info)
{
	struct sink s = { fd, 0 };
	uint8_t ok = 0;

	put(&s, &ok, 1);
	put_u32(&s, (uint32_t)info->clang_major);
	put_u32(&s, (uint32_t)info->entries_abi);
	put_u32(&s, (uint32_t)info->nsymbols);
	for (size_t i = 0; i < info->nsymbols; i++) {
		const struct ol_bc_symbol *sym = &info->symbols[i];
		uint8_t flags = (uint8_t)((sym->defined ? 1 : 0) | (sym->weak ? 2 : 0) |
					  (sym->hidden ? 4 : 0) | (sym->common ? 8 : 0));
		size_t len = strlen(sym->name);

		put(&s, &flags, 1);
		put_u32(&s, (uint32_t)len);
		put(&s, sym->name, len);
	}
	put_u32(&s, (uint32_t)info->noffload_sections);
	for (size_t i = 0; i < info->noffload_sections; i++) {
		uint64_t len = info->offload_sections[i].size;

		put(&s, &len, sizeof(len));
		put(&s, info->offload_sections[i].data, (size_t)len);
	}
	return s.failed ? -1 : 0;
}

static void encode_error(int fd, const char *message)
{
	struct sink s = { fd, 0 };
	uint8_t status = 1;

	put(&s, &status, 1);
	put(&s, message, strlen(message));
}

struct source {
	const uint8_t *p, *end;
};

static int take(struct source *src, void *out, size_t size)
{
	if ((size_t)(src->end - src->p) < size)
		return -1;
	memcpy(out, src->p, size);
	src->p += size;
	return 0;
}

/* The child wrote it, but a child that died halfway may have written part
 * of it: every length is checked against what is there. */
static int decode_info(const uint8_t *data, size_t size, struct ol_bc_info *out)
{
	struct source src = { data + 1, data + size };
	uint32_t major, abi, nsyms, nsecs;

	if (take(&src, &major, 4) || take(&src, &abi, 4) || take(&src, &nsyms, 4) ||
	    nsyms > size)
		return -1;
	out->clang_major = (int)major;
	out->entries_abi = (int)abi;
	out->symbols = ol_xcalloc(nsyms ? nsyms : 1, sizeof(*out->symbols));
	for (uint32_t i = 0; i < nsyms; i++) {
		struct ol_bc_symbol *sym = &out->symbols[i];
		uint8_t flags;
		uint32_t len;

		if (take(&src, &flags, 1) || take(&src, &len, 4) ||
		    (size_t)(src.end - src.p) < len)
			return -1;
		sym->name = ol_xmalloc((size_t)len + 1);
		memcpy(sym->name, src.p, len);
		sym->name[len] = '\0';
		src.p += len;
		sym->defined = flags & 1;
		sym->weak = (flags >> 1) & 1;
		sym->hidden = (flags >> 2) & 1;
		sym->common = (flags >> 3) & 1;
		out->nsymbols = i + 1;
	}
	if (take(&src, &nsecs, 4) || nsecs > size)
		return -1;
	out->offload_sections = ol_xcalloc(nsecs ? nsecs : 1, sizeof(*out->offload_sections));
	for (uint32_t i = 0; i < nsecs; i++) {
		uint64_t len;

		if (take(&src, &len, 8) || (uint64_t)(src.end - src.p) < len)
			return -1;
		out->offload_sections[i].data = ol_xmalloc(len ? (size_t)len : 1);
		memcpy(out->offload_sections[i].data, src.p, (size_t)len);
		out->offload_sections[i].size = (size_t)len;
		src.p += len;
		out->noffload_sections = i + 1;
	}
	return src.p == src.end ? 0 : -1;
}

/* ---- the child ------------------------------------------------------------ */

static void limit(int resource, rlim_t value)
{
	struct rlimit lim = { value, value };

	if (resource == RLIMIT_CPU)
		lim.rlim_max = value + 5;   /* SIGXCPU first, SIGKILL later */
	setrlimit(resource, &lim);
}

static void __attribute__((noreturn))
run_child(const struct ol_backend *be, const uint8_t *data, size_t size, const char *name,
	  int result_fd, int message_fd)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGXCPU,
				      SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };
	struct ol_bc_info info;
	char *err = NULL;

	/* Nothing of the parent's may run here: not its signal handlers, not its
	 * exit-time cleanup (LLVM's fatal errors call exit; ol_spawn_fork has
	 * disowned the registry). */
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		signal(faults[i], SIG_DFL);
	limit(RLIMIT_CPU, cpu_seconds_for(size));
#ifndef OL_UNDER_ASAN
	/* ASan reserves terabytes of shadow address space up front. */
	limit(RLIMIT_AS, address_space_for(size));
#endif
	limit(RLIMIT_CORE, 0);
	/* What LLVM prints on its way down ("LLVM ERROR: ...") goes to the
	 * parent's message. */
	dup2(message_fd, STDERR_FILENO);
	memset(&info, 0, sizeof(info));
	if (be->bitcode_info(data, size, name, &info, &err) != 0) {
		encode_error(result_fd, err ? err : "unknown error");
		_exit(0);
	}
	_exit(encode_info(result_fd, &info) == 0 ? 0 : 3);
}

/* ---- the parent ----------------------------------------------------------- */

/* The last line LLVM printed before it died, or "". */
static char *last_line(int fd)
{
	uint8_t *data;
	size_t size = 0;
	char *text, *start, *end;

	if (ol_read_open_file(fd, &data, &size) < 0)
		return ol_xstrdup("");
	text = (char *)data;
	while (size && (text[size - 1] == '\n' || text[size - 1] == ' '))
		text[--size] = '\0';
	end = text + size;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	start = ol_xstrdup(start);
	free(text);
	return start;
}

static char *death_message(int status, int message_fd, size_t size)
{
	char *said = last_line(message_fd);
	char *msg;

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
		msg = ol_xasprintf("LLVM's bitcode reader gave up after %lu s of CPU time: the file is "
				   "damaged", (unsigned long)cpu_seconds_for(size));
	else if (WIFSIGNALED(status))
		msg = ol_xasprintf("LLVM's bitcode reader crashed on it (%s)%s%s: the file is damaged",
				   strsignal(WTERMSIG(status)), *said ? ": " : "", said);
	else
		msg = ol_xasprintf("LLVM's bitcode reader failed on it (exit %d)%s%s: the file is "
				   "damaged", WEXITSTATUS(status), *said ? ": " : "", said);
	free(said);
	return msg;
}

int ol_bitcode_info_sandboxed(const struct ol_backend *be, const uint8_t *data, size_t size,
			      const char *name, struct ol_bc_info *out, char **err)
{
	int result_fd = memfd_create("offload-link-bitcode", MFD_CLOEXEC);
	int message_fd = memfd_create("offload-link-bitcode-stderr", MFD_CLOEXEC);
	uint8_t *result = NULL;
	size_t result_size = 0;
	int status = 0, rc = -1, pid;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	if (result_fd < 0 || message_fd < 0) {
		*err = ol_xasprintf("cannot create a memory file: %s", strerror(errno));
		goto done;
	}
	pid = ol_spawn_fork();
	if (pid == 0)
		run_child(be, data, size, name, result_fd, message_fd);
	if (pid < 0 || ol_child_reap(pid, &status) < 0) {
		*err = ol_xasprintf("cannot %s: %s", pid < 0 ? "fork" : "wait for the reader",
				    strerror(errno));
		goto done;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*err = death_message(status, message_fd, size);
		goto done;
	}
	if (ol_read_open_file(result_fd, &result, &result_size) < 0 || result_size == 0) {
		*err = ol_xstrdup("LLVM's bitcode reader left no result");
	} else if (result[0] == 1) {
		*err = ol_xstrdup((const char *)result + 1);
	} else if (decode_info(result, result_size, out) < 0) {
		be->bitcode_info_free(out);
		*err = ol_xstrdup("LLVM's bitcode reader left a truncated result");
	} else {
		rc = 0;
	}
done:
	free(result);
	if (result_fd >= 0)
		close(result_fd);
	if (message_fd >= 0)
		close(message_fd);
	return rc;
}
