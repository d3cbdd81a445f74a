/*
 * mapped_file: read-only mmap views of input files.  Views handed out by the
 * scanner (device images, archive members) point into these mappings, which
 * stay mapped until ol_mapped_release_all() at exit.  Nothing is copied.
 */
#ifndef OFFLOAD_MAPPED_FILE_H
#define OFFLOAD_MAPPED_FILE_H

#include <stddef.h>
#include <stdint.h>

struct ol_mapped_file {
	const char *path;
	const uint8_t *data;   /* NULL for an empty file */
	size_t size;
	unsigned long long dev, ino;   /* identity: one file named two ways maps once */
	struct ol_mapped_file *next;
};

/* Returns NULL and sets errno if the file cannot be opened or mapped. The
 * same path mapped twice returns the same object. */
struct ol_mapped_file *ol_map_file(const char *path);
void ol_mapped_release_all(void);

#endif
