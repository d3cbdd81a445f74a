/*
 * elf_cpu: the processor a GPU ELF image was built for, read from its header
 * as LLVM's ELFObjectFileBase::tryGetCPUName does (upstream names the arch
 * of an --override-image file this way): CUDA "sm_XX[a]" from e_flags by the
 * ELF ABI version, AMDGPU "gfxNNN" from EF_AMDGPU_MACH.  A pure function over
 * (pointer, length).
 */
#ifndef OFFLOAD_ELF_CPU_H
#define OFFLOAD_ELF_CPU_H

#include <stddef.h>
#include <stdint.h>

/* ELF machines older <elf.h> files lack. */
#define OL_EM_CUDA 190
#define OL_EM_AMDGPU 224

/* The processor name written into buf (at least 24 bytes), or NULL when the
 * image is not a 64-bit little-endian CUDA or AMDGPU ELF file or its flags
 * name no processor LLVM 22 knows. */
const char *ol_elf_cpu_name(const uint8_t *data, size_t size, char *buf, size_t bufsize);

#endif
