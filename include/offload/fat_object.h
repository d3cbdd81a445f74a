/*
 * fat_object: a host relocatable ELF object that holds nothing but
 * offloading data: a ".llvm.offloading" section (SHT_LLVM_OFFLOADING,
 * SHF_EXCLUDE, 8-byte aligned), as clang's -fembed-offload-object places
 * it, and an empty ".note.GNU-stack" so that linking it asks for no
 * executable stack.  What `offload-link package --fat-object` writes: device
 * code that joins a link like any fat object, with no host code of its own.
 */
#ifndef OFFLOAD_FAT_OBJECT_H
#define OFFLOAD_FAT_OBJECT_H

#include <stddef.h>
#include <stdint.h>

/* The ELF machine and flags of a 64-bit little-endian host triple
 * (x86_64, aarch64, powerpc64le, riscv64), or -1 for a triple the writer
 * does not know. */
int ol_fat_object_machine(const char *triple, uint16_t *machine, uint32_t *flags);

/* The object, malloc'd; *size_out its size. */
uint8_t *ol_fat_object_write(uint16_t machine, uint32_t flags, const uint8_t *offloading,
			     size_t size, size_t *size_out);

#endif
