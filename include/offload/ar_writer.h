/*
 * ar_writer: builds a GNU ar archive in memory, for handing many objects
 * to a linker as one file.  Member names longer than 15 bytes go to the
 * "//" table, as GNU ar writes them; no symbol index (the archive is meant
 * for --whole-archive).
 */
#ifndef OFFLOAD_AR_WRITER_H
#define OFFLOAD_AR_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "offload/strvec.h"

struct ol_ar_entry {
	const char *name;       /* no '/' or newline */
	const uint8_t *data;
	size_t size;
};

/* Appends the archive of `n` members, in order, to out. */
void ol_ar_write(const struct ol_ar_entry *members, size_t n, struct strbuf *out);

#endif
