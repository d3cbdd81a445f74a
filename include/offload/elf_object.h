/*
 * elf_object: whether bytes are a relocatable ELF object, the kind of file
 * a device linker takes (a partition job's product is checked before the
 * link uses it or the cache keeps it: distributed_lto.c).  A pure check of
 * the ELF header over (pointer, length).
 */
#ifndef OFFLOAD_ELF_OBJECT_H
#define OFFLOAD_ELF_OBJECT_H

#include <stddef.h>
#include <stdint.h>

/* 0 when data is a 64-bit little-endian relocatable ELF object (ET_REL)
 * whose e_machine is `machine` (0: any); else -1 with *why saying what it
 * is instead ("empty", "not an ELF file", "an ELF file for machine 62, not
 * 190", ...). */
int ol_elf_object_check(const uint8_t *data, size_t size, unsigned machine, const char **why);

#endif
