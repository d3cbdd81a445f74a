/*
 * cubin: the layout of a CUDA ELF image and the tools that made it
 * (include/offload/cubin.h).
 */
#include "offload/cubin.h"
#include "format_internal.h"
#include "offload/elf_cpu.h"

#include <elf.h>
#include <string.h>

enum {
	CUDA_SM_V1 = 0xff,
	CUDA_ACCELERATORS_V1 = 0x800,
	CUDA_SM_MASK_V2 = 0xff00,
	CUDA_SM_OFFSET_V2 = 8,
	CUDA_ACCELERATORS_V2 = 0x8,
	/* The tool notes: owner "NVIDIA Corp", type 2000.  Their description
	 * (layout version 2, the one CUDA 13 writes) is six 32-bit words, of
	 * which the third and fourth are the offsets of the tool's name and
	 * version in the string table that follows them. */
	NV_NOTE_TOOLKIT_INFO = 2000,
	TKINFO_LAYOUT = 2,
	TKINFO_WORDS = 6,
	TKINFO_NAME_WORD = 2,
	TKINFO_VERSION_WORD = 3,
};

static const char nvidia_owner[] = "NVIDIA Corp";

static uint64_t align4(uint64_t n) { return (n + 3) & ~(uint64_t)3; }

int ol_cubin_read_header(const uint8_t *data, size_t size, struct ol_cubin_header *out)
{
	uint32_t flags;
	int v1;

	if (!data || size < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG) != 0 ||
	    data[EI_CLASS] != ELFCLASS64 || data[EI_DATA] != ELFDATA2LSB ||
	    ol_get16le(data + offsetof(Elf64_Ehdr, e_machine)) != OL_EM_CUDA)
		return -1;
	flags = ol_get32le(data + offsetof(Elf64_Ehdr, e_flags));
	v1 = data[EI_ABIVERSION] == OL_CUDA_ELF_ABI_V1;
	out->abi_version = data[EI_ABIVERSION];
	out->flags = flags;
	out->type = ol_get16le(data + offsetof(Elf64_Ehdr, e_type));
	out->sm = v1 ? flags & CUDA_SM_V1 : (flags & CUDA_SM_MASK_V2) >> CUDA_SM_OFFSET_V2;
	out->accelerated = v1 ? (flags & CUDA_ACCELERATORS_V1) != 0 : (flags & CUDA_ACCELERATORS_V2) != 0;
	return 0;
}

/* One tool note's description: its name and version, or 0 when it is not
 * the layout we know or a string runs past its end. */
static int read_tool(const uint8_t *desc, uint64_t descsz, struct ol_cubin_tool *tool)
{
	const uint8_t *strings = desc + TKINFO_WORDS * 4;
	uint64_t strings_size, name_at, version_at;
	const uint8_t *name_end, *version_end;

	if (descsz < TKINFO_WORDS * 4 || ol_get32le(desc) != TKINFO_LAYOUT)
		return 0;
	strings_size = descsz - TKINFO_WORDS * 4;
	name_at = ol_get32le(desc + 4 * TKINFO_NAME_WORD);
	version_at = ol_get32le(desc + 4 * TKINFO_VERSION_WORD);
	if (name_at >= strings_size || version_at >= strings_size)
		return 0;
	name_end = memchr(strings + name_at, 0, (size_t)(strings_size - name_at));
	version_end = memchr(strings + version_at, 0, (size_t)(strings_size - version_at));
	if (!name_end || !version_end || name_end == strings + name_at)
		return 0;
	tool->name = (const char *)strings + name_at;
	tool->name_len = (size_t)(name_end - (strings + name_at));
	tool->version = (const char *)strings + version_at;
	tool->version_len = (size_t)(version_end - (strings + version_at));
	return 1;
}

/* The tool notes of one SHT_NOTE section [begin, end) of the image. */
static size_t tools_in_section(const uint8_t *data, uint64_t begin, uint64_t end,
			       struct ol_cubin_tool *out, size_t max, size_t found)
{
	uint64_t at = begin;

	while (end - at >= 12) {
		uint32_t namesz = ol_get32le(data + at), descsz = ol_get32le(data + at + 4);
		uint32_t type = ol_get32le(data + at + 8);
		uint64_t name_at = at + 12;
		uint64_t desc_at = name_at + align4(namesz);
		uint64_t next = desc_at + align4(descsz);
		struct ol_cubin_tool tool;

		if (next > end)
			break;
		if (type == NV_NOTE_TOOLKIT_INFO && namesz == sizeof(nvidia_owner) &&
		    memcmp(data + name_at, nvidia_owner, sizeof(nvidia_owner)) == 0 &&
		    read_tool(data + desc_at, descsz, &tool)) {
			if (found < max)
				out[found] = tool;
			found++;
		}
		at = next;
	}
	return found;
}

size_t ol_cubin_tools(const uint8_t *data, size_t size, struct ol_cubin_tool *out, size_t max)
{
	struct ol_cubin_header header;
	uint64_t shoff;
	unsigned shentsize, shnum;
	size_t found = 0;

	if (ol_cubin_read_header(data, size, &header) < 0)
		return 0;
	shoff = ol_get64le(data + offsetof(Elf64_Ehdr, e_shoff));
	shentsize = ol_get16le(data + offsetof(Elf64_Ehdr, e_shentsize));
	shnum = ol_get16le(data + offsetof(Elf64_Ehdr, e_shnum));
	if (shentsize < sizeof(Elf64_Shdr) || shoff > size ||
	    (uint64_t)shnum * shentsize > size - shoff)
		return 0;
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = data + shoff + (uint64_t)i * shentsize;
		uint64_t offset = ol_get64le(sh + offsetof(Elf64_Shdr, sh_offset));
		uint64_t section_size = ol_get64le(sh + offsetof(Elf64_Shdr, sh_size));

		if (ol_get32le(sh + offsetof(Elf64_Shdr, sh_type)) != SHT_NOTE || offset > size ||
		    section_size > size - offset)
			continue;
		found = tools_in_section(data, offset, offset + section_size, out, max, found);
	}
	return found;
}

const char *ol_cubin_tool_release(const struct ol_cubin_tool *tool, size_t *len)
{
	for (size_t i = tool->version_len; i > 1; i--)
		if (tool->version[i - 2] == ',' && tool->version[i - 1] == ' ') {
			*len = tool->version_len - i;
			return tool->version + i;
		}
	*len = tool->version_len;
	return tool->version;
}
