/*
 * fat_object: write a host object holding one .llvm.offloading section
 * (include/offload/fat_object.h).  Layout: ELF header, the section's bytes
 * at offset 64, the section name table, then the section headers (null,
 * .llvm.offloading, .note.GNU-stack, .shstrtab).
 */
#include "offload/fat_object.h"
#include "offload/diag.h"
#include "format_internal.h"

#include <string.h>

#define SHT_LLVM_OFFLOADING_TYPE 0x6fff4c0bu
#define SHF_EXCLUDE_FLAG 0x80000000u
#define EHDR_SIZE 64u
#define SHDR_SIZE 64u

static const struct {
	const char *arch;        /* the triple's first component */
	uint16_t machine;
	uint32_t flags;
} hosts[] = {
	{ "x86_64", 62, 0 },       /* EM_X86_64 */
	{ "aarch64", 183, 0 },     /* EM_AARCH64 */
	{ "powerpc64le", 21, 2 },  /* EM_PPC64, ELFv2 ABI */
	{ "riscv64", 243, 0x5 },   /* EM_RISCV, RVC + double-float ABI */
};

int ol_fat_object_machine(const char *triple, uint16_t *machine, uint32_t *flags)
{
	size_t len = strcspn(triple, "-");

	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
		if (strlen(hosts[i].arch) == len && !strncmp(triple, hosts[i].arch, len)) {
			*machine = hosts[i].machine;
			*flags = hosts[i].flags;
			return 0;
		}
	return -1;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static void put_section_header(uint8_t *p, uint32_t name, uint32_t type, uint64_t flags,
			       uint64_t offset, uint64_t size, uint64_t align)
{
	ol_put32le(p, name);
	ol_put32le(p + 4, type);
	ol_put64le(p + 8, flags);
	ol_put64le(p + 24, offset);
	ol_put64le(p + 32, size);
	ol_put64le(p + 48, align);
}

uint8_t *ol_fat_object_write(uint16_t machine, uint32_t flags, const uint8_t *offloading,
			     size_t size, size_t *size_out)
{
	static const char names[] = "\0.llvm.offloading\0.note.GNU-stack\0.shstrtab";
	const uint32_t offloading_name = 1, stack_name = 18, shstrtab_name = 34;
	uint64_t data_offset = EHDR_SIZE, names_offset = data_offset + size;
	uint64_t headers_offset = align_up(names_offset + sizeof(names), 8);
	uint64_t total = headers_offset + 4 * SHDR_SIZE;
	uint8_t *out = ol_xcalloc(1, (size_t)total), *sh = out + headers_offset;

	memcpy(out, "\x7f" "ELF", 4);
	out[4] = 2;   /* ELFCLASS64 */
	out[5] = 1;   /* ELFDATA2LSB */
	out[6] = 1;   /* EV_CURRENT */
	ol_put16le(out + 16, 1);          /* ET_REL */
	ol_put16le(out + 18, machine);
	ol_put32le(out + 20, 1);
	ol_put64le(out + 40, headers_offset);
	ol_put32le(out + 48, flags);
	ol_put16le(out + 52, EHDR_SIZE);
	ol_put16le(out + 58, SHDR_SIZE);
	ol_put16le(out + 60, 4);          /* section headers */
	ol_put16le(out + 62, 3);          /* .shstrtab's index */
	if (size)
		memcpy(out + data_offset, offloading, size);
	memcpy(out + names_offset, names, sizeof(names));
	put_section_header(sh + SHDR_SIZE, offloading_name, SHT_LLVM_OFFLOADING_TYPE,
			   SHF_EXCLUDE_FLAG, data_offset, size, 8);
	put_section_header(sh + 2 * SHDR_SIZE, stack_name, 1 /* SHT_PROGBITS */, 0,
			   names_offset, 0, 1);
	put_section_header(sh + 3 * SHDR_SIZE, shstrtab_name, 3 /* SHT_STRTAB */, 0,
			   names_offset, sizeof(names), 1);
	*size_out = (size_t)total;
	return out;
}
