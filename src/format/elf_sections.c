/*
 * elf_sections: see include/offload/elf_sections.h.  Anything unusual
 * (another class or byte order, extended section numbering, headers or
 * names out of the file, sizes other than ELF64's) answers -1 rather than
 * guessing: the thorough reader decides those files.
 */
#include "offload/elf_sections.h"

#include <string.h>

#define EHDR_SIZE 64
#define SHDR_SIZE 64
#define PHDR_SIZE 56

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Whether [off, off + n * entsize) lies within size. */
static int table_fits(uint64_t off, uint64_t n, uint64_t entsize, size_t size)
{
	return off <= size && n <= (size - off) / entsize;
}

int ol_elf64_any_section(const uint8_t *data, size_t size, uint32_t type,
			 int (*wanted)(const char *name))
{
	uint64_t shoff, phoff, str_off, str_size;
	uint16_t shnum, shstrndx, phnum;
	const uint8_t *strtab_hdr;

	if (!data || size < EHDR_SIZE || memcmp(data, "\177ELF", 4) != 0 || data[4] != 2 ||
	    data[5] != 1 || data[6] != 1 || le32(data + 20) != 1 || le16(data + 52) != EHDR_SIZE)
		return -1;
	phoff = le64(data + 32);
	shoff = le64(data + 40);
	phnum = le16(data + 56);
	shnum = le16(data + 60);
	shstrndx = le16(data + 62);
	if (phnum && (le16(data + 54) != PHDR_SIZE || !table_fits(phoff, phnum, PHDR_SIZE, size)))
		return -1;
	if (shnum == 0 || le16(data + 58) != SHDR_SIZE || !table_fits(shoff, shnum, SHDR_SIZE, size) ||
	    shstrndx == 0 || shstrndx >= shnum)
		return -1;
	strtab_hdr = data + shoff + (uint64_t)shstrndx * SHDR_SIZE;
	str_off = le64(strtab_hdr + 24);
	str_size = le64(strtab_hdr + 32);
	if (le32(strtab_hdr + 4) != 3 /* SHT_STRTAB */ || !table_fits(str_off, str_size, 1, size) ||
	    str_size == 0 || data[str_off + str_size - 1] != '\0')
		return -1;
	for (uint16_t i = 1; i < shnum; i++) {
		const uint8_t *hdr = data + shoff + (uint64_t)i * SHDR_SIZE;
		uint32_t name = le32(hdr);

		if (name >= str_size)
			return -1;
		if (le32(hdr + 4) == type || wanted((const char *)data + str_off + name))
			return 1;
	}
	return 0;
}
