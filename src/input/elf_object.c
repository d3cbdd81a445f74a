/*
 * elf_object: what the scanner needs from ELF files, through libelf.
 *
 * Files are opened with elf_memory() over the read-only mapped view.  The
 * const is cast away because libelf's prototype wants a char *, but libelf
 * only reads such an image: byte-swapped or misaligned headers, symbols and
 * section data are converted into memory it allocates.  test_scan checks
 * this on PROT_READ mappings (any write would fault) of big-endian, 32-bit,
 * truncated and bit-flipped files.
 *
 * libelf reports a file whose section header table does not fit as having
 * no sections; ol_elf_open() turns that into an error, so a truncated fat
 * object can never lose its device code silently.
 *
 * Section contents that the scanner keeps (the offloading sections) are taken
 * straight from the view at sh_offset after a bounds check, so the device
 * images are views into the mapping and outlive the Elf handle.  Scanning
 * reads only the section headers and their names; .comment is read only for
 * objects that carry offloading data, and symbol tables only on request.
 */
#include "scan_internal.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/elf_sections.h"
#include "offload/entries_sections.h"
#include "offload/spawn.h"

#include <gelf.h>
#include <limits.h>
#include <libelf.h>
#include <string.h>

#ifndef SHT_LLVM_OFFLOADING
#define SHT_LLVM_OFFLOADING 0x6fff4c0b
#endif

/* Where upstream's relocatable links (19, 22) put the images they wrapped. */
#define RELOCATABLE_IMAGES ".llvm.offloading.relocatable"

Elf *ol_elf_open(const uint8_t *data, size_t size, const struct ol_loc *loc)
{
	static int initialized;
	GElf_Ehdr ehdr;
	size_t shnum;
	Elf *elf;

	if (!initialized) {
		if (elf_version(EV_CURRENT) == EV_NONE) {
			ol_error("libelf is out of date: %s", elf_errmsg(-1));
			return NULL;
		}
		initialized = 1;
	}
	elf = elf_memory((char *)data, size);
	if (!elf) {
		ol_error_at(loc, "invalid ELF file: %s", elf_errmsg(-1));
		return NULL;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		ol_error_at(loc, "invalid ELF file");
		elf_end(elf);
		return NULL;
	}
	if (!gelf_getehdr(elf, &ehdr) || elf_getshdrnum(elf, &shnum) < 0) {
		ol_error_at(loc, "invalid ELF file: %s", elf_errmsg(-1));
		elf_end(elf);
		return NULL;
	}
	/* The host linker refuses a program header table out of the file
	 * ("file format not recognized"), but only after the device links
	 * ran: say so first, and where. */
	if (ehdr.e_phnum != 0 &&
	    (ehdr.e_phoff > size ||
	     (uint64_t)ehdr.e_phnum * ehdr.e_phentsize > size - ehdr.e_phoff)) {
		ol_error_at(loc, "invalid ELF file: program header table (offset 0x%llx, %u entries) "
			    "extends past the end of the file", (unsigned long long)ehdr.e_phoff,
			    (unsigned)ehdr.e_phnum);
		elf_end(elf);
		return NULL;
	}
	/* libelf quietly reports no sections at all when the section header
	 * table does not fit in the file; for us that would mean silently
	 * dropping device code, so a truncated file is an error. */
	if (ehdr.e_shoff != 0 && (ehdr.e_shnum != 0 ? shnum != ehdr.e_shnum : shnum == 0)) {
		ol_error_at(loc, "invalid ELF file: section header table (offset 0x%llx) "
			    "is truncated or invalid", (unsigned long long)ehdr.e_shoff);
		elf_end(elf);
		return NULL;
	}
	return elf;
}

/* Highest N of "clang version N." among the producer strings. */
static int clang_major_of(const uint8_t *data, size_t size)
{
	static const char needle[] = "clang version ";
	const size_t needle_len = sizeof(needle) - 1;
	int best = 0;

	for (const uint8_t *p = data; size >= needle_len;) {
		const uint8_t *hit = memmem(p, size, needle, needle_len);
		int major = 0;
		size_t i;

		if (!hit)
			break;
		size -= (size_t)(hit - p) + needle_len;
		p = hit + needle_len;
		for (i = 0; i < size && i < 4 && p[i] >= '0' && p[i] <= '9'; i++)
			major = major * 10 + (p[i] - '0');
		if (i > 0 && major > best)
			best = major;
	}
	return best;
}

