/* elf_sections: the quick look at a 64-bit little-endian ELF file's section
 * headers finds an offloading section by type or by name, an entries
 * section by name, nothing in a plain object, and answers -1 for every
 * header or name that does not lie within the file. */
#include "offload/elf_sections.h"
#include "check.h"

#include <elf.h>
#include <string.h>

#define TYPE_OFFLOADING 0x6fff4c0b

/* An object with a null section, .shstrtab, and one section named `name`
 * of type `type`. */
static size_t make_object(uint8_t *buf, size_t cap, const char *name, uint32_t type)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh[3];
	char strtab[64] = "\0.shstrtab";
	size_t strsize = 11 + strlen(name) + 1, off = sizeof(eh);

	memcpy(strtab + 11, name, strlen(name) + 1);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_REL;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	eh.e_shstrndx = 1;
	eh.e_shoff = off + strsize;
	memset(sh, 0, sizeof(sh));
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_STRTAB;
	sh[1].sh_offset = off;
	sh[1].sh_size = strsize;
	sh[2].sh_name = 11;
	sh[2].sh_type = type;
	if (cap < eh.e_shoff + sizeof(sh))
		return 0;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + off, strtab, strsize);
	memcpy(buf + eh.e_shoff, sh, sizeof(sh));
	return eh.e_shoff + sizeof(sh);
}

static int device_name(const char *name)
{
	return !strcmp(name, ".llvm.offloading") || !strcmp(name, "llvm_offload_entries");
}

int main(void)
{
	uint8_t obj[512];
	size_t n;

	current_test = "plain";
	n = make_object(obj, sizeof(obj), ".text", SHT_PROGBITS);
	CHECK(n > 0);
	CHECK(ol_elf64_any_section(obj, n, TYPE_OFFLOADING, device_name) == 0);

	current_test = "found";
	n = make_object(obj, sizeof(obj), ".llvm.offloading", SHT_PROGBITS);
	CHECK(ol_elf64_any_section(obj, n, TYPE_OFFLOADING, device_name) == 1);
	n = make_object(obj, sizeof(obj), "llvm_offload_entries", SHT_PROGBITS);
	CHECK(ol_elf64_any_section(obj, n, TYPE_OFFLOADING, device_name) == 1);
	n = make_object(obj, sizeof(obj), ".other", TYPE_OFFLOADING);
	CHECK(ol_elf64_any_section(obj, n, TYPE_OFFLOADING, device_name) == 1);

	current_test = "not within the file";
	n = make_object(obj, sizeof(obj), ".text", SHT_PROGBITS);
	for (size_t cut = 0; cut < n; cut++)
		CHECK(ol_elf64_any_section(obj, cut, TYPE_OFFLOADING, device_name) == -1);
	CHECK(ol_elf64_any_section(NULL, 0, TYPE_OFFLOADING, device_name) == -1);
	obj[n - 64 + 0] = 200; /* the last section's name past .shstrtab */
	CHECK(ol_elf64_any_section(obj, n, TYPE_OFFLOADING, device_name) == -1);

	current_test = "unusual files";
	n = make_object(obj, sizeof(obj), ".text", SHT_PROGBITS);
	obj[EI_CLASS] = ELFCLASS32;
	CHECK(ol_elf64_any_section(obj, n, TYPE_OFFLOADING, device_name) == -1);
	n = make_object(obj, sizeof(obj), ".text", SHT_PROGBITS);
	obj[EI_DATA] = ELFDATA2MSB;
	CHECK(ol_elf64_any_section(obj, n, TYPE_OFFLOADING, device_name) == -1);
	n = make_object(obj, sizeof(obj), ".text", SHT_PROGBITS);
	obj[62] = 3; /* e_shstrndx out of range */
	CHECK(ol_elf64_any_section(obj, n, TYPE_OFFLOADING, device_name) == -1);
	n = make_object(obj, sizeof(obj), ".text", SHT_PROGBITS);
	obj[60] = 0; /* e_shnum 0: extended numbering */
	CHECK(ol_elf64_any_section(obj, n, TYPE_OFFLOADING, device_name) == -1);
	return failures != 0;
}
