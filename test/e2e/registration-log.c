/*
 * registration-log: part of the end-to-end tests' LD_PRELOAD module.
 *
 * It interposes libomptarget's __tgt_register_lib and, when $OL_REGISTRATION_LOG
 * names a file, appends one line per registered device image before passing
 * the call on: the image's offload entries, sorted, clang's unique prefix
 * "__omp_offloading_<device>_<file>_" taken off the kernel names, e.g.
 *
 *   image: foo_l12 foo_runs
 *
 * The runner compares the sorted lines with the case's file, which shows
 * that every image is registered exactly once and carries exactly the
 * entries of its own code: an image linked twice (the library's code in the
 * program's image too) or entries bracketed by the wrong descriptor change
 * the lines.  A shared library's registration calls reach this module too:
 * the program does not define the symbol, so the preloaded definition comes
 * first for every caller.
 *
 * The entries are read with the layout of the runtime the program was
 * linked for: 16 and 19's 32-byte __tgt_offload_entry { addr, name, size,
 * flags, reserved }, or 22's 56-byte llvm::offloading::EntryTy { reserved
 * (0), version (1), kind, flags, address, name, size, data, aux }, told
 * apart by 22's leading zero and version; an entry array of neither size
 * is logged as such.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct offload_entry {
	void *addr;
	char *name;
	size_t size;
	int32_t flags;
	int32_t reserved;
};

struct offload_entry_22 {
	uint64_t reserved;
	uint16_t version, kind;
	uint32_t flags;
	void *addr;
	char *name;
	uint64_t size, data;
	void *aux;
};

struct device_image {
	void *image_start, *image_end;
	struct offload_entry *entries_begin, *entries_end;
};

struct bin_desc {
	int32_t num_images;
	struct device_image *images;
	struct offload_entry *host_entries_begin, *host_entries_end;
};

void __tgt_register_lib(struct bin_desc *desc);

/* "__omp_offloading_fe00_a72853_foo_l12" -> "foo_l12". */
static const char *short_name(const char *name)
{
	static const char prefix[] = "__omp_offloading_";
	const char *p;

	if (!name)
		return "(null)";
	if (strncmp(name, prefix, sizeof(prefix) - 1) != 0)
		return name;
	p = strchr(name + sizeof(prefix) - 1, '_');   /* after the device id */
	p = p ? strchr(p + 1, '_') : NULL;              /* after the file id */
	return p ? p + 1 : name;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether the array holds 22's entries: a multiple of 56 bytes whose first
 * entry starts with 22's zero and version 1 (a 32-byte entry starts with an
 * address, never 0). */
static int is_layout_22(const struct device_image *image, size_t bytes)
{
	const struct offload_entry_22 *first = (const void *)image->entries_begin;

	return bytes && bytes % sizeof(struct offload_entry_22) == 0 && first->reserved == 0 &&
	       first->version == 1;
}

static void log_image(int fd, const struct device_image *image)
{
	size_t bytes = (size_t)((const char *)image->entries_end - (const char *)image->entries_begin);
	int v22 = is_layout_22(image, bytes);
	size_t size = v22 ? sizeof(struct offload_entry_22) : sizeof(struct offload_entry);
	size_t n = bytes / size, len = 0;
	const char **names;
	char line[4096];

	if (bytes % size != 0) {
		dprintf(fd, "image: entries of %zu bytes, neither the 32- nor the 56-byte layout\n",
			bytes);
		return;
	}
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names)
		abort();
	for (size_t i = 0; i < n; i++)
		names[i] = short_name(v22 ? ((const struct offload_entry_22 *)image->entries_begin)[i].name
				      : image->entries_begin[i].name);
	qsort(names, n, sizeof(*names), by_name);
	len = (size_t)snprintf(line, sizeof(line), "image:");
	for (size_t i = 0; i < n && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %s", names[i]);
	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	line[len++] = '\n';
	/* One write per line, O_APPEND: lines of several processes stay whole. */
	if (write(fd, line, len) < 0)
		abort();
	free(names);
}

void __tgt_register_lib(struct bin_desc *desc)
{
	void (*real)(struct bin_desc *) = (void (*)(struct bin_desc *))dlsym(RTLD_NEXT,
									   "__tgt_register_lib");
	const char *path = getenv("OL_REGISTRATION_LOG");

	if (!real)
		abort();
	if (path && *path) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0)
			abort();
		for (int32_t i = 0; i < desc->num_images; i++)
			log_image(fd, &desc->images[i]);
		close(fd);
	}
	real(desc);
}
