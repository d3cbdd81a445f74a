/*
 * coff: the parts of a COFF object file (Windows hosts: clang's
 * x86_64-pc-windows-msvc objects, regular or /bigobj) that the scanner
 * needs: section names and bytes (device code is in sections whose names
 * start with ".llvm.offloading", as LLVM's extractOffloadBinaries looks for
 * them in COFF) and the symbol table (for archive members).  Pure functions
 * over (pointer, length); every offset is bounds-checked and nothing needs
 * alignment.  Names returned point into the file or into the caller's
 * struct; they are not NUL-terminated in the file, hence the lengths.
 */
#ifndef OFFLOAD_COFF_H
#define OFFLOAD_COFF_H

#include <stddef.h>
#include <stdint.h>

struct ol_coff {
	const uint8_t *data;
	size_t size;
	uint16_t machine;          /* IMAGE_FILE_MACHINE_* */
	int bigobj;                /* the /bigobj header and 20-byte symbols */
	uint32_t nsections;
	size_t section_table;      /* offset of the first section header */
	size_t symbol_table;       /* offset of the first symbol, 0 for none */
	uint32_t nsymbols;         /* symbol table entries, aux records included */
	const uint8_t *strings;    /* the string table (its 4-byte size included) */
	size_t strings_size;
};

/* Whether the bytes start like a COFF object of a machine LLVM knows
 * (identify_magic's coff_object), regular or bigobj; import libraries and
 * PE images are not objects. */
int ol_coff_is_object(const uint8_t *data, size_t size);

/* Reads the headers.  Returns 0, or -1 with *why set to a static text when
 * the file is not a well-formed COFF object. */
int ol_coff_open(const uint8_t *data, size_t size, struct ol_coff *out, const char **why);

struct ol_coff_section {
	const char *name;          /* into the file or short_name */
	size_t name_len;
	char short_name[9];
	uint32_t offset, size;     /* PointerToRawData, SizeOfRawData */
};

/* Section `index` (0-based).  Its bytes, when size > 0, lie inside the file.
 * Returns 0, or -1 with *why. */
int ol_coff_section(const struct ol_coff *c, uint32_t index, struct ol_coff_section *out,
		    const char **why);

enum {
	OL_COFF_SYM_CLASS_EXTERNAL = 2,
	OL_COFF_SYM_CLASS_WEAK_EXTERNAL = 105,
};

struct ol_coff_symbol {
	const char *name;          /* into the string table or short_name */
	size_t name_len;
	char short_name[9];
	uint32_t value;
	int32_t section;           /* 1-based; 0 undefined (common when value > 0) */
	uint8_t storage_class;
	uint8_t aux_count;         /* auxiliary records that follow */
};

/* Symbol table entry `index`.  Returns 0, or -1 with *why. */
int ol_coff_symbol(const struct ol_coff *c, uint32_t index, struct ol_coff_symbol *out,
		   const char **why);

#endif