/* The bytes of a section, or NULL (reported) if they are not in the file. */
static const uint8_t *section_bytes(const uint8_t *data, size_t size, const GElf_Shdr *shdr,
				    const char *name, const struct ol_loc *loc)
{
	if (shdr->sh_type == SHT_NOBITS)
		return data;   /* no bytes in the file: an empty view */
	if (shdr->sh_offset > size || shdr->sh_size > size - shdr->sh_offset) {
		ol_error_at(loc, "section '%s' (offset 0x%llx, size %llu) extends past the end of the file",
			    name, (unsigned long long)shdr->sh_offset,
			    (unsigned long long)shdr->sh_size);
		return NULL;
	}
	return data + shdr->sh_offset;
}

/* A section name the thorough reading must see: an offloading section, or
 * an entries section (its layout decides the registration). */
static int names_device_code(const char *name)
{
	/* Both begin ".l": the second byte spares the comparisons for
	 * ".text", ".rela.*" and the rest. */
	if (name[0] == '.')
		return name[1] == 'l' &&
		       (!strcmp(name, ".llvm.offloading") || !strcmp(name, RELOCATABLE_IMAGES));
	return ol_entries_layout_of(name) > 0;
}

int ol_elf_scan(struct ol_object *obj, struct ol_image_vec *vec)
{
	struct ol_loc loc = ol_object_loc(obj);
	const uint8_t *comment = NULL;
	size_t comment_size = 0, shstrndx, first_image = vec->n;
	const char *empty_section = NULL;
	int empty_nobits = 0;
	Elf_Scn *scn = NULL;
	int status = 0;
	Elf *elf;

	/* Most objects of a link carry no device code, and a glance at their
	 * section headers says so without libelf; anything else, malformed
	 * files included, is read the thorough way. */
	if (ol_elf64_any_section(obj->data, obj->size, SHT_LLVM_OFFLOADING, names_device_code) == 0)
		return 0;
	elf = ol_elf_open(obj->data, obj->size, &loc);
	if (!elf)
		return -1;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0) {
		ol_error_at(&loc, "invalid ELF section name table: %s", elf_errmsg(-1));
		elf_end(elf);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		const uint8_t *bytes;
		int abi;

		if (!gelf_getshdr(scn, &shdr)) {
			ol_error_at(&loc, "invalid ELF section header: %s", elf_errmsg(-1));
			status = -1;
			break;
		}
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name) {
			ol_error_at(&loc, "invalid ELF section name: %s", elf_errmsg(-1));
			status = -1;
			break;
		}
		/* Most sections are ".text", ".rela.*" and the like: the tests
		 * below look at the first byte before comparing whole names. */
		if (shdr.sh_type == SHT_LLVM_OFFLOADING && name[0] == '.' &&
		    !strcmp(name, RELOCATABLE_IMAGES)) {
			/* Upstream's relocatable link (spec 6.1) leaves its linked
			 * images in a section LLVM types SHT_LLVM_OFFLOADING, and
			 * the object's own constructor registers them: linking
			 * them again would register their entries twice. */
			ol_spawn_note("%s: skipping %s: its images were linked and are registered "
				      "by the relocatable link that made it", obj->display, name);
		} else if (shdr.sh_type == SHT_LLVM_OFFLOADING ||
		    (name[0] == '.' && !strcmp(name, ".llvm.offloading"))) {
			bytes = section_bytes(obj->data, obj->size, &shdr, name, &loc);
			if (!bytes) {
				status = -1;
				continue;
			}
			if (shdr.sh_type == SHT_NOBITS || shdr.sh_size == 0) {
				/* Judged below, once the entries are known. */
				if (!empty_section)
					empty_section = ol_arena_strdup(&ol_link_arena, name);
				empty_nobits = shdr.sh_type == SHT_NOBITS;
				continue;
			}
			name = ol_arena_strdup(&ol_link_arena, *name ? name : ".llvm.offloading");
			if (ol_scan_offload_section(obj, vec, bytes, (size_t)shdr.sh_size, name) < 0)
				status = -1;
		} else if (name[0] == '.' && !strcmp(name, ".comment") && shdr.sh_type != SHT_NOBITS) {
			comment = section_bytes(obj->data, obj->size, &shdr, name, &loc);
			if (!comment)
				status = -1;
			else
				comment_size = (size_t)shdr.sh_size;
		} else if (name[0] != '.' && (abi = ol_entries_layout_of(name)) > obj->entries_abi) {
			obj->entries_abi = abi;
		}
	}
	/* An offloading section that holds nothing: upstream finds no image
	 * and links on.  When the object's code launches kernels (it has
	 * offloading entries) their images are lost and the program fails at
	 * run time, so that is an error; otherwise nothing is lost. */
	if (empty_section && vec->n == first_image) {
		const char *what = empty_nobits ? "has no contents (SHT_NOBITS)" : "is empty";

		if (obj->entries_abi) {
			ol_error_at(&loc, "section '%s' %s, but the object has offloading entries: "
				    "its device code is missing", empty_section, what);
			status = -1;
		} else {
			ol_warn_at(&loc, "section '%s' %s: no device code taken from it",
				   empty_section, what);
		}
	}
	if (comment && (vec->n > first_image || obj->entries_abi))
		obj->clang_major = clang_major_of(comment, comment_size);
	elf_end(elf);
	return status;
}

