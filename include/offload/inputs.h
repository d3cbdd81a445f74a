/*
 * inputs: what the files on the link line hold.
 *
 * ol_inputs_scan() walks cl->link_items in order, finds each -l library the
 * way the host linker does (-L dirs in order, -l:name, lib<name>.so before
 * lib<name>.a unless -Bstatic is in effect, '=' dirs under --sysroot), maps
 * every file once (mapped_file.h) and classifies it.  ELF relocatable objects
 * and archive members are read with libelf (elf_memory over the mapped view),
 * COFF objects (Windows hosts) with format/coff.c; archives may be GNU, BSD
 * or thin.  For each object it records:
 *   - the device images of every SHT_LLVM_OFFLOADING (0x6FFF4C0B) section, or
 *     of a section named ".llvm.offloading" (COFF: every section whose name
 *     starts so), as views, not copies, except ".llvm.offloading.relocatable":
 *     upstream's relocatable links leave their linked and registered images
 *     there (-v says when one is skipped);
 *   - the clang major version from .comment ("clang version 19.1.7"), if any;
 *   - which entries section the host code uses (omp_offloading_entries /
 *     llvm_offload_entries), which tells the wrapper ABI the inputs expect.
 * Host bitcode objects (-flto) are recognised here; their embedded offloading
 * data and symbols come from the LLVM backend (backend.h), loaded only then.
 *
 * Symbols are read lazily by ol_object_symbols(): a plain host link never
 * reads a symbol table.
 *
 * Bad input is reported with its exact location and the scan goes on to the
 * next file; main() stops after the stage (ol_checkpoint).  Everything here is
 * allocated from the link arena and lives until exit.
 */
#ifndef OFFLOAD_INPUTS_H
#define OFFLOAD_INPUTS_H

#include <stddef.h>
#include <stdint.h>
#include "offload/bitcode_header.h"
#include "offload/diag.h"
#include "offload/offload_binary.h"

struct ol_cmdline;
struct ol_backend;

enum ol_input_kind {
	OL_IN_MISSING,        /* does not exist: forwarded, ignored (upstream does the same) */
	OL_IN_OBJECT,         /* ELF relocatable */
	OL_IN_SHARED,         /* ELF shared object */
	OL_IN_EXEC,           /* ELF executable */
	OL_IN_COFF,           /* COFF object (Windows hosts) */
	OL_IN_BITCODE,        /* LLVM bitcode (raw or wrapper) */
	OL_IN_ARCHIVE,
	OL_IN_OFFLOAD_BINARY, /* a raw OffloadBinary file (packager output) */
	OL_IN_OTHER,          /* linker script, text, anything else: passed through */
};

struct ol_symbol {
	const char *name;
	unsigned char defined;   /* defined here (including common) */
	unsigned char weak;
	unsigned char hidden;    /* STV_HIDDEN / STV_INTERNAL */
	unsigned char common;
};

struct ol_symtab {
	struct ol_symbol *v;
	size_t n;
};

struct ol_object;

struct ol_device_image {
	struct ol_offload_binary bin;
	struct ol_object *owner;
	struct ol_loc loc;           /* file, member, section and offset of this binary */
	struct ol_symtab symbols;    /* device symbols: filled by ol_image_symbols() */
	int symbols_read;
	int selected;                /* set by resolve: joins the device link */
};

struct ol_archive;

struct ol_object {
	const char *display;         /* "path" or "path(member)" for messages */
	const char *path;
	const char *member;          /* NULL unless an archive member */
	enum ol_input_kind kind;
	const uint8_t *data;         /* view of the whole file or member */
	size_t size;
	struct ol_archive *archive;
	uint64_t member_offset;      /* offset of the member header in the archive */

	struct ol_device_image *images;
	size_t nimages;

	int clang_major;             /* from .comment / llvm.ident; 0 if unknown */
	int entries_abi;             /* 0 unknown, 16 "omp_offloading_entries", 22 "llvm_offload_entries" */

	struct ol_symtab host_symbols;   /* via ol_object_symbols() */
	int symbols_read;
	int loaded;                  /* set by resolve: the host link loads it */
};

struct ol_archive {
	const char *path;
	int thin;
	struct ol_object **members;
	size_t nmembers;
	int has_offloading;          /* any member carries device images */
};

/* One file-naming item of the link line, in order. */
struct ol_input {
	const char *path;            /* resolved path */
	const char *spelling;        /* as given: "-lfoo" or the path */
	enum ol_input_kind kind;
	struct ol_object *object;    /* OBJECT, COFF, BITCODE, OFFLOAD_BINARY, EXEC, SHARED (symbols only) */
	struct ol_archive *archive;  /* ARCHIVE */
	int whole_archive;           /* under --whole-archive */
	int group;                   /* >0: inside the n-th --start-group */
	size_t link_item;            /* index into cl->link_items */
};

struct ol_inputs {
	struct ol_input *v;
	size_t n;
	size_t nimages;              /* device images found anywhere */
	int any_bitcode;             /* some host input is bitcode */
	int clang_major;             /* highest producer version among fat objects */
	int entries_abi;             /* from the host objects that carry offload entries */
};

/* Scans every input; a bitcode input loads the backend (backend.h).
 * beside_host_link: a speculative host link runs meanwhile (host_link.h),
 * so the link waits for the linker, not the scan: one new thread reads
 * (placed on a core the linker does not hold) while the caller waits.
 * Otherwise a second thread reads ahead.
 * Returns 0, or -1 if errors were reported. */
int ol_inputs_scan(const struct ol_cmdline *cl, struct ol_inputs *in, int beside_host_link);

/* Host symbols of an object (ELF .symtab or bitcode), read on first use. */
const struct ol_symtab *ol_object_symbols(struct ol_object *obj);
/* Device symbols of an image (ELF object or bitcode payload), on first use. */
const struct ol_symtab *ol_image_symbols(struct ol_device_image *img);

/* Is the image LLVM bitcode (by its kind, or its bytes)? */
static inline int ol_image_is_bitcode(const struct ol_device_image *img)
{
	return img->bin.image_kind == OL_IMG_BITCODE ||
	       ol_bitcode_magic(img->bin.image, (size_t)img->bin.image_size);
}

/* Classify a buffer by its magic. */
enum ol_input_kind ol_identify(const uint8_t *data, size_t size);

#endif
