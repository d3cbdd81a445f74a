/*
 * elf_sections: a quick look at the section headers of a 64-bit
 * little-endian ELF file, for the common case of a host object or library
 * member without device code, which the scan can then pass over without
 * libelf (whose elf_memory allocates and zeroes tables for every section).
 * A pure function over (pointer, length).
 */
#ifndef OFFLOAD_ELF_SECTIONS_H
#define OFFLOAD_ELF_SECTIONS_H

#include <stddef.h>
#include <stdint.h>

/* Whether some section of the file is of type `type` or has a name
 * `wanted` calls interesting (it is given each name, NUL-terminated):
 * 1 when one is, 0 when none is, and -1 when the file is anything but a
 * plainly well-formed 64-bit little-endian ELF file whose headers and
 * section names all lie within it (the caller then reads it the thorough
 * way, which reports what is wrong). */
int ol_elf64_any_section(const uint8_t *data, size_t size, uint32_t type,
			 int (*wanted)(const char *name));

#endif