/* The symbol table to read: .symtab for objects, .dynsym for shared
 * objects, .symtab else .dynsym for executables.  *scn_out is NULL when the
 * file has none (stripped).  Returns -1 if a section header is unreadable. */
static int find_symtab(Elf *elf, GElf_Half type, Elf_Scn **scn_out, GElf_Shdr *shdr_out)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr shdr, symtab_shdr, dynsym_shdr;

	*scn_out = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr))
			return -1;
		if (shdr.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_shdr = shdr;
		} else if (shdr.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_shdr = shdr;
		}
	}
	if (type == ET_DYN || (type == ET_EXEC && !symtab)) {
		*scn_out = dynsym;
		if (dynsym)
			*shdr_out = dynsym_shdr;
	} else {
		*scn_out = symtab;
		if (symtab)
			*shdr_out = symtab_shdr;
	}
	return 0;
}

int ol_elf_symbols(const uint8_t *data, size_t size, const struct ol_loc *loc,
		   struct ol_symtab *out)
{
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	Elf_Data *syms;
	Elf_Scn *scn;
	size_t count, entsize;
	Elf *elf;

	out->v = NULL;
	out->n = 0;
	elf = ol_elf_open(data, size, loc);
	if (!elf)
		return -1;
	if (!gelf_getehdr(elf, &ehdr)) {
		ol_error_at(loc, "invalid ELF header: %s", elf_errmsg(-1));
		goto fail;
	}
	if (find_symtab(elf, ehdr.e_type, &scn, &shdr) < 0) {
		ol_error_at(loc, "invalid ELF section header: %s", elf_errmsg(-1));
		goto fail;
	}
	if (!scn) {
		/* No table (a stripped file) is not an error. */
		elf_end(elf);
		return 0;
	}
	entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	syms = elf_getdata(scn, NULL);
	if (!syms || !entsize) {
		ol_error_at(loc, "invalid ELF symbol table: %s", elf_errmsg(-1));
		goto fail;
	}
	count = syms->d_size / entsize;
	if (count > INT_MAX) {
		ol_error_at(loc, "ELF symbol table too large (%zu symbols)", count);
		goto fail;
	}
	out->v = count ? ol_arena_alloc(&ol_link_arena, count * sizeof(*out->v)) : NULL;
	/* Entry 0 is the reserved null symbol. */
	for (size_t i = 1; i < count; i++) {
		struct ol_symbol *sym = &out->v[out->n];
		unsigned bind, type, visibility;
		const char *name;
		GElf_Sym esym;

		if (!gelf_getsym(syms, (int)i, &esym)) {
			ol_error_at(loc, "invalid ELF symbol %zu: %s", i, elf_errmsg(-1));
			goto fail;
		}
		bind = GELF_ST_BIND(esym.st_info);
		type = GELF_ST_TYPE(esym.st_info);
		visibility = GELF_ST_VISIBILITY(esym.st_other);
		if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
			continue;
		if (type == STT_SECTION || type == STT_FILE)
			continue;
		name = elf_strptr(elf, shdr.sh_link, esym.st_name);
		if (!name) {
			ol_error_at(loc, "invalid name of ELF symbol %zu: %s", i, elf_errmsg(-1));
			goto fail;
		}
		if (!*name)
			continue;
		sym->name = ol_arena_strdup(&ol_link_arena, name);
		sym->defined = esym.st_shndx != SHN_UNDEF;
		sym->common = esym.st_shndx == SHN_COMMON;
		sym->weak = bind == STB_WEAK;
		sym->hidden = visibility == STV_HIDDEN || visibility == STV_INTERNAL;
		out->n++;
	}
	elf_end(elf);
	return 0;

fail:
	elf_end(elf);
	out->v = NULL;
	out->n = 0;
	return -1;
}
