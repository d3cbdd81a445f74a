/*
 * elf_cpu: the processor of a CUDA or AMDGPU ELF image (include/offload/elf_cpu.h).
 */
#include "offload/elf_cpu.h"
#include "offload/cubin.h"

#include "format_internal.h"
#include <elf.h>
#include <stdio.h>
#include <string.h>

enum {
	AMDGPU_MACH = 0xff,
};

/* EF_AMDGPU_MACH values, as LLVM 22 writes them (checked against clang-22
 * -mcpu=<each> objects). */
static const struct { uint8_t mach; const char *name; } amdgpu_machs[] = {
	{ 0x20, "gfx600" }, { 0x21, "gfx601" }, { 0x3a, "gfx602" }, { 0x22, "gfx700" },
	{ 0x23, "gfx701" }, { 0x24, "gfx702" }, { 0x25, "gfx703" }, { 0x26, "gfx704" },
	{ 0x3b, "gfx705" }, { 0x28, "gfx801" }, { 0x29, "gfx802" }, { 0x2a, "gfx803" },
	{ 0x3c, "gfx805" }, { 0x2b, "gfx810" }, { 0x2c, "gfx900" }, { 0x2d, "gfx902" },
	{ 0x2e, "gfx904" }, { 0x2f, "gfx906" }, { 0x30, "gfx908" }, { 0x31, "gfx909" },
	{ 0x32, "gfx90c" }, { 0x3f, "gfx90a" }, { 0x40, "gfx940" }, { 0x4b, "gfx941" },
	{ 0x4c, "gfx942" }, { 0x4f, "gfx950" }, { 0x33, "gfx1010" }, { 0x34, "gfx1011" },
	{ 0x35, "gfx1012" }, { 0x42, "gfx1013" }, { 0x36, "gfx1030" }, { 0x37, "gfx1031" },
	{ 0x38, "gfx1032" }, { 0x39, "gfx1033" }, { 0x3e, "gfx1034" }, { 0x3d, "gfx1035" },
	{ 0x45, "gfx1036" }, { 0x41, "gfx1100" }, { 0x46, "gfx1101" }, { 0x47, "gfx1102" },
	{ 0x44, "gfx1103" }, { 0x43, "gfx1150" }, { 0x4a, "gfx1151" }, { 0x55, "gfx1152" },
	{ 0x58, "gfx1153" }, { 0x48, "gfx1200" }, { 0x4e, "gfx1201" }, { 0x49, "gfx1250" },
	{ 0x5a, "gfx1251" }, { 0x51, "gfx9-generic" }, { 0x5f, "gfx9-4-generic" },
	{ 0x52, "gfx10-1-generic" }, { 0x53, "gfx10-3-generic" }, { 0x54, "gfx11-generic" },
	{ 0x59, "gfx12-generic" },
};

const char *ol_elf_cpu_name(const uint8_t *data, size_t size, char *buf, size_t bufsize)
{
	uint32_t flags;
	uint16_t machine;

	if (!data || size < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG) != 0 ||
	    data[EI_CLASS] != ELFCLASS64 || data[EI_DATA] != ELFDATA2LSB)
		return NULL;
	machine = ol_get16le(data + offsetof(Elf64_Ehdr, e_machine));
	flags = ol_get32le(data + offsetof(Elf64_Ehdr, e_flags));
	if (machine == OL_EM_CUDA) {
		struct ol_cubin_header cubin;

		if (ol_cubin_read_header(data, size, &cubin) < 0 || cubin.sm < 20)
			return NULL;
		snprintf(buf, bufsize, "sm_%u%s", cubin.sm, cubin.accelerated ? "a" : "");
		return buf;
	}
	if (machine == OL_EM_AMDGPU) {
		for (size_t i = 0; i < sizeof(amdgpu_machs) / sizeof(amdgpu_machs[0]); i++)
			if (amdgpu_machs[i].mach == (flags & AMDGPU_MACH)) {
				snprintf(buf, bufsize, "%s", amdgpu_machs[i].name);
				return buf;
			}
	}
	return NULL;
}
