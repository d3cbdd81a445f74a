/* ol_cubin_read_header and ol_cubin_tools: the ELF ABI version and SM of
 * both CUDA layouts, and the tool notes of a cubin laid out as CUDA 13's
 * nvlink writes them, then cut and damaged in every field that has a bound. */
#include "offload/cubin.h"
#include "check.h"

#include <elf.h>
#include <string.h>

/* A cubin: header, one SHT_NOTE section at NOTES, section headers after it. */
enum { NOTES = 64, IMAGE = 1024 };
static uint8_t image[IMAGE];
static size_t notes_end;

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void header(uint8_t abi_version, uint32_t flags)
{
	memset(image, 0, sizeof(image));
	memcpy(image, ELFMAG, SELFMAG);
	image[EI_CLASS] = ELFCLASS64;
	image[EI_DATA] = ELFDATA2LSB;
	image[EI_OSABI] = 0x41;
	image[EI_ABIVERSION] = abi_version;
	put16(image + offsetof(Elf64_Ehdr, e_type), ET_EXEC);
	put16(image + offsetof(Elf64_Ehdr, e_machine), 190);
	put32(image + offsetof(Elf64_Ehdr, e_flags), flags);
	notes_end = NOTES;
}

/* A tool note as nvlink writes it: layout 2, offsets of name and version
 * in the string table after six words; the table begins with "". */
static void add_tool(const char *name, const char *version)
{
	uint8_t *n = image + notes_end;
	size_t nlen = strlen(name) + 1, vlen = strlen(version) + 1;
	uint32_t descsz = (uint32_t)(24 + 1 + nlen + vlen);

	put32(n, 12);
	put32(n + 4, descsz);
	put32(n + 8, 2000);
	memcpy(n + 12, "NVIDIA Corp", 12);
	put32(n + 24, 2);
	put32(n + 32, 1);
	put32(n + 36, (uint32_t)(1 + nlen));
	memcpy(n + 48 + 1, name, nlen);
	memcpy(n + 48 + 1 + nlen, version, vlen);
	notes_end += 24 + ((descsz + 3) & ~3u);
}

/* The section header table after the notes: a null section and the notes. */
static size_t finish(void)
{
	size_t shoff = (notes_end + 7) & ~(size_t)7;
	uint8_t *sh = image + shoff + sizeof(Elf64_Shdr);

	put64(image + offsetof(Elf64_Ehdr, e_shoff), shoff);
	put16(image + offsetof(Elf64_Ehdr, e_shentsize), sizeof(Elf64_Shdr));
	put16(image + offsetof(Elf64_Ehdr, e_shnum), 2);
	put32(sh + offsetof(Elf64_Shdr, sh_type), SHT_NOTE);
	put64(sh + offsetof(Elf64_Shdr, sh_offset), NOTES);
	put64(sh + offsetof(Elf64_Shdr, sh_size), notes_end - NOTES);
	return shoff + 2 * sizeof(Elf64_Shdr);
}

static int tool_is(const struct ol_cubin_tool *t, const char *name, const char *version)
{
	return t->name_len == strlen(name) && !memcmp(t->name, name, t->name_len) &&
	       t->version_len == strlen(version) && !memcmp(t->version, version, t->version_len);
}

static const char v13[] = "Cuda compilation tools, release 13.0, V13.0.88";

