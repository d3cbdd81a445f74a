/*
 * size_text: sizes as people write them on a command line ("500M", "5G",
 * "2GiB", "1048576"), for --cache-max-size= and --device-link-memory=.
 */
#ifndef OFFLOAD_SIZE_TEXT_H
#define OFFLOAD_SIZE_TEXT_H

#include <stdint.h>

/* A number with an optional k, M, G or T (powers of 1024, "i" and "B"
 * allowed after it) into *out.  Returns 0, or -1 for anything else. */
int ol_parse_size(const char *text, uint64_t *out);

#endif
