/*
 * mapped_file: read-only views of input files.  Views handed out by the
 * scanner (device images, archive members) point into them, and they stay
 * until the process exits (ol_mapped_release_all() drops them for tests).
 * Files are mapped, except small ones (32 KB or less), which one read(2)
 * brings in for less than an mmap costs; nothing larger is ever copied.
 */
#ifndef OFFLOAD_MAPPED_FILE_H
#define OFFLOAD_MAPPED_FILE_H

#include <stddef.h>
#include <stdint.h>

struct ol_mapped_file {
	const char *path;
	const uint8_t *data;   /* NULL for an empty file */
	size_t size;
	int mapped;            /* 0: a small file read into memory (see mapped_file.c) */
	unsigned long long dev, ino;   /* identity: one file named two ways maps once */
	long long mtime_ns;            /* for what is remembered about its contents */
	struct ol_mapped_file *next;
};

/* Returns NULL and sets errno if the file cannot be opened or mapped: EISDIR
 * for a directory, ESPIPE for a FIFO or socket (never waited on: opened
 * without blocking), EINVAL for another file that is not regular.  The
 * same path mapped twice returns the same object, and one file named two
 * ways shares one mapping.  Main thread only. */
struct ol_mapped_file *ol_map_file(const char *path);
/* The errno above for a file of this st_mode that is not regular. */
int ol_not_regular_errno(unsigned mode);
/* Reports that `path` (ESPIPE from ol_map_file, or a FIFO found otherwise)
 * cannot be read to its end, read as `what` ("link input", "response
 * file"); returns -1. */
int ol_error_not_readable_to_end(const char *path, const char *what);
/* ol_map_file for a file that must be there: a failure is reported
 * (cannot open, with the reason; a FIFO as above, read as `what`) and gives
 * NULL. */
struct ol_mapped_file *ol_map_file_reported(const char *path, const char *what);
void ol_map_files_ahead(const char *const *paths, size_t n);
void ol_map_files_ahead_finish(void);
/* Give back the resident pages of the mapped files: the scan touched all of
 * them (a device runtime archive holds every GPU's code), the device links
 * need a few.  Views stay valid; what is read again faults back in from the
 * page cache.  Lowers the peak memory of parallel device links. */
void ol_mapped_drop_pages(void);
void ol_mapped_release_all(void);
/* How many files are loaded and their total size (--stats). */
void ol_mapped_totals(size_t *files, uint64_t *bytes);

/* A whole file read into a malloc'd buffer, NUL-terminated past *size
 * bytes (so text can be used as a string; *data NULL for an empty file),
 * for outputs of the tools we run.  Returns 0, or -1 with errno set.
 * ol_read_open_file: the same for an open file (a memory file a child
 * wrote), from its start; an empty one gives an empty string. */
int ol_read_whole_file(const char *path, uint8_t **data, size_t *size);
int ol_read_open_file(int fd, uint8_t **data, size_t *size);

#endif