int main(void)
{
	struct ol_cubin_header h;
	struct ol_cubin_tool tools[4];
	size_t size;

	current_test = "header";
	header(8, 0x06005a04);                  /* CUDA 13, sm_90 */
	CHECK(ol_cubin_read_header(image, sizeof(image), &h) == 0);
	CHECK(h.abi_version == 8 && h.sm == 90 && !h.accelerated && h.flags == 0x06005a04);
	CHECK(h.type == ET_EXEC);
	header(8, 0x06006408);                  /* sm_100a */
	CHECK(ol_cubin_read_header(image, sizeof(image), &h) == 0 && h.sm == 100 && h.accelerated);
	header(7, 0x005a055a);                  /* CUDA 12, sm_90 */
	CHECK(ol_cubin_read_header(image, sizeof(image), &h) == 0 && h.abi_version == 7 && h.sm == 90);
	header(7, 0x00000d5a);                  /* sm_90a */
	CHECK(ol_cubin_read_header(image, sizeof(image), &h) == 0 && h.accelerated);
	CHECK(ol_cubin_read_header(image, sizeof(Elf64_Ehdr) - 1, &h) == -1);
	CHECK(ol_cubin_read_header(NULL, 0, &h) == -1);
	put16(image + offsetof(Elf64_Ehdr, e_machine), EM_X86_64);
	CHECK(ol_cubin_read_header(image, sizeof(image), &h) == -1);
	header(8, 0x06005a04);
	image[EI_CLASS] = ELFCLASS32;
	CHECK(ol_cubin_read_header(image, sizeof(image), &h) == -1);

	current_test = "tools";
	header(8, 0x06005a04);
	add_tool("nvlink", v13);
	add_tool("ptxas", v13);
	size = finish();
	CHECK(ol_cubin_tools(image, size, tools, 4) == 2);
	CHECK(tool_is(&tools[0], "nvlink", v13));
	CHECK(tool_is(&tools[1], "ptxas", v13));
	/* More recorded than asked for: the count, and only `max` written. */
	memset(tools, 0, sizeof(tools));
	CHECK(ol_cubin_tools(image, size, tools, 1) == 2 && tool_is(&tools[0], "nvlink", v13));
	CHECK(tools[1].name == NULL);

	current_test = "release";
	{
		struct ol_cubin_tool plain = { "x", 1, "13.0", 4 };
		size_t len;
		const char *r = ol_cubin_tool_release(&tools[0], &len);

		CHECK(len == 8 && !memcmp(r, "V13.0.88", 8));
		r = ol_cubin_tool_release(&plain, &len);
		CHECK(len == 4 && r == plain.version);
	}

	current_test = "no notes";
	header(8, 0x06005a04);
	size = finish();
	CHECK(ol_cubin_tools(image, size, tools, 4) == 0);
	CHECK(ol_cubin_tools(image, sizeof(Elf64_Ehdr), tools, 4) == 0);

	current_test = "damaged";
	header(8, 0x06005a04);
	add_tool("nvlink", v13);
	size = finish();
	/* Section headers past the end of the bytes given. */
	CHECK(ol_cubin_tools(image, size - 1, tools, 4) == 0);
	/* The notes section past the end. */
	put64(image + ((notes_end + 7) & ~(size_t)7) + sizeof(Elf64_Shdr) +
		      offsetof(Elf64_Shdr, sh_size), IMAGE);
	CHECK(ol_cubin_tools(image, size, tools, 4) == 0);
	/* A description longer than its section. */
	header(8, 0x06005a04);
	add_tool("nvlink", v13);
	size = finish();
	put32(image + NOTES + 4, 4000);
	CHECK(ol_cubin_tools(image, size, tools, 4) == 0);
	/* A string offset past the table, a version not terminated inside
	 * it, another owner, an unknown layout: each note is skipped. */
	header(8, 0x06005a04);
	add_tool("nvlink", v13);
	size = finish();
	put32(image + NOTES + 36, 4000);
	CHECK(ol_cubin_tools(image, size, tools, 4) == 0);
	header(8, 0x06005a04);
	add_tool("nvlink", v13);
	size = finish();
	image[NOTES + 24 + image[NOTES + 4] - 1] = 'x';
	CHECK(ol_cubin_tools(image, size, tools, 4) == 0);
	header(8, 0x06005a04);
	add_tool("nvlink", v13);
	size = finish();
	image[NOTES + 12] = 'n';
	CHECK(ol_cubin_tools(image, size, tools, 4) == 0);
	image[NOTES + 12] = 'N';
	put32(image + NOTES + 24, 3);
	CHECK(ol_cubin_tools(image, size, tools, 4) == 0);
	return failures != 0;
}
