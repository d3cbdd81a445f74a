/*
 * entries_sections: where clang puts the offload entries of host code, per
 * release and offload kind (spec 5.1, 5.2, 6.1).  One table, read by
 *   - the wrapper modules: the section their __start_/__stop_ bracket;
 *   - the relocatable link (relocatable.c): every section of the flavor is
 *     renamed, so that a later link does not bracket these entries again;
 *   - the scanners (ELF and bitcode): which entries layout the host code uses.
 *
 * Header-only (static inline) because the LLVM backend, which does not link
 * the core, reads it too.  A new offload kind's section is a new row.
 */
#ifndef OFFLOAD_ENTRIES_SECTIONS_H
#define OFFLOAD_ENTRIES_SECTIONS_H

#include <stddef.h>
#include <string.h>

#include "offload/offload_binary.h"   /* OL_OFK_* */

struct ol_entries_section {
	const char *name;
	unsigned kinds;        /* offload kinds (OL_OFK_*) whose entries it holds */
	int first, last;       /* the flavors (16, 19, 22) whose clang writes it */
	int layout;            /* 16: the 32-byte __tgt_offload_entry, 22: the 56-byte one */
	/* The dummy entry that makes sure the section exists.  16's wrapper
	 * defines it as an external (hidden) symbol, so two of its wrapper
	 * objects in one link collide (issue #77018); 19 and 22 name it
	 * "__dummy.<section>" and keep it internal. */
	const char *dummy16;
};

/* In upstream 19's renaming order (omp, cuda, hip), which 16 shares. */
static inline const struct ol_entries_section *ol_entries_sections(size_t *count)
{
	static const struct ol_entries_section table[] = {
		{ "omp_offloading_entries", OL_OFK_OPENMP, 16, 19, 16,
		  "__dummy.omp_offloading.entry" },
		{ "cuda_offloading_entries", OL_OFK_CUDA, 16, 19, 16,
		  "__dummy.cuda_offloading.entry" },
		{ "hip_offloading_entries", OL_OFK_HIP, 16, 19, 16, "__dummy.hip_offloading.entry" },
		{ "llvm_offload_entries", OL_OFK_OPENMP | OL_OFK_CUDA | OL_OFK_HIP | OL_OFK_SYCL,
		  22, 22, 22, NULL },
	};

	*count = sizeof(table) / sizeof(table[0]);
	return table;
}

/* Whether a flavor's clang writes this section. */
static inline int ol_entries_section_in_flavor(const struct ol_entries_section *s, int flavor)
{
	return flavor >= s->first && flavor <= s->last;
}

/* The section holding `kind`'s entries under `flavor`, or NULL. */
static inline const struct ol_entries_section *ol_entries_section_of(int flavor, unsigned kind)
{
	size_t n;
	const struct ol_entries_section *s = ol_entries_sections(&n);

	for (size_t i = 0; i < n; i++)
		if (ol_entries_section_in_flavor(&s[i], flavor) && (s[i].kinds & kind))
			return &s[i];
	return NULL;
}

/* The entries layout (16 or 22) the section name name[0 .. len) stands
 * for; 0 if it is no entries section.  (COFF names carry a "$OE" suffix the
 * caller leaves out of len.) */
static inline int ol_entries_layout_of_n(const char *name, size_t len)
{
	size_t n;
	const struct ol_entries_section *s = ol_entries_sections(&n);

	for (size_t i = 0; i < n; i++)
		if (strlen(s[i].name) == len && memcmp(name, s[i].name, len) == 0)
			return s[i].layout;
	return 0;
}

static inline int ol_entries_layout_of(const char *name)
{
	return ol_entries_layout_of_n(name, strlen(name));
}

#endif
