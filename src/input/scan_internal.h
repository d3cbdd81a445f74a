/*
 * scan_internal: the pieces of the input scanner (src/input/) shared between
 * its files.  Not part of the public contract (that is offload/inputs.h).
 *
 *   scan.c        the walk over cl->link_items, classification, bitcode and
 *                 raw offload binaries, lazy symbol tables
 *   elf_object.c  ELF objects through libelf: offloading sections, .comment,
 *                 entries sections, symbol tables
 *   coff_object.c COFF objects (Windows hosts): the same, through format/coff.c
 *   archive.c     the ar walker (GNU, BSD, thin)
 *   libsearch.c   -l search, as the host linker does it
 */
#ifndef OFFLOAD_SCAN_INTERNAL_H
#define OFFLOAD_SCAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "offload/inputs.h"

struct ol_cmdline;

/* Device images of one object, collected with malloc while the object is
 * scanned, then moved to the arena by ol_object_take_images(). */
struct ol_image_vec {
	struct ol_device_image *v;
	size_t n, alloc;
};

/* --- offload_section.c ------------------------------------------------------ */

/* The location of an object as a whole (file and member). */
struct ol_loc ol_object_loc(const struct ol_object *obj);

/* Parses a section of concatenated offload binaries belonging to obj and
 * appends its images to vec.  `section` names it in messages (NULL for a
 * whole raw file).  Returns 0, or -1 after reporting the error. */
int ol_scan_offload_section(struct ol_object *obj, struct ol_image_vec *vec,
			    const uint8_t *data, size_t size, const char *section);

/* --- scan.c ---------------------------------------------------------------- */

/* Scans one input held in memory exactly as ol_inputs_scan scans a file it
 * has mapped (classification, archive members, offloading sections); `path`
 * names it in messages and locates a thin archive's members.  The fuzzers'
 * entry.  Fills *input and the summary in *in; returns 0, or -1 if anything
 * was reported. */
int ol_scan_memory(const char *path, const uint8_t *data, size_t size, struct ol_inputs *in,
		   struct ol_input *input);

/* Which entries layout a section name stands for (inputs.h entries_abi):
 * 16 for "omp_offloading_entries" and its CUDA/HIP siblings, 22 for
 * "llvm_offload_entries", 0 for any other name. */

/* --- elf_object.c ---------------------------------------------------------- */

/* libelf over an ELF file in memory, checked as far as a link needs: the
 * section and program header tables lie inside it.  NULL after reporting
 * at `loc`.  elf_end() when done. */
typedef struct Elf Elf;
Elf *ol_elf_open(const uint8_t *data, size_t size, const struct ol_loc *loc);

/* Section headers only: appends the images of every SHT_LLVM_OFFLOADING or
 * ".llvm.offloading" section to vec (but not those of upstream's
 * ".llvm.offloading.relocatable", which are registered already), and sets obj->entries_abi and, for
 * objects that carry offloading data, obj->clang_major.  Returns 0, or -1
 * after reporting the error. */
int ol_elf_scan(struct ol_object *obj, struct ol_image_vec *vec);

/* Global and weak symbols of an ELF file: .symtab of a relocatable object,
 * .dynsym of a shared object, .symtab (else .dynsym) of an executable.
 * Arrays come from the link arena.  Returns 0, or -1 after reporting the
 * error at `loc` (out is then empty). */
int ol_elf_symbols(const uint8_t *data, size_t size, const struct ol_loc *loc,
		   struct ol_symtab *out);

/* --- coff_object.c --------------------------------------------------------- */

/* A COFF object (Windows host): appends the images of every section whose
 * name starts with ".llvm.offloading" to vec and sets obj->entries_abi from
 * the entries sections ("omp_offloading_entries$OE").  Returns 0, or -1
 * after reporting the error. */
int ol_coff_scan(struct ol_object *obj, struct ol_image_vec *vec);

/* External and weak external symbols of a COFF object, as the host linker
 * sees them (arena arrays).  Returns 0, or -1 after reporting at `loc`. */
int ol_coff_symbols(const uint8_t *data, size_t size, const struct ol_loc *loc,
		    struct ol_symtab *out);

/* --- archive.c ------------------------------------------------------------- */

struct ol_ar_member {
	const char *name;         /* member name (arena), path for thin members */
	uint64_t header_offset;   /* offset of the member header in the archive */
	const uint8_t *data;      /* contents: inside the archive, or the mapped file of a thin member */
	size_t size;
};

typedef void (*ol_ar_member_fn)(void *ctx, const struct ol_ar_member *member);

/* Calls fn for each member in order, skipping symbol tables and the GNU
 * long-name table.  A thin archive's members are mapped from their own
 * files (relative to the archive's directory); one that cannot be mapped is
 * reported and skipped.  A malformed header or truncated member is reported
 * with the archive and offset and ends the walk.  Returns 0, or -1 if
 * anything was reported. */
int ol_archive_walk(const char *path, const uint8_t *data, size_t size,
		    ol_ar_member_fn fn, void *ctx);

/* --- libsearch.c ----------------------------------------------------------- */

/* Finds -l<name> ("foo" or ":file") in cl->lib_paths; lib<name>.so before
 * lib<name>.a in each directory unless static_only.  Returns an arena path,
 * or NULL if no directory has it. */
const char *ol_find_library(const struct ol_cmdline *cl, const char *name, int static_only);

#endif
