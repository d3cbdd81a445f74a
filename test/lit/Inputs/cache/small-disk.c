/*
 * small-disk.c: a preloaded module that makes one directory behave as a
 * small file system, for the tests of a full disk where a small tmpfs
 * cannot be mounted (Inputs/cache/small-disk.sh tries that first).
 *
 *   OL_SMALL_DISK_DIR=<dir> OL_SMALL_DISK_BYTES=<n> LD_PRELOAD=<this module>
 *
 * The files under <dir> count as tmpfs counts them, their sizes in whole
 * 4 KiB pages; directories count nothing.  A write(2) or pwrite(2) to a file
 * under <dir> that would take the total past n bytes writes what fits and
 * returns that (a short write), and a write with nothing left to fit fails
 * with ENOSPC: what a full disk does.  Other files are not touched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096u

static char disk_dir[PATH_MAX];
static size_t disk_dir_len;
static uint64_t disk_bytes;
/* nftw's callback has no argument to carry the sum in. */
static __thread uint64_t pages_used;

__attribute__((constructor)) static void small_disk_init(void)
{
	const char *dir = getenv("OL_SMALL_DISK_DIR"), *bytes = getenv("OL_SMALL_DISK_BYTES");

	/* /proc/self/fd names files by their resolved paths. */
	if (!dir || !bytes || !realpath(dir, disk_dir))
		return;
	disk_dir_len = strlen(disk_dir);
	disk_bytes = strtoull(bytes, NULL, 10);
}

static uint64_t in_pages(uint64_t size)
{
	return (size + PAGE - 1) / PAGE * PAGE;
}

static int count_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode))
		pages_used += in_pages((uint64_t)st->st_size);
	return 0;
}

static int on_small_disk(int fd)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	if (!disk_dir_len)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return 0;
	path[n] = '\0';
	return strncmp(path, disk_dir, disk_dir_len) == 0 && path[disk_dir_len] == '/';
}

/* How many of `count` bytes written at `offset` of fd fit on the disk. */
static size_t room_for(int fd, uint64_t offset, size_t count)
{
	struct stat st;
	uint64_t free_bytes, end_max;

	if (fstat(fd, &st) < 0)
		return count;
	pages_used = 0;
	nftw(disk_dir, count_file, 16, FTW_PHYS);
	free_bytes = pages_used < disk_bytes ? disk_bytes - pages_used : 0;
	/* The file may grow into the pages it has and the free ones. */
	end_max = in_pages((uint64_t)st.st_size) + free_bytes / PAGE * PAGE;
	if (offset >= end_max)
		return 0;
	return offset + count <= end_max ? count : (size_t)(end_max - offset);
}

static ssize_t write_limited(int fd, const void *buf, size_t count, off_t offset, int positioned)
{
	static ssize_t (*real_write)(int, const void *, size_t);
	static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
	size_t fits = count;

	if (!real_write) {
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
		real_pwrite = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	}
	if (count && on_small_disk(fd)) {
		uint64_t at;

		if (positioned) {
			at = (uint64_t)offset;
		} else {
			struct stat st;
			off_t pos = lseek(fd, 0, SEEK_CUR);
			int append = (fcntl(fd, F_GETFL) & O_APPEND) != 0;

			at = append && fstat(fd, &st) == 0 ? (uint64_t)st.st_size
			     : pos < 0 ? 0 : (uint64_t)pos;
		}
		fits = room_for(fd, at, count);
		if (fits == 0) {
			errno = ENOSPC;
			return -1;
		}
	}
	return positioned ? real_pwrite(fd, buf, fits, offset) : real_write(fd, buf, fits);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	return write_limited(fd, buf, count, 0, 0);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	return write_limited(fd, buf, count, offset, 1);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset)
{
	return write_limited(fd, buf, count, offset, 1);
}
