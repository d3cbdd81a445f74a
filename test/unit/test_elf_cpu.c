/* ol_elf_cpu_name: the processor of CUDA and AMDGPU images from their ELF
 * headers, both CUDA ABI versions, and what is not such an image. */
#include "offload/elf_cpu.h"
#include "check.h"

#include <elf.h>
#include <string.h>

static void header(uint8_t *h, uint16_t machine, uint8_t abi_version, uint32_t flags)
{
	memset(h, 0, sizeof(Elf64_Ehdr));
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = ELFCLASS64;
	h[EI_DATA] = ELFDATA2LSB;
	h[EI_ABIVERSION] = abi_version;
	h[offsetof(Elf64_Ehdr, e_machine)] = (uint8_t)machine;
	h[offsetof(Elf64_Ehdr, e_machine) + 1] = (uint8_t)(machine >> 8);
	for (int i = 0; i < 4; i++)
		h[offsetof(Elf64_Ehdr, e_flags) + i] = (uint8_t)(flags >> (8 * i));
}

static const char *name_of(uint16_t machine, uint8_t abi_version, uint32_t flags)
{
	static uint8_t h[sizeof(Elf64_Ehdr)];
	static char buf[24];

	header(h, machine, abi_version, flags);
	return ol_elf_cpu_name(h, sizeof(h), buf, sizeof(buf));
}

static int is(const char *got, const char *want)
{
	return got && strcmp(got, want) == 0;
}

int main(void)
{
	uint8_t h[sizeof(Elf64_Ehdr)];
	char buf[24];

	current_test = "cuda";
	/* CUDA 13's nvlink output: ABI 8, sm in bits 8-15 (0x06005a04 is sm_90). */
	CHECK(is(name_of(190, 8, 0x06005a04), "sm_90"));
	CHECK(is(name_of(190, 8, 0x06005004), "sm_80"));
	CHECK(is(name_of(190, 8, 0x06006408), "sm_100a"));
	/* ABI 7: sm in the low byte, accelerators at 0x800. */
	CHECK(is(name_of(190, 7, 0x00500550), "sm_80"));
	CHECK(is(name_of(190, 7, 0x00000d5a), "sm_90a"));
	CHECK(name_of(190, 8, 0x00000004) == NULL);

	current_test = "amdgpu";
	CHECK(is(name_of(224, 3, 0x3f), "gfx90a"));
	CHECK(is(name_of(224, 3, 0x54c), "gfx942"));    /* xnack/sramecc bits do not count */
	CHECK(is(name_of(224, 3, 0x51), "gfx9-generic"));
	CHECK(name_of(224, 3, 0x01) == NULL);

	current_test = "not a gpu image";
	CHECK(name_of(62, 0, 0x3f) == NULL);              /* x86-64 */
	header(h, 190, 8, 0x06005a04);
	CHECK(ol_elf_cpu_name(h, sizeof(h) - 1, buf, sizeof(buf)) == NULL);
	h[EI_CLASS] = ELFCLASS32;
	CHECK(ol_elf_cpu_name(h, sizeof(h), buf, sizeof(buf)) == NULL);
	CHECK(ol_elf_cpu_name(NULL, 0, buf, sizeof(buf)) == NULL);
	memcpy(h, "\177ELG", 4);
	CHECK(ol_elf_cpu_name(h, sizeof(h), buf, sizeof(buf)) == NULL);
	return failures != 0;
}
